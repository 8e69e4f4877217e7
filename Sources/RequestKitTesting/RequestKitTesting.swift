import RequestKit
