import PushSealCore
@testable import PushSealReceiver
import PushSealTestSupport
import Testing

/// `ParsedPayload(json:)` recognizes the usual payload with a scan; it must agree with the general
/// path on every payload, valid or not.
@Suite struct PayloadFastPathTests {
    static let wire = "AYC9z2cjRzehng6Y5g7IZBCgoaKjpKWmp6ipqqusra6vsLGys7S1trfmvrNs0J2ALm-T569G7vpbxzRVNlrEDHThVjO9kOGkMhzcIgWnVE1Nsq2I1RHiAOUvmynJcufmbAQptSqTDG3UcSObv64UoV2X4u7j7FJ1oIUzz6jW0JOSyQO6"
    static let parts = [
        "\"pushseal\":\"\(wire)\"", "\"pushseal\":\"\(wire)\"", "\"pushseal\":\"a\\u0062\"", "\"pushseal\":5", "\"pushseal\":null",
        "\"aps\":{\"alert\":{\"body\":\"New message\"},\"mutable-content\":1,\"thread-id\":\"rRsaI0vVOKhRE6qUaoBjUA\"}",
        "\"aps\":{\"alert\":\"Hi\",\"badge\":3,\"category\":\"c\",\"badge\":4}", "\"aps\":{\"alert\":{\"loc-key\":\"K\",\"loc-args\":[\"a\",1]}}",
        "\"aps\":[1,2]", "\"aps\":{\"alert\":{\"t\\u0069tle\":\"T\"}}", "\"message\":{\"data\":{\"pushseal\":\"\(wire)\"}}",
        "\"other\":{\"a\":{\"b\":{\"c\":[true,false,null,-1.5e3]}}}", "\"o\":{\"k\":1,\"k\":2}", "\"push\\u0073eal\":\"x\"",
        "\"deep\":" + String(repeating: "[", count: 15) + String(repeating: "]", count: 15),
        "\"deeper\":" + String(repeating: "[", count: 16) + String(repeating: "]", count: 16),
        "\"bad\":\"\u{1}\"", "\"bad\":01", "\"s\":\"\\ud800\"",
        "\"aps\":{\"alert\":{\"title\":\"T\",\"subtitle\":\"S\\n\",\"body\":\"B\"},\"badge\":7,\"thread-id\":\"t\",\"category\":\"c\"}",
        "\"aps\":{\"alert\":{\"title\":1,\"subtitle\":null,\"body\":[]},\"badge\":\"7\",\"thread-id\":2,\"category\":{}}",
        "\"aps\":{\"alert\":{\"subtitle-loc-key\":\"SK\",\"subtitle-loc-args\":[\"a\"],\"title\":\"T\"}}",
        "\"aps\":{\"alert\":{\"title-loc-key\":7,\"title\":\"T\",\"x\":1}}", "\"aps\":{\"alert\":{\"other\":\"o\"}}",
        "\"aps\":{\"alert\":{}}", "\"aps\":{\"alert\":true,\"badge\":-0,\"sound\":\"default\"}", "\"aps\":{\"badge\":2.5e1}",
        "\"aps\":{\"badge\":1e400}", "\"aps\":{\"badge\":2147483647}", "\"aps\":{\"badge\":2147483648}", "\"aps\":\"s\"",
        "\"aps\":{\"alert\":\"a\\u00e9\\\"\",\"thread-id\":\"\\u0074\"}", "\"aps\":{\"t\\u0068read-id\":\"x\"}",
    ]

    @Test func fastPathAgreesWithTheGeneralPath() {
        var generator = TestSeed.generator()
        var documents = ["", "[]", "null", "{}", "{\"pushseal\":\"\(Self.wire)\"} x", " {\"pushseal\":\"\(Self.wire)\"}\n"]
        for _ in 0..<4_000 {
            var chosen: [String] = []
            for _ in 0..<Int.random(in: 0...4, using: &generator) { chosen.append(Self.parts.randomElement(using: &generator)!) }
            documents.append("{" + chosen.joined(separator: Bool.random(using: &generator) ? "," : " , ") + "}")
        }
        for document in documents {
            let bytes = Array(document.utf8)
            #expect(Self.normalized(ParsedPayload(json: bytes)) == ParsedPayload(generalJSON: bytes), "\(document)")
        }
    }

    /// The fast path hands over the decoded envelope; strict base64url has one encoding, so
    /// re-encoding gives back the exact wire string the general path reads.
    static func normalized(_ parsed: ParsedPayload) -> ParsedPayload {
        guard case let .envelope(bytes) = parsed.sealed else { return parsed }
        return ParsedPayload(sealed: .wire(Base64URL.encode(bytes)), outer: parsed.outer)
    }

    @Test func sealedStringsThatAreNotStrictBase64TakeTheGeneralPath() {
        let long = String(repeating: "A", count: 5_464)
        for wire in ["AB\\u0043D", "AB=", "A", "AB\\\"C", "AB C", long, "\(Self.wire)\\n"] {
            let bytes = Array("{\"pushseal\":\"\(wire)\"}".utf8)
            let general = ParsedPayload(generalJSON: bytes)
            #expect(Self.normalized(ParsedPayload(json: bytes)) == general, "\(wire)")
            if case .envelope = ParsedPayload(json: bytes).sealed { Issue.record("fast path taken for \(wire)") }
        }
        let fine = Array("{\"pushseal\":\"\(Self.wire)\"}".utf8)
        guard case .envelope = ParsedPayload(json: fine).sealed else {
            Issue.record("the usual payload takes the fast path")
            return
        }
    }
}
