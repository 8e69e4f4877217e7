import Foundation
import RequestKitDSL
import RequestKitModel

extension Request {
    /// A ``RequestChain`` step in swift-request's form: `build` receives the body of every earlier step (nil where
    /// a step failed) and their errors (nil where a step succeeded), in order, and returns the step's components.
    ///
    /// The step is named by its position in the chain ("1", "2", …), which errors and
    /// ``StepResponses/response(_:)`` use. A throwing `build` fails the step as ``Step`` does.
    ///
    /// ```swift
    /// RequestChain {
    ///     Request.chained { (data, errors) in
    ///         Url("http://127.0.0.1:8080/todos")
    ///     }
    ///     Request.chained { (data, errors) in
    ///         let json = Json(data[0]!)
    ///         return Url("http://127.0.0.1:8080/todos/\(json?[0]["id"].int ?? 0)")
    ///     }
    /// }
    /// .call { (data, errors) in print(data.count) }
    /// ```
    /// - Parameter build: Makes the step's components from the earlier steps' bodies and errors.
    /// - Returns: A step for a ``RequestChain`` block.
    public static func chained(
        @RequestBuilder _ build: @escaping @Sendable ([Data?], [RequestError?]) throws -> any RequestComponent
    ) -> Step {
        Step("") { (previous: StepResponses) throws -> any RequestRepresentable in
            let component = try build(previous.bodies, previous.stepErrors)
            return Request { component }
        }
    }
}
