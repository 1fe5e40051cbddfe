import Foundation
import PushSealCore
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing

/// Recomputes, from Docs/KEY-STORE.md §3 and the core primitives only, what the store writes:
/// the documented construction is the implemented one.
@Suite("Sealing at rest")
struct SealingFormatTests {
    private func masterKey(_ dir: TemporaryDirectory) throws -> SecretKey {
        SecretKey(bytes: try Data(contentsOf: URL(fileURLWithPath: dir.keyFile)))
    }

    private func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    @Test func sealedItemsFollowTheDocumentedConstruction() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let key = ConversationKey.generate(), other = ConversationKey.generate()
        let conversation = "conv \u{1F510}"
        let label = "phone \u{E9}"
        try store.add(key, conversation: conversation, epoch: 0x0102_0304_0506, label: label, notAfter: 1_800_000_000)
        try store.add(other, conversation: conversation, epoch: 7)
        let raw = try RawDatabase(dir.database)
        let blob = try raw.column("SELECT sealed FROM keys WHERE kid = \(sqlBlob(key.id.bytes))")[0]
        let created = try raw.integer("SELECT created_at FROM keys WHERE kid = \(sqlBlob(key.id.bytes))")

        #expect(blob.count == 73)
        #expect(blob[0] == 0x02)
        let itemKey = { (blob: [UInt8]) in
            try HKDFSHA256.expand(
                pseudoRandomKey: try masterKey(dir), info: Array("pushseal v1 store item".utf8) + Array(blob[1..<25]), outputByteCount: 32)
        }
        let cid = Array(conversation.utf8), text = Array(label.utf8)
        let ad = [0x02] + key.id.bytes + bigEndian(Int64(0x0102_0304_0506)) + bigEndian(created)
            + [0x01] + bigEndian(Int64(1_800_000_000)) + bigEndian(UInt32(cid.count)) + cid
            + [0x01] + bigEndian(UInt32(text.count)) + text
        let opened = try ChaCha20Poly1305.open(Array(blob[25...]), using: try itemKey(blob), nonce: [UInt8](repeating: 0, count: 12), authenticating: ad)
        #expect(opened == key.withUnsafeBytes { Array($0) })

        // Absent not-after and label: a zero presence byte, zero value / length.
        let otherBlob = try raw.column("SELECT sealed FROM keys WHERE kid = \(sqlBlob(other.id.bytes))")[0]
        let otherCreated = try raw.integer("SELECT created_at FROM keys WHERE kid = \(sqlBlob(other.id.bytes))")
        let otherAD = [0x02] + other.id.bytes + bigEndian(Int64(7)) + bigEndian(otherCreated)
            + [0x00] + bigEndian(Int64(0)) + bigEndian(UInt32(cid.count)) + cid
            + [0x00] + bigEndian(UInt32(0))
        let otherOpened = try ChaCha20Poly1305.open(
            Array(otherBlob[25...]), using: try itemKey(otherBlob), nonce: [UInt8](repeating: 0, count: 12), authenticating: otherAD)
        #expect(otherOpened == other.withUnsafeBytes { Array($0) })
    }

    @Test func eachRowHasItsOwnSalt() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        for epoch in 1...5 { _ = try store.asDirectory.rotate(conversation: "c\(epoch % 2)") }
        let salts = try RawDatabase(dir.database).column("SELECT substr(sealed, 2, 24) FROM keys")
        #expect(salts.count == 5)
        #expect(Set(salts).count == 5)
    }

    @Test func theVerifierFollowsTheDocumentedConstruction() throws {
        let dir = TemporaryDirectory()
        _ = try makeStore(dir)
        let verifier = try RawDatabase(dir.database).column("SELECT value FROM meta WHERE name = 'verifier'")[0]
        #expect(verifier.count == 57)
        #expect(verifier[0] == 0x01)
        let salt = Array(verifier[1..<25])
        let check = try HKDFSHA256.expand(
            pseudoRandomKey: try masterKey(dir), info: Array("pushseal v1 store verifier".utf8) + salt, outputByteCount: 32)
        #expect(Array(verifier[25...]) == check.withUnsafeBytes { Array($0) })
    }

    @Test func deliveryTagsFollowTheDocumentedConstruction() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        _ = try store.recordDelivery(conversation: "cid", messageID: "mid-1")
        let tag = try recordedTags(dir.deliveryLog)[0]
        let logKey = try HKDFSHA256.expand(
            pseudoRandomKey: try masterKey(dir), info: Array("pushseal v1 store delivery log".utf8), outputByteCount: 32)
        let message = bigEndian(UInt32(3)) + Array("cid".utf8) + bigEndian(UInt32(5)) + Array("mid-1".utf8)
        #expect(tag == HMACSHA256.authenticationCode(for: message, using: logKey))
    }

    @Test func keysNeverAppearInClearInTheFile() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        var keys: [ConversationKey] = []
        for epoch in 1...20 {
            let key = ConversationKey.generate()
            try store.add(key, conversation: "c", epoch: Int64(epoch))
            keys.append(key)
        }
        for key in keys {
            #expect(try !fileContains(dir.database, key.withUnsafeBytes { Array($0) }))
        }
    }

    @Test func removedItemsDoNotLingerInTheFile() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let victim = ConversationKey.generate()
        try store.add(victim, conversation: "secret-conversation-name", epoch: 1)
        for epoch in 1...10 { try store.add(.generate(), conversation: "keep", epoch: Int64(epoch)) }
        let blob = try RawDatabase(dir.database).column("SELECT sealed FROM keys WHERE kid = \(sqlBlob(victim.id.bytes))")[0]
        #expect(try fileContains(dir.database, blob))
        try store.remove(keyID: victim.id)
        // secure_delete zeroes the freed cells: neither the sealed key nor its metadata remain.
        #expect(try !fileContains(dir.database, blob))
        #expect(try !fileContains(dir.database, Array("secret-conversation-name".utf8)))
        #expect(try !fileContains(dir.database, victim.id.bytes))

        let wiped = try store.items().map { try RawDatabase(dir.database).column("SELECT sealed FROM keys WHERE kid = \(sqlBlob($0.keyID.bytes))")[0] }
        #expect(try store.removeAll() == 10)
        for sealed in wiped { #expect(try !fileContains(dir.database, sealed)) }
    }
}
