import Foundation
import PushSealCore
import PushSealJSON
import PushSealKeyDirectory
@testable import PushSealKeyStore
import PushSealVectors
import Testing

let committedStoreVectorFile = repositoryRoot.appendingPathComponent("Vectors/pushseal-v1-store.json")

@Suite("Key-store vector file")
struct StoreVectorFileTests {
    @Test("Vectors/pushseal-v1-store.json regenerates byte for byte, verifies, and a changed byte is caught")
    func regeneratesAndVerifies() throws {
        let committed = Array(try #require(FileManager.default.contents(atPath: committedStoreVectorFile.path)))
        #expect(committed == Array(StoreVectorSuite.render().utf8), "run `pushseal vectors generate --store -o Vectors/pushseal-v1-store.json`")
        let report = try VectorVerifier.verify(fileBytes: committed)
        #expect(report.failures.isEmpty && report.passed == StoreVectorSuite.cases().count, "\(report.failures)")
        var text = String(decoding: committed, as: UTF8.self)
        let range = try #require(text.range(of: #""removed": true"#))
        text.replaceSubrange(range, with: #""removed": false"#)
        #expect(try VectorVerifier.verify(fileBytes: Array(text.utf8)).failed == 1)
    }

    /// Every identity kind (device, provider, pinned, registered, registered and revoked) and the
    /// provider-key record have a case that the store reads and one, edited, that it refuses; and
    /// each case's expected result is checked: flipping any one fails exactly that case.
    @Test("identity and provider-key-record cases: every kind valid and invalid, each expected result checked")
    func identityCasesCoverEveryKind() throws {
        let committed = Array(try #require(FileManager.default.contents(atPath: committedStoreVectorFile.path)))
        let root = try JSONParser.parse(committed, maximumDepth: 8)
        guard case let .array(tests)? = root.objectValue?["tests"] else { Issue.record("no tests"); return }
        var seen: Set<String> = []
        for test in tests.compactMap(\.objectValue) {
            guard let kind = test["kind"]?.stringValue, kind == "identity" || kind == "providerKeyRecord" else { continue }
            let revoked = test["revokedAt"].map { $0 != .null } == true ? " revoked" : ""
            seen.insert("\(test["identityKind"]?.stringValue ?? kind)\(revoked) \(try #require(test["result"]?.stringValue))")
        }
        #expect(seen == Set(["device", "provider", "pinned", "registered", "registered revoked", "providerKeyRecord"].flatMap { ["\($0) valid", "\($0) invalid"] }))

        let text = String(decoding: committed, as: UTF8.self)
        var flips = 0
        for (from, to) in [(#""result": "valid""#, #""result": "invalid""#), (#""result": "invalid""#, #""result": "valid""#)] {
            var searchStart = text.startIndex
            while let range = text.range(of: from, range: searchStart..<text.endIndex) {
                var flipped = text
                flipped.replaceSubrange(range, with: to)
                #expect(try VectorVerifier.verify(fileBytes: Array(flipped.utf8)).failed == 1, "\(from) at \(text.distance(from: text.startIndex, to: range.lowerBound))")
                searchStart = range.upperBound
                flips += 1
            }
        }
        #expect(flips == 16)
        // A valid revoked registration read back with its revocation cleared fails.
        let range = try #require(text.range(of: #""revokedAt": 1764486400"#))
        var cleared = text
        cleared.replaceSubrange(range, with: #""revokedAt": null"#)
        #expect(try VectorVerifier.verify(fileBytes: Array(cleared.utf8)).failed == 1)
    }

    /// The vectors describe the real store: each sealed row opens with the store's own unsealing
    /// (every column bound, kid checked) under the vector's master key.
    @Test("a vector's sealed row opens with the store's own unsealing")
    func sealedRowsOpenInTheStore() throws {
        let root = try JSONParser.parse(Array(try #require(FileManager.default.contents(atPath: committedStoreVectorFile.path))), maximumDepth: 8)
        guard case let .array(tests)? = root.objectValue?["tests"] else { Issue.record("no tests"); return }
        let items = tests.compactMap(\.objectValue).filter { $0["kind"]?.stringValue == "item" }
        #expect(items.count == 7)
        #expect(items.contains { $0["epoch"]?.integerValue == .max })
        for item in items {
            let master = try #require(item["masterKey"]?.stringValue.flatMap(Hex.decode))
            let key = try ConversationKey(rawBytes: try #require(item["key"]?.stringValue.flatMap(Hex.decode)))
            let row = KeyItem(
                keyID: key.id, conversation: try #require(item["conversation"]?.stringValue), epoch: try #require(item["epoch"]?.integerValue),
                label: item["label"]?.stringValue, createdAt: try #require(item["createdAt"]?.integerValue), notAfter: item["notAfter"]?.integerValue)
            let sealed = try #require(item["sealedHex"]?.stringValue.flatMap(Hex.decode))
            #expect(ItemSealing.unseal(sealed, binding: .init(row), masterKey: MasterKey(SecretKey(bytes: master))) == key)
            // Any other column value refuses it.
            let moved = KeyItem(keyID: row.keyID, conversation: row.conversation, epoch: row.epoch ^ 1, label: row.label,
                                createdAt: row.createdAt, notAfter: row.notAfter)
            #expect(ItemSealing.unseal(sealed, binding: .init(moved), masterKey: MasterKey(SecretKey(bytes: master))) == nil)
        }
    }
}
