import Foundation
import PushSealCore
import PushSealKeyStore
import PushSealReceiver
import Testing

/// SPEC §10.4: the duplicate log keeps a digest of each pair's first envelope.
@Suite("Duplicate log conflicts")
struct ConflictTests {
    /// A replay (same bytes), a re-seal (same content, new salt) and a forged content, all with mid "m1".
    private func check(_ receiver: Receiver) {
        let genuine = Array(apns(wire: seal(contentA(mid: "m1", body: "genuine"))).utf8)
        let first = receiver.open(.json(genuine))
        #expect(first.outcome == .decrypted && !first.isDuplicate && !first.isConflict)
        let replay = receiver.open(.json(genuine))
        #expect(replay.isDuplicate && !replay.isConflict)
        let other = receiver.open(.json(Array(apns(wire: seal(contentA(mid: "m1", body: "pre-empted"))).utf8)))
        #expect(other.outcome == .decrypted && other.isDuplicate && other.isConflict)
        // Another message id is unaffected.
        let fresh = receiver.open(.json(Array(apns(wire: seal(contentA(mid: "m2"))).utf8)))
        #expect(!fresh.isDuplicate && !fresh.isConflict)
    }

    @Test("in memory") func inMemory() {
        check(makeReceiver(sourceA()))
    }

    @Test("over the key store") func keyStore() throws {
        let directory = NSTemporaryDirectory() + "pushseal-conflict-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try DeviceKeyStore(
            directory: directory, masterKey: .keyFile(path: directory + "/master.key", createIfMissing: true), create: true, clock: { now })
        try store.add(keyA, conversation: conversationA, epoch: 1)
        check(makeReceiver(KeyStoreKeySource(directory: directory, masterKey: .keyFile(path: directory + "/master.key"), clock: { now })))
        // The API without an envelope: a plain duplicate, never a conflict.
        #expect(try store.recordDelivery(conversation: conversationA, messageID: "m1"))
        #expect(try store.recordDelivery(conversation: conversationA, messageID: "m3", envelope: nil) == .first)
        #expect(try store.recordDelivery(conversation: conversationA, messageID: "m3", envelope: [1, 2]) == .duplicate)
        #expect(try store.recordDelivery(conversation: conversationA, messageID: "m4", envelope: [1, 2]) == .first)
        #expect(try store.recordDelivery(conversation: conversationA, messageID: "m4", envelope: [1, 2]) == .duplicate)
        #expect(try store.recordDelivery(conversation: conversationA, messageID: "m4", envelope: [1, 3]) == .conflict)
        // The log stores a keyed digest, never the envelope itself.
        #expect(try store.deliveryCount() == 4)
    }

    @Test("a key source without envelope digests reports duplicates only") func sourceWithoutDigests() {
        struct Plain: ReceiverKeySource {
            let inner = sourceA()
            func lookupKey(_ id: KeyID) -> KeyLookupResult { inner.lookupKey(id) }
            func markDelivered(conversation: String, messageID: String, envelope: [UInt8]) -> DeliveryRecord {
                inner.markDelivered(conversation: conversation, messageID: messageID, envelope: [])
            }
        }
        let receiver = makeReceiver(Plain())
        _ = receiver.open(.json(Array(apns(wire: seal(contentA(mid: "m1", body: "a"))).utf8)))
        let again = receiver.open(.json(Array(apns(wire: seal(contentA(mid: "m1", body: "b"))).utf8)))
        #expect(again.isDuplicate && !again.isConflict)
    }
}
