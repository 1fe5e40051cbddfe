import PushSealCore
@testable import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing

/// `DeviceKeyStore.rotateMasterKey(to:)`: every row under the new master key, in one transaction.
@Suite("Master-key rotation")
struct MasterKeyRotationTests {
    @Test func everyKeyOpensUnderTheNewKeyAndAnOldCopyDiesWithTheOldKey() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let first = try store.asDirectory.rotate(conversation: "c")
        let second = try store.asDirectory.rotate(conversation: "c")
        let other = ConversationKey.generate()
        try store.add(other, conversation: "d", epoch: 1, label: "kept")
        _ = try store.recordDelivery(conversation: "c", messageID: "m1")
        let oldBlob = try RawDatabase(dir.database).column("SELECT sealed FROM keys WHERE kid = \(sqlBlob(first.item.keyID.bytes))")[0]

        let newKeyFile = dir.file("new.key")
        let rotation = try store.rotateMasterKey(to: .keyFile(path: newKeyFile, createIfMissing: true))
        #expect(rotation == .init(resealedKeys: 3, resealedIdentities: 0, clearedDeliveries: 1))

        // The old instance and the old key no longer open the store.
        #expect(storeError { try store.key(for: first.item.keyID) } != nil)
        #expect(storeError { try reopen(dir) } != nil)
        // The new key opens every row, the epoch records and the verifier.
        let reopened = try DeviceKeyStore(directory: dir.store, masterKey: .keyFile(path: newKeyFile))
        #expect(try reopened.key(for: first.item.keyID).key == first.key)
        #expect(try reopened.asDirectory.currentKey(conversation: "c").key == second.key)
        #expect(try reopened.key(for: other.id).item.label == "kept")
        #expect(try reopened.deliveryCount() == 0)
        #expect(try reopened.recordDelivery(conversation: "c", messageID: "m1") == false)
        // A row copied from before the rotation (a restored old copy) does not open under the new key.
        try RawDatabase(dir.database).execute("UPDATE keys SET sealed = \(sqlBlob(oldBlob)) WHERE kid = \(sqlBlob(first.item.keyID.bytes))")
        #expect(storeError { try reopened.key(for: first.item.keyID) } == .corruptedItem(first.item.keyID))
    }

    @Test func aCorruptedRowOrRecordAbortsTheRotationAndChangesNothing() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let key = try store.asDirectory.rotate(conversation: "c")
        try RawDatabase(dir.database).execute("UPDATE keys SET label = 'edited' WHERE kid = \(sqlBlob(key.item.keyID.bytes))")
        #expect(storeError { try store.rotateMasterKey(to: .keyFile(path: dir.file("new.key"), createIfMissing: true)) }
                == .corruptedItem(key.item.keyID))
        try RawDatabase(dir.database).execute("UPDATE keys SET label = NULL WHERE kid = \(sqlBlob(key.item.keyID.bytes))")
        // Still under the old key.
        #expect(try reopen(dir).asDirectory.currentKey(conversation: "c").key == key.key)
        try RawDatabase(dir.database).execute("UPDATE epochs SET epoch = 7")
        #expect(storeError { try store.rotateMasterKey(to: .keyFile(path: dir.file("new.key"), createIfMissing: true)) }
                == .corruptedItem(key.item.keyID))
        #expect(try reopen(dir).key(for: key.item.keyID).key == key.key)
    }

    @Test func theSameKeyAndAnUnreadableNewKeyAreRefused() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        _ = try store.asDirectory.rotate(conversation: "c")
        #expect(storeError { try store.rotateMasterKey(to: .keyFile(path: dir.keyFile)) }
                == .invalidArgument("the new master key is the current one"))
        #expect(storeError { try store.rotateMasterKey(to: .keyFile(path: dir.file("missing.key"))) } != nil)
        #expect(try reopen(dir).items().count == 1)
    }
}
