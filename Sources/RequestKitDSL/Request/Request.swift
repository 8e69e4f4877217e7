import Foundation
import RequestKitModel

/// A declarative HTTP request: a block of components, sent with `async` calls or swift-request style callbacks.
///
/// ```swift
/// let response = try await Request {
///     Url("http://127.0.0.1:8080/todos")
///     Method(.post)
///     Header.Accept(.json)
///     Body(NewTodo(title: "Write docs"))
/// }.send()
/// ```
///
/// A request is a value: building it does nothing on the network; each call sends it again.
public struct Request: RequestRepresentable {
    /// The components, as the builder combined them.
    package let root: any RequestComponent
    /// Callbacks for `call()`, and the error-body decoder.
    package var callbacks = Callbacks()

    /// Creates a request from a block of components.
    ///
    /// ```swift
    /// let request = Request {
    ///     Url("http://127.0.0.1:8080/todos")
    ///     Query("userId", value: 1)
    /// }
    /// ```
    public init(@RequestBuilder _ content: () -> any RequestComponent) {
        root = content()
    }

    /// Creates a request from components built elsewhere.
    ///
    /// ```swift
    /// let request = Request(components: [Url("http://127.0.0.1:8080"), Method(.head)])
    /// ```
    public init(components: [any RequestComponent]) {
        root = ComponentList(components: components)
    }

    package init(root: any RequestComponent, callbacks: Callbacks) {
        self.root = root
        self.callbacks = callbacks
    }

    /// The request itself.
    public var request: Request { self }

    /// Applies every component, in order, to fresh parts.
    ///
    /// ```swift
    /// let parts = request.parts()
    /// print(parts.method, parts.headers)
    /// ```
    @inline(never)  // Inlined into an async caller, building the parts would enlarge the caller's frame.
    public func parts() -> RequestParts {
        var parts = RequestParts()
        root.apply(to: &parts)
        return parts
    }

    /// A copy with more components applied after this request's own.
    ///
    /// ```swift
    /// let authorized = request.adding { Header.Authorization(.bearer(token)) }
    /// ```
    public func adding(@RequestBuilder _ content: () -> any RequestComponent) -> Request {
        Request(root: ComponentList(components: [root, content()]), callbacks: callbacks)
    }

    /// A copy with components applied before this request's own, so the request's components win.
    ///
    /// ```swift
    /// let withDefaults = request.withDefaults { Header.UserAgent(.requestKit); Timeout(30) }
    /// ```
    public func withDefaults(@RequestBuilder _ content: () -> any RequestComponent) -> Request {
        Request(root: ComponentList(components: [content(), root]), callbacks: callbacks)
    }
}
