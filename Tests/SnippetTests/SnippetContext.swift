import Foundation
import RequestKit

// The names the documented code blocks use without defining them: the values a reader's own code would have.

let token = "t0k3n"
let savedToken = "saved-token"
let saved = "saved-token"
let key = "api-key"
let apiKey = "api-key"
let userID = 42
let ids = [1, 2, 3]
let tags = ["swift", "http"]
let etag: String? = "\"v1\""
let apiURL = URL(fileURLWithPath: "/").baseURLForSnippets("https://api.example.com/v1/")
let baseURL = apiURL
let giphyURL = apiURL
let loginURL = "http://127.0.0.1:8080/login"
let profileURL = "http://127.0.0.1:8080/me"
let request = Request { Url("http://127.0.0.1:8080/todos") }
let status = Request { Url("http://127.0.0.1:8080/status") }
let client = Client(baseURL: apiURL)
let myDecoder = JSONDecoder()

func newToken() async throws -> String { "new-token" }
func fetchNewToken() async throws -> String { "new-token" }

struct Todo: Codable, Sendable {
    let id: Int
    let title: String
}

struct User: Codable, Sendable {
    let id: Int
    let displayName: String
}

struct Profile: Codable, Sendable {
    let name: String
}

struct NewPost: Codable, Sendable {
    let title: String
}

struct APIProblem: Codable, Sendable {
    let message: String
}

struct APIMessage: Codable, Sendable {
    let message: String
}

struct Payload: Codable, Sendable {
    let someNumberValue: Int
}

struct Activity: Codable, Sendable {
    let id: Int
    let name: String
}

struct Session: Codable, Sendable {
    let userID: Int
}

struct SessionBody: Codable, Sendable {
    let username: String
    let password: String
}

extension URL {
    /// A URL from text the documents spell out, or this URL when the text does not parse.
    func baseURLForSnippets(_ text: String) -> URL { URL(string: text) ?? self }
}

struct Token: Codable, Sendable {
    let token: String
}
