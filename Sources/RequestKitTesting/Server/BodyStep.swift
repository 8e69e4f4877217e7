import Foundation

/// One step of a response body that the server's event loop plays without a thread of its own: the built-in
/// routes that trickle, wait or write until the client leaves are made of these, so that they hold no thread.
///
/// ```swift
/// let steps: [BodyStep] = [.write(Data("a".utf8)), .pause(.milliseconds(50)), .write(Data("b".utf8))]
/// ```
enum BodyStep {
    /// Body bytes, framed as the response is (a chunk when chunked).
    case write(Data)
    /// Bytes sent exactly as given; the connection closes after the response.
    case writeRaw(Data)
    /// A wait, ended early (and the response with it) when the client leaves.
    case pause(Duration)
    /// The end of a chunked body, with trailer fields.
    case finish(trailers: [(name: String, value: String)])
    /// Cuts the connection at once, without ending the body.
    case close
}

/// Makes a fresh sequence of ``BodyStep``s for one response; the loop asks for the next step when the previous
/// one is done.
///
/// ```swift
/// let source = BodySteps { AnyIterator([BodyStep.write(Data("hi".utf8))].makeIterator()) }
/// ```
struct BodySteps: Sendable {
    let make: @Sendable () -> AnyIterator<BodyStep>

    /// The same steps played through a blocking ``TestResponseWriter``, for the public body closure.
    func play(on writer: TestResponseWriter) throws {
        for step in make() {
            switch step {
            case .write(let data): try writer.write(data)
            case .writeRaw(let data): try writer.writeRaw(data)
            case .pause(let duration): try writer.sleep(for: duration)
            case .finish(let trailers): try writer.finish(trailers: trailers)
            case .close:
                writer.close()
                return
            }
        }
    }
}

extension TestResponse {
    /// A response whose body the event loop plays step by step (the public ``body`` plays the same steps
    /// through a writer); `raw` when the steps write every byte, status line included.
    static func stepped(
        status: Int = 200, headers: [(name: String, value: String)] = [], raw: Bool = false,
        _ make: @escaping @Sendable () -> AnyIterator<BodyStep>
    ) -> TestResponse {
        let steps = BodySteps(make: make)
        var response = TestResponse(
            status: status, headers: headers, body: raw ? .raw(steps.play) : .stream(steps.play))
        response.steps = steps
        return response
    }
}
