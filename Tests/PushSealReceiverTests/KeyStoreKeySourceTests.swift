import Foundation
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealReceiver
import Testing

/// The receiver over a real key store directory: the device side of DESIGN.md §4.
@Suite("Receiver over the key store")
struct KeyStoreKeySourceTests {
    /// A store in a fresh directory holding keyA for conversationA, with its master key file.
    final class Device {
        let directory: String
        let masterKeyPath: String
        let store: DeviceKeyStore

        init() throws {
            directory = NSTemporaryDirectory() + "pushseal-receiver-store-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            masterKeyPath = directory + "/master.key"
            store = try DeviceKeyStore(directory: directory, masterKey: .keyFile(path: masterKeyPath, createIfMissing: true), create: true, clock: { now })
            try store.add(keyA, conversation: conversationA, epoch: 1)
        }

        func source(masterKey: MasterKeySource? = nil) -> KeyStoreKeySource {
            KeyStoreKeySource(directory: directory, masterKey: masterKey ?? .keyFile(path: masterKeyPath), clock: { now })
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test("decrypts with the stored key, then flags the second delivery as duplicate")
    func decryptsAndFlagsDuplicates() throws {
        let device = try Device()
        let receiver = makeReceiver(device.source())
        let payload = Array(apns(wire: seal(contentA())).utf8)
        let first = receiver.open(.json(payload))
        #expect(first.outcome == .decrypted)
        #expect(first.reason == nil)
        #expect(!first.isDuplicate)
        #expect(first.body == .plain("Hello from A"))
        let second = receiver.open(.json(payload))
        #expect(second.outcome == .decrypted)
        #expect(second.isDuplicate)
        #expect(try device.store.deliveryCount() == 1)
    }

    @Test("a kid the store does not hold is unknown_key, even when the master key is unavailable")
    func unknownKeyBeforeLocked() throws {
        let device = try Device()
        let payload = Array(apns(wire: seal(contentA(), key: keyB)).utf8)
        #expect(makeReceiver(device.source()).open(.json(payload)).reason == .unknownKey)
        let noMasterKey = device.source(masterKey: .keyFile(path: device.directory + "/missing.key"))
        #expect(makeReceiver(noMasterKey).open(.json(payload)).reason == .unknownKey)
    }

    @Test("a held kid without its master key is store_locked; a wrong master key too")
    func lockedStore() throws {
        let device = try Device()
        let payload = Array(apns(wire: seal(contentA())).utf8)
        let missing = makeReceiver(device.source(masterKey: .keyFile(path: device.directory + "/missing.key"))).open(.json(payload))
        #expect(missing.reason == .storeLocked)
        #expect(missing.outcome == .fallback)
        let wrong = makeReceiver(device.source(masterKey: .bytes(SecretKey.random()))).open(.json(payload))
        #expect(wrong.reason == .storeLocked)
    }

    @Test("a missing store directory is store_locked for every notification")
    func missingStore() throws {
        let source = KeyStoreKeySource(directory: "/nonexistent/pushseal-store", masterKey: .bytes(SecretKey.random()))
        let result = makeReceiver(source).open(.json(Array(apns(wire: seal(contentA())).utf8)))
        #expect(result.reason == .storeLocked)
    }

    @Test("after a logout wipe every notification is unknown_key")
    func logoutWipe() throws {
        let device = try Device()
        let payload = Array(apns(wire: seal(contentA())).utf8)
        try device.store.removeAll()
        #expect(makeReceiver(device.source()).open(.json(payload)).reason == .unknownKey)
    }

    @Test("a valid ciphertext under conversation A that claims conversation B is conversation_mismatch")
    func conversationBinding() throws {
        let device = try Device()
        var content = contentA()
        content.conversationID = "conversation-B"
        let result = makeReceiver(device.source()).open(.json(Array(apns(wire: seal(content)).utf8)))
        #expect(result.reason == .conversationMismatch)
        #expect(try device.store.deliveryCount() == 0, "failed opens are never recorded")
    }

    @Test("recording a delivery prunes entries older than the retention window")
    func pruning() throws {
        let device = try Device()
        let old = KeyStoreKeySource(directory: device.directory, masterKey: .keyFile(path: device.masterKeyPath),
                                    duplicateLogRetention: 100, clock: { now - 1000 })
        #expect(old.markDelivered(conversation: conversationA, messageID: "old", envelope: []) == .first)
        let current = KeyStoreKeySource(directory: device.directory, masterKey: .keyFile(path: device.masterKeyPath),
                                        duplicateLogRetention: 100, clock: { now })
        #expect(current.markDelivered(conversation: conversationA, messageID: "new", envelope: []) == .first)
        #expect(try device.store.deliveryCount() == 1)
        #expect(current.markDelivered(conversation: conversationA, messageID: "new", envelope: []) == .duplicate)
    }
}
