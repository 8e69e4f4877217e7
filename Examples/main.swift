import RequestKit
print("RequestKit \(RequestKit.version)")
