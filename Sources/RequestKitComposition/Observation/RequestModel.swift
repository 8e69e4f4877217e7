import RequestKitDSL
import RequestKitModel
import RequestKitSending

#if canImport(Observation)
import Foundation
import Observation

/// An observable request for SwiftUI and other observers: loads a value, tracks loading and failure, and can
/// keep itself fresh by polling.
///
/// Its properties change on the main actor, so views redraw as the ``state`` moves from idle to loading to a
/// value or a failure. A refresh keeps the last ``value`` while it loads; a failure keeps it too.
///
/// ```swift
/// struct TodoView: View {
///     @State private var model = RequestModel(AnyRequest<Todo> { Url("http://127.0.0.1:8080/todos/1") })
///
///     var body: some View {
///         Group {
///             switch model.state {
///             case .idle, .loading: ProgressView()
///             case .value(let todo): Text(todo.title)
///             case .failure(let error): Text(error.description)
///             }
///         }
///         .task { await model.refresh() }
///     }
/// }
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class RequestModel<Value: Sendable> {
    /// Where the model is: not started, loading, holding a value, or holding the last failure.
    public private(set) var state: State = .idle
    /// The last value loaded, kept while a refresh loads and after a failure.
    public private(set) var value: Value?
    /// The number of values loaded so far; a `304 Not Modified` while polling does not count.
    public private(set) var loadCount = 0

    @ObservationIgnored private let request: Request
    @ObservationIgnored private let decode: @Sendable (Response) throws(RequestError) -> Value
    @ObservationIgnored private var pollingTask: Task<Void, Never>?

    /// Creates a model whose value is the request's decoded body.
    ///
    /// ```swift
    /// let model = RequestModel(AnyRequest<[Todo]> { Url("http://127.0.0.1:8080/todos") })
    /// ```
    public convenience init(_ request: AnyRequest<Value>) where Value: Decodable {
        let decoder = request.decoder
        self.init(request.request) { response throws(RequestError) in
            try response.decode(Value.self, decoder: decoder)
        }
    }

    /// Creates a model whose value is made from each validated response.
    ///
    /// ```swift
    /// let model = RequestModel(Request { Url("http://127.0.0.1:8080/json") }) { try $0.json() }
    /// ```
    /// - Parameters:
    ///   - request: The request to send.
    ///   - decode: Makes the value from a validated response.
    public init(
        _ request: some RequestRepresentable,
        decode: @escaping @Sendable (Response) throws(RequestError) -> Value
    ) {
        self.request = request.request
        self.decode = decode
    }

    deinit {
        pollingTask?.cancel()
    }

    /// Whether a request is running.
    ///
    /// ```swift
    /// if model.isLoading { ProgressView() }
    /// ```
    public var isLoading: Bool {
        if case .loading = state { return true }
        return false
    }

    /// The last failure, while the state is a failure.
    ///
    /// ```swift
    /// if let error = model.error { Text(error.description) }
    /// ```
    public var error: RequestError? {
        if case .failure(let error) = state { return error }
        return nil
    }

    /// Sends the request and updates the state: loading, then the value or the failure.
    ///
    /// ```swift
    /// await model.refresh()
    /// ```
    public func refresh() async {
        state = .loading
        let request = self.request
        let decode = self.decode
        do throws(RequestError) {
            let response = try await request.validatedResponse()
            apply(.changed(response), decode: decode)
        } catch {
            apply(.failed(error), decode: decode)
        }
    }

    /// Starts polling, replacing any polling already running: each new response updates the value, a
    /// `304 Not Modified` leaves it, a failure becomes the state (and polling backs off).
    ///
    /// ```swift
    /// model.startPolling(every: .seconds(30))
    /// ```
    /// - Parameters:
    ///   - interval: The wait between one result and the next request.
    ///   - backoff: How the wait grows after failures in a row.
    public func startPolling(every interval: Duration, backoff: Backoff = .exponential()) {
        pollingTask?.cancel()
        let results = request.poll(every: interval, backoff: backoff)
        let decode = self.decode
        state = .loading
        pollingTask = Task { [weak self] in
            for await result in results {
                guard let self else { return }
                self.apply(result, decode: decode)
            }
        }
    }

    /// Stops polling; a request in flight is cancelled and not reported.
    ///
    /// ```swift
    /// model.stopPolling()
    /// ```
    public func stopPolling() {
        pollingTask?.cancel()
        pollingTask = nil
    }

    /// Whether the model is polling.
    ///
    /// ```swift
    /// Toggle("Live", isOn: .constant(model.isPolling))
    /// ```
    public var isPolling: Bool { pollingTask != nil }

    /// Moves to the state a result calls for.
    private func apply(_ result: PollResult, decode: @Sendable (Response) throws(RequestError) -> Value) {
        switch result {
        case .changed(let response):
            do throws(RequestError) {
                let newValue = try decode(response)
                value = newValue
                loadCount += 1
                state = .value(newValue)
            } catch {
                state = .failure(error)
            }
        case .unchanged:
            if let value { state = .value(value) }
        case .failed(let error):
            state = .failure(error)
        }
    }
}
#endif
