import Testing

@testable import RequestKitModel

@Suite("RequestParts options: typed values by key, the default until set, the last value set wins")
struct RequestOptionTests {
    enum Count: RequestOptionKey { static let defaultValue = 1 }
    enum Name: RequestOptionKey { static let defaultValue = "none" }
    enum Limit: RequestOptionKey { static let defaultValue: Int? = 5 }

    @Test("An option nobody set reads as its default, and a request without options has none")
    func defaults() {
        let parts = RequestParts()
        #expect(!parts.hasOptions)
        #expect(parts[option: Count.self] == 1 && parts[option: Name.self] == "none" && parts[option: Limit.self] == 5)
    }

    @Test("Whether an option is set: by its key alone, whatever its value, nil included")
    func hasOption() {
        var parts = RequestParts()
        #expect(!parts.hasOption(Count.self) && !parts.hasOption(Limit.self))
        parts[option: Count.self] = 1
        parts[option: Limit.self] = nil
        #expect(parts.hasOption(Count.self) && parts.hasOption(Limit.self) && !parts.hasOption(Name.self))
    }

    @Test("Each key keeps its own value; setting a key again replaces its value")
    func setAndReplace() {
        var parts = RequestParts()
        parts[option: Count.self] = 3
        parts[option: Name.self] = "first"
        #expect(parts.hasOptions)
        #expect(parts[option: Count.self] == 3 && parts[option: Name.self] == "first")
        parts[option: Name.self] = "second"
        parts[option: Count.self] += 1
        #expect(parts[option: Count.self] == 4 && parts[option: Name.self] == "second")
        #expect(parts[option: Limit.self] == 5)
        #expect(parts.options.count == 2)
    }

    @Test("An optional option set to nil reads nil, not its default")
    func explicitNil() {
        var parts = RequestParts()
        parts[option: Limit.self] = nil
        #expect(parts[option: Limit.self] == nil)
        parts[option: Limit.self] = 7
        #expect(parts[option: Limit.self] == 7)
    }

    @Test("A copy of the parts keeps its options when the original changes")
    func valueSemantics() {
        var parts = RequestParts()
        parts[option: Count.self] = 2
        let copy = parts
        parts[option: Count.self] = 9
        #expect(copy[option: Count.self] == 2 && parts[option: Count.self] == 9)
    }
}
