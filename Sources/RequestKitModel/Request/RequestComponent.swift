/// A piece of a request definition: it changes the shared ``RequestParts`` value when the request is built.
///
/// Every DSL component (`Url`, `Header.Accept`, `Query`, `Body`, …) conforms. Conform your own types to add
/// components; report mistakes with ``RequestParts/report(_:)`` instead of crashing, so they are listed in the
/// ``RequestError`` that building the request throws.
///
/// ```swift
/// struct APIKey: RequestComponent {
///     let key: String
///     func apply(to parts: inout RequestParts) {
///         if key.isEmpty { parts.report(RequestProblem(.invalidComponent, "the API key is empty")) }
///         parts.queryItems.append(QueryItem(name: "api_key", value: key))
///     }
/// }
///
/// let request = Request {
///     Url("http://127.0.0.1:8080/weather")
///     APIKey(key: "secret")
/// }
/// ```
public protocol RequestComponent: Sendable {
    /// Applies this component to the request being built.
    ///
    /// - Parameter parts: The request being built; components apply in the order they are written.
    func apply(to parts: inout RequestParts)
}

/// Components applied in order: what the builder makes of a block.
package struct ComponentList: RequestComponent {
    let components: [any RequestComponent]

    package init(components: [any RequestComponent]) {
        self.components = components
    }

    package func apply(to parts: inout RequestParts) {
        // By index: each component is applied where it is stored, not copied out of the array first.
        for index in components.indices { components[index].apply(to: &parts) }
    }
}

/// A component that changes nothing: the missing branch of an `if`.
struct EmptyComponent: RequestComponent {
    func apply(to parts: inout RequestParts) {}
}
