import RequestKit
import Testing

@Test("The library reports a semantic version")
func versionIsSemantic() {
    #expect(RequestKit.version.split(separator: ".").count == 3)
}
