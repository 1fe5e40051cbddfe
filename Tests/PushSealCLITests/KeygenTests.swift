import PushSealCore
import Testing
import PushSealJSON

@Suite struct KeygenTests {
    @Test func printsOneJSONLineWithKeyAndKid() throws {
        let run = try runPushSeal(["keygen"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty)
        #expect(run.stdout.hasSuffix("\n"))
        #expect(run.stdout.filter { $0 == "\n" }.count == 1)
        let object = try run.stdoutJSONObject()
        #expect(object.members.map(\.name) == ["key", "kid"])
        let keyText = try #require(object["key"]?.stringValue)
        let kidText = try #require(object["kid"]?.stringValue)
        let key = try Base64URL.decode(keyText)
        let kid = try Base64URL.decode(kidText)
        #expect(key.count == 32)
        #expect(kid.count == 16)
        #expect(keyText.count == 43 && kidText.count == 22)
        // kid = HKDF-Expand(K, "pushseal v1 key id", 16)
        #expect(try ConversationKey(rawBytes: key).id.bytes == kid)
    }

    @Test func everyRunMakesANewKey() throws {
        let first = try runPushSeal(["keygen"]).stdoutJSONObject()
        let second = try runPushSeal(["keygen"]).stdoutJSONObject()
        #expect(first["key"] != second["key"])
        #expect(first["kid"] != second["kid"])
    }

    @Test func keyIsNotAllZero() throws {
        let object = try runPushSeal(["keygen"]).stdoutJSONObject()
        let key = try Base64URL.decode(try #require(object["key"]?.stringValue))
        #expect(key.contains { $0 != 0 })
    }
}
