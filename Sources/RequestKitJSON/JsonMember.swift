/// One member of a JSON object: its key and its value.
///
/// A struct rather than a `(key: String, value: Json)` tuple: the runtime destroys an array of tuples through
/// the generic value witness of tuples, one element type at a time, where a struct has a witness of its own.
/// Freeing a parsed document costs noticeably less that way.
struct JsonMember: Sendable {
    var key: String
    var value: Json
}
