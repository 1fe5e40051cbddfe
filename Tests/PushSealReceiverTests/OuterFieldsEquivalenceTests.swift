import PushSealCore
@testable import PushSealReceiver
import PushSealTestSupport
import Testing
import PushSealJSON

/// The raw-JSON payload path reads `aps` directly from the parsed JSON; it must read exactly what
/// the `userInfo` conversion (`UserInfoValue(json:)`, as iOS converts a payload) would give.
@Suite struct OuterFieldsEquivalenceTests {
    static let values = [
        "\"text\"", "\"\"", "1", "3", "3.0", "3.5", "-1", "1e2", "2147483647", "2147483648", "1e400", "-0", "true", "null",
        "[]", "[\"a\",\"b\"]", "[\"a\",1]", "{}", "{\"title\":\"T\"}", "{\"body\":\"B\",\"title\":5}",
        "{\"loc-key\":\"K\",\"loc-args\":[\"x\",\"y\"]}", "{\"loc-key\":\"K\",\"loc-args\":[\"x\",2]}", "{\"loc-key\":3,\"body\":\"B\"}",
        "{\"title-loc-key\":\"TK\",\"title-loc-args\":\"notarray\",\"subtitle\":\"S\"}",
        "{\"subtitle-loc-key\":\"SK\",\"subtitle-loc-args\":[]}", "{\"body\":\"first\",\"body\":\"second\"}",
    ]
    static let names = ["alert", "thread-id", "category", "badge", "sound", "alert", "x"]

    static func apsObjects() -> [String] {
        var generator = TestSeed.generator()
        var documents: [String] = ["1", "\"aps\"", "[]", "{}"]
        for _ in 0..<3_000 {
            let count = Int.random(in: 0...5, using: &generator)
            let members = (0..<count).map { _ in
                "\"\(names.randomElement(using: &generator)!)\":\(values.randomElement(using: &generator)!)"
            }
            documents.append("{" + members.joined(separator: ",") + "}")
        }
        return documents
    }

    @Test func rawJSONAndUserInfoReadTheSameOuterFields() throws {
        for document in Self.apsObjects() {
            let aps = try JSONParser.parseKeepingDuplicateNames(Array(document.utf8))
            let direct = OuterFields(apsJSON: aps)
            let converted = OuterFields(aps: UserInfoValue(json: aps))
            #expect(direct == converted, "\(document)")
        }
        #expect(OuterFields(apsJSON: nil) == OuterFields(aps: nil))
    }
}
