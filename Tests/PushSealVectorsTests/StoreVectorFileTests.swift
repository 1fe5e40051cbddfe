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
