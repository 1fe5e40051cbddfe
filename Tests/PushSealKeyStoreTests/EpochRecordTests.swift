import PushSealCore
import PushSealKeyDirectory
@testable import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing

/// The per-conversation epoch record (file format 3): the provider never seals under an older
/// epoch because a newer row went missing or the record was rolled back.
@Suite("Epoch record")
struct EpochRecordTests {
    /// A store with conversation "c" rotated three times (epochs 1–3, epoch 3 current).
    private func rotatedThrice(_ dir: TemporaryDirectory) throws -> (DeviceKeyStore, [StoredKey]) {
        let clock = ManualClock(1_000)
        let store = try makeStore(dir, clock: clock)
        var keys: [StoredKey] = []
        for _ in 0..<3 { keys.append(try store.asDirectory.rotate(conversation: "c")); clock.advance(10) }
        return (store, keys)
    }

    @Test func deletingTheNewestRowIsCorruptedNeverAnOlderEpoch() throws {
        let dir = TemporaryDirectory()
        let (store, keys) = try rotatedThrice(dir)
        #expect(try store.asDirectory.currentKey(conversation: "c").key == keys[2].key)
        try RawDatabase(dir.database).execute("DELETE FROM keys WHERE kid = \(sqlBlob(keys[2].item.keyID.bytes))")
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .corruptedItem(keys[2].item.keyID))
        // Also when the older epoch is made live again (its not-after cleared): still corrupted.
        try RawDatabase(dir.database).execute("UPDATE keys SET not_after = NULL WHERE kid = \(sqlBlob(keys[1].item.keyID.bytes))")
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .corruptedItem(keys[2].item.keyID))
    }

    @Test func aRolledBackOrEditedRecordIsCorrupted() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock(1_000)
        let store = try makeStore(dir, clock: clock)
        _ = try store.asDirectory.rotate(conversation: "c")
        let old = try RawDatabase(dir.database).column("SELECT tag FROM epochs WHERE conversation = 'c'")[0]
        let oldKid = try RawDatabase(dir.database).column("SELECT kid FROM epochs WHERE conversation = 'c'")[0]
        let second = try store.asDirectory.rotate(conversation: "c")
        // Roll the record back to epoch 1 (its own authentic old tag): below the high-water mark.
        try RawDatabase(dir.database).execute(
            "UPDATE epochs SET epoch = 1, kid = \(sqlBlob(oldKid)), tag = \(sqlBlob(old)) WHERE conversation = 'c'")
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .rolledBack(conversation: "c", epoch: 1, highWater: 2))
        // Restore epoch 2 but keep the old tag: the tag does not verify.
        try RawDatabase(dir.database).execute(
            "UPDATE epochs SET epoch = 2, kid = \(sqlBlob(second.item.keyID.bytes)) WHERE conversation = 'c'")
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .corruptedItem(second.item.keyID))
        // A rotation refuses to build on a record that does not verify (nothing changes).
        #expect(storeError { try store.asDirectory.rotate(conversation: "c") } == .corruptedItem(second.item.keyID))
        #expect(try RawDatabase(dir.database).integer("SELECT count(*) FROM keys") == 2)
    }

    @Test func aDeletedRecordWithRowsIsCorrupted() throws {
        let dir = TemporaryDirectory()
        let (store, keys) = try rotatedThrice(dir)
        try RawDatabase(dir.database).execute("DELETE FROM epochs")
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .epochRecordMissing(conversation: "c"))
        _ = keys
    }

    /// Issue 29 item 1: deleting the newest row and its epoch record behind the store's back. Before:
    /// `currentKey` blamed the healthy epoch 2 (`corruptedItem`, "remove it") and `rotate` gave
    /// epoch 3 out again with a new key. Now: `epochRecordMissing`, and no epoch is issued.
    @Test func deletingTheNewestRowAndItsRecordIsEpochRecordMissingAndNoEpochIsReissued() throws {
        let dir = TemporaryDirectory()
        let (store, keys) = try rotatedThrice(dir)
        try RawDatabase(dir.database).execute("DELETE FROM keys WHERE kid = \(sqlBlob(keys[2].item.keyID.bytes))")
        try RawDatabase(dir.database).execute("DELETE FROM epochs WHERE conversation = 'c'")
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .epochRecordMissing(conversation: "c"))
        #expect(storeError { try store.asDirectory.rotate(conversation: "c") } == .epochRecordMissing(conversation: "c"))
        #expect(storeError { try store.add(.generate(), conversation: "c") } == .epochRecordMissing(conversation: "c"))
        #expect(storeError { try store.add(.generate(), conversation: "c", epoch: 3) } == .epochRecordMissing(conversation: "c"))
        #expect(try store.items(conversation: "c").map(\.epoch) == [1, 2], "nothing was added; the healthy rows are untouched")
        // Removing the whole conversation through the API is the way out (it forgets it: epoch 1 again).
        #expect(try store.removeConversation("c") == 2)
        #expect(try store.asDirectory.rotate(conversation: "c").item.epoch == 1)
    }

    /// Issue 24 item 5, the one-conversation rollback: c's rows and epoch record are saved before
    /// a rotation and put back afterwards (any backup, replica or SELECT has them). Before: epoch 1
    /// was current again and `seal --store` sealed under the removed member's key. Now the store's
    /// high-water mark (file format 7) makes it `rolledBack`; another conversation is unaffected.
    @Test func aConversationPutBackFromAnOlderCopyIsRolledBack() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock(1_000)
        let store = try makeStore(dir, clock: clock)
        _ = try store.asDirectory.rotate(conversation: "c")
        let other = try store.asDirectory.rotate(conversation: "d")
        let raw = try RawDatabase(dir.database)
        try raw.execute("CREATE TABLE saved_keys AS SELECT * FROM keys WHERE conversation = 'c'")
        try raw.execute("CREATE TABLE saved_epochs AS SELECT * FROM epochs WHERE conversation = 'c'")
        clock.advance(10)
        let second = try store.asDirectory.rotate(conversation: "c")
        #expect(try store.asDirectory.currentKey(conversation: "c").key == second.key)
        try raw.execute("""
            BEGIN; DELETE FROM keys WHERE conversation = 'c'; DELETE FROM epochs WHERE conversation = 'c';
            INSERT INTO keys SELECT * FROM saved_keys; INSERT INTO epochs SELECT * FROM saved_epochs;
            DROP TABLE saved_keys; DROP TABLE saved_epochs; COMMIT
            """)
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .rolledBack(conversation: "c", epoch: 1, highWater: 2))
        #expect(try store.asDirectory.currentKey(conversation: "d").key == other.key)
        // Deleting the mark as well is refused like a missing record, not a way back to epoch 1.
        try raw.execute("CREATE TABLE saved_mark AS SELECT * FROM epoch_marks WHERE conversation = 'c'")
        try raw.execute("DELETE FROM epoch_marks WHERE conversation = 'c'")
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .epochRecordMissing(conversation: "c"))
        try raw.execute("INSERT INTO epoch_marks SELECT * FROM saved_mark; DROP TABLE saved_mark")
        // A rotation continues above the mark: epoch 2 is never given out twice.
        let third = try store.asDirectory.rotate(conversation: "c")
        #expect(third.item.epoch == 3)
        #expect(try store.asDirectory.currentKey(conversation: "c").key == third.key)
    }

    /// Format 6 -> 7: every conversation gets its mark from its epoch record, so a rollback after
    /// the migration is caught.
    @Test func aFormat6StoreGetsItsMarksWhenOpened() throws {
        let dir = TemporaryDirectory()
        _ = try rotatedThrice(dir)
        try RawDatabase(dir.database).execute("DROP TABLE devices; DROP TABLE epoch_marks; PRAGMA user_version = 6")
        let store = try reopen(dir)
        #expect(try RawDatabase(dir.database).integer("PRAGMA user_version") == DeviceKeyStore.supportedFileVersion)
        #expect(try RawDatabase(dir.database).integer("SELECT epoch FROM epoch_marks WHERE conversation = 'c'") == 3)
        let raw = try RawDatabase(dir.database)
        try raw.execute("CREATE TABLE saved_keys AS SELECT * FROM keys; CREATE TABLE saved_epochs AS SELECT * FROM epochs")
        _ = try store.asDirectory.rotate(conversation: "c")
        try raw.execute("""
            DELETE FROM keys; DELETE FROM epochs; INSERT INTO keys SELECT * FROM saved_keys; INSERT INTO epochs SELECT * FROM saved_epochs
            """)
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .rolledBack(conversation: "c", epoch: 3, highWater: 4))
    }

    @Test func removingTheNewestEpochThroughTheAPILeavesNoCurrentKeyAndItsEpochIsNotReused() throws {
        let dir = TemporaryDirectory()
        let (store, keys) = try rotatedThrice(dir)
        try store.remove(keyID: keys[2].item.keyID)
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .itemNotFound)
        // The record keeps the removed epoch's number, not its kid.
        #expect(try RawDatabase(dir.database).column("SELECT kid FROM epochs")[0] == [UInt8](repeating: 0, count: 16))
        let next = try store.asDirectory.rotate(conversation: "c")
        #expect(next.item.epoch == 4)
        #expect(try store.asDirectory.currentKey(conversation: "c").key == next.key)
        // Removing an older epoch changes nothing about the current one.
        try store.remove(keyID: keys[0].item.keyID)
        #expect(try store.asDirectory.currentKey(conversation: "c").key == next.key)
    }

    @Test func purgingTheLastEpochForgetsTheRecordAndLeavesNoCurrentKeyNotACorruptedOne() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock(1_000)
        let store = try makeStore(dir, clock: clock)
        _ = try store.add(.generate(), conversation: "c", epoch: 1, notAfter: 500)
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .itemNotFound)
        #expect(try store.purgeExpired(gracePeriod: 0) == 1)
        #expect(storeError { try store.asDirectory.currentKey(conversation: "c") } == .itemNotFound)
        #expect(try RawDatabase(dir.database).integer("SELECT count(*) FROM epochs") == 0)
        #expect(try store.asDirectory.rotate(conversation: "c").item.epoch == 1)
    }

    @Test func removingAConversationForgetsItsRecord() throws {
        let dir = TemporaryDirectory()
        let (store, _) = try rotatedThrice(dir)
        #expect(try store.removeConversation("c") == 3)
        #expect(try RawDatabase(dir.database).integer("SELECT count(*) FROM epochs") == 0)
        #expect(try store.asDirectory.rotate(conversation: "c").item.epoch == 1)
        _ = try store.removeAll()
        #expect(try RawDatabase(dir.database).integer("SELECT count(*) FROM epochs") == 0)
    }

    @Test func addingALowerEpochKeepsTheRecordAndAHigherOneMovesIt() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let five = ConversationKey.generate()
        try store.add(five, conversation: "c", epoch: 5)
        try store.add(.generate(), conversation: "c", epoch: 2)
        #expect(try store.asDirectory.currentKey(conversation: "c").key == five)
        let nine = ConversationKey.generate()
        try store.add(nine, conversation: "c", epoch: 9)
        #expect(try store.asDirectory.currentKey(conversation: "c").key == nine)
        #expect(try RawDatabase(dir.database).integer("SELECT epoch FROM epochs WHERE conversation = 'c'") == 9)
    }

    @Test func aFormat2StoreGetsItsRecordsWhenOpened() throws {
        let dir = TemporaryDirectory()
        let (_, keys) = try rotatedThrice(dir)
        try RawDatabase(dir.database).execute("DROP TABLE devices; DROP TABLE epoch_marks; DROP TABLE bundle_records; DROP TABLE shared_epochs; DROP TABLE identities; DROP TABLE epochs; CREATE TABLE deliveries (tag BLOB PRIMARY KEY NOT NULL CHECK (length(tag) = 32), seen_at INTEGER NOT NULL) WITHOUT ROWID; PRAGMA user_version = 2")
        let store = try reopen(dir)
        #expect(try RawDatabase(dir.database).integer("PRAGMA user_version") == DeviceKeyStore.supportedFileVersion)
        #expect(try store.asDirectory.currentKey(conversation: "c").key == keys[2].key)
        #expect(try RawDatabase(dir.database).integer("SELECT epoch FROM epochs WHERE conversation = 'c'") == 3)
    }
}
