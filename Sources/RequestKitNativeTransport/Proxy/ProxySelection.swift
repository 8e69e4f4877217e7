import RequestKitModel

/// A transport's ``ProxyConfiguration`` made ready for requests: the environment read once, its proxy URLs
/// parsed once, so that picking the proxy for a request costs a `no_proxy` match at most, and nothing without a
/// proxy.
///
/// ```swift
/// let selection = ProxySelection(.environment, environment: ["https_proxy": "http://127.0.0.1:3128"])
/// let server = try selection.server(host: "example.com", isSecure: true)  // http://127.0.0.1:3128
/// ```
struct ProxySelection: Sendable {
    /// The proxy for `http://` requests, or why the setting cannot be used.
    private let plain: Result<ProxyServer, RequestError>?
    /// The proxy for `https://` requests, or why the setting cannot be used.
    private let secure: Result<ProxyServer, RequestError>?
    private let exclusions: NoProxyList

    /// Whether some request may go through a proxy.
    var isEmpty: Bool { plain == nil && secure == nil }

    init(_ configuration: ProxyConfiguration, environment: [String: String]) {
        switch configuration.source {
        case .direct:
            (plain, secure, exclusions) = (nil, nil, NoProxyList(""))
        case .server(let server, let list):
            (plain, secure, exclusions) = (.success(server), .success(server), list)
        case .environment(let variables):
            let environment = variables ?? environment
            func value(_ names: String...) -> (name: String, value: String)? {
                for name in names {
                    if let value = environment[name], !value.isEmpty { return (name, value) }
                }
                return nil
            }
            func server(_ setting: (name: String, value: String)?) -> Result<ProxyServer, RequestError>? {
                guard let setting else { return nil }
                return Result { () throws(RequestError) in
                    try ProxyServer(parsing: setting.value, origin: "the environment variable \(setting.name)")
                }
            }
            // In a CGI script, HTTP_PROXY may come from the request's own `Proxy` header.
            let isCGI = environment["REQUEST_METHOD"] != nil
            let all = value("all_proxy", "ALL_PROXY")
            let http = isCGI ? value("http_proxy") : value("http_proxy", "HTTP_PROXY")
            plain = server(http ?? all)
            secure = server(value("https_proxy", "HTTPS_PROXY") ?? all)
            exclusions = NoProxyList(value("no_proxy", "NO_PROXY")?.value ?? "")
        }
    }

    /// The proxy for a request to `host`, or nil to go straight to it.
    ///
    /// - Throws: ``RequestError`` of kind `.invalidRequest` when the setting that applies is not a proxy URL.
    func server(host: String, isSecure: Bool) throws(RequestError) -> ProxyServer? {
        guard let setting = isSecure ? secure : plain else { return nil }
        if exclusions.matches(host: host) { return nil }
        return try setting.get()
    }
}
