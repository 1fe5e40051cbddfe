import PushSealCore
import PushSealKeyDirectory
import PushSealKeyDirectoryPostgreSQL
import Testing

/// The per-conversation epoch record on the server (schema 2, Docs/KEY-STORE.md §3.5): a deleted
/// or rolled-back newest row, or a deleted or edited record, is `corruptedItem`, never a silent
/// fall-back to an older epoch; removals through the API leave no current key and never give an
/// epoch out again.
extension PostgreSQLTests {
@Suite("epoch record")
struct EpochRecordTests {
    struct Fixture {
        let uri: String
        let masterKey = TestServer.masterKey()
        let directory: PostgreSQLKeyDirectory
        let first: StoredKey, second: StoredKey

        init() throws {
            uri = try TestServer.freshSchemaURI()
            directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(masterKey), create: true)
            first = try directory.rotate(conversation: "c1")
            second = try directory.rotate(conversation: "c1")
        }

        func kid(_ stored: StoredKey) -> String { "'\\x" + TestServer.hex(stored.item.keyID.bytes) + "'::bytea" }
        func sql(_ text: String) throws { try TestServer.psql(uri, text) }
    }

    @Test func aDeletedNewestRowIsCorruptedNotTheOlderEpoch() throws {
        let f = try Fixture()
        try f.sql("DELETE FROM pushseal_keys WHERE kid = \(f.kid(f.second))")
        // Epoch 1 is still there (retired but within its grace period), and is never current again.
        #expect(directoryError({ _ = try f.directory.currentKey(conversation: "c1") }) == .corruptedItem(f.second.item.keyID))
    }

    @Test func aRolledBackNewestRowIsCorrupted() throws {
        let f = try Fixture()
        // Back to the state before the second rotation: epoch 1 live again, epoch 2 gone.
        try f.sql("DELETE FROM pushseal_keys WHERE kid = \(f.kid(f.second))")
        try f.sql("UPDATE pushseal_keys SET not_after = NULL WHERE kid = \(f.kid(f.first))")
        #expect(directoryError({ _ = try f.directory.currentKey(conversation: "c1") }) == .corruptedItem(f.second.item.keyID))
    }

    @Test func aDeletedOrRolledBackRecordIsCorrupted() throws {
        let f = try Fixture()
        try f.sql("DELETE FROM pushseal_epochs")
        #expect(directoryError({ _ = try f.directory.currentKey(conversation: "c1") }) == .epochRecordMissing(conversation: "c1"))

        let g = try Fixture()
        try g.sql("UPDATE pushseal_epochs SET epoch = 1, kid = \(g.kid(g.first))")
        #expect(directoryError({ _ = try g.directory.currentKey(conversation: "c1") }) == .corruptedItem(g.first.item.keyID))
        #expect(directoryError({ _ = try g.directory.rotate(conversation: "c1") }) == .corruptedItem(g.first.item.keyID),
                "a write refuses a record that does not verify")
    }

    /// Issue 29 item 1 on the server: the newest row and its record deleted. Before: `currentKey`
    /// blamed the healthy epoch 1 and `rotate` gave epoch 2 out again; now `epochRecordMissing`
    /// and nothing is issued.
    @Test func aDeletedNewestRowAndRecordIsEpochRecordMissingAndNoEpochIsReissued() throws {
        let f = try Fixture()
        try f.sql("DELETE FROM pushseal_keys WHERE kid = \(f.kid(f.second))")
        try f.sql("DELETE FROM pushseal_epochs")
        #expect(directoryError({ _ = try f.directory.currentKey(conversation: "c1") }) == .epochRecordMissing(conversation: "c1"))
        #expect(directoryError({ _ = try f.directory.rotate(conversation: "c1") }) == .epochRecordMissing(conversation: "c1"))
        #expect(directoryError({ try f.directory.add(.generate(), conversation: "c1", epoch: 2) }) == .epochRecordMissing(conversation: "c1"))
        #expect(try f.directory.items(conversation: "c1").map(\.epoch) == [1])
    }

    @Test func anOlderAuthenticRecordPutBackIsCorrupted() throws {
        let uri = try TestServer.freshSchemaURI()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(TestServer.masterKey()), create: true)
        let first = try directory.rotate(conversation: "c1")
        try TestServer.psql(uri, "CREATE TABLE saved AS SELECT * FROM pushseal_epochs")
        try directory.rotate(conversation: "c1")
        try TestServer.psql(uri, "UPDATE pushseal_epochs e SET epoch = s.epoch, kid = s.kid, removed = s.removed, tag = s.tag FROM saved s")
        #expect(directoryError({ _ = try directory.currentKey(conversation: "c1") }) == .corruptedItem(first.item.keyID))
    }

    @Test func removingTheNewestEpochLeavesNoCurrentKeyAndItsEpochIsNotReused() throws {
        let f = try Fixture()
        try f.directory.remove(keyID: f.second.item.keyID)
        #expect(directoryError({ _ = try f.directory.currentKey(conversation: "c1") }) == .itemNotFound)
        let third = try f.directory.rotate(conversation: "c1")
        #expect(third.item.epoch == 3)
        #expect(try f.directory.currentKey(conversation: "c1").item.keyID == third.item.keyID)
    }

    @Test func purgingAnExpiredNewestEpochLeavesNoCurrentKeyNotTheOlderOne() throws {
        // A directory of its own: nothing else in it expires while the test runs.
        let uri = try TestServer.freshSchemaURI()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(TestServer.masterKey()), create: true)
        try directory.add(ConversationKey.generate(), conversation: "c2", epoch: 1, label: nil, notAfter: nil)
        try directory.add(ConversationKey.generate(), conversation: "c2", epoch: 2, label: nil, notAfter: 1)
        #expect(try directory.purgeExpired(gracePeriod: 0) == 1)
        #expect(directoryError({ _ = try directory.currentKey(conversation: "c2") }) == .itemNotFound)
        #expect(try directory.rotate(conversation: "c2").item.epoch == 3)
    }

    @Test func purgingAConversationsLastRowLeavesNothingOfIt() throws {
        // A directory of its own: nothing else in it expires while the test runs.
        let uri = try TestServer.freshSchemaURI()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(TestServer.masterKey()), create: true)
        try directory.add(ConversationKey.generate(), conversation: "c2", epoch: nil, label: nil, notAfter: 1)
        #expect(try directory.purgeExpired(gracePeriod: 0) == 1)
        #expect(try TestServer.psql(uri, "SELECT count(*) FROM pushseal_epochs WHERE conversation = 'c2'") == "0")
        #expect(directoryError({ _ = try directory.currentKey(conversation: "c2") }) == .itemNotFound)
    }

    @Test func removingAConversationRemovesItsRecord() throws {
        let f = try Fixture()
        #expect(try f.directory.removeConversation("c1") == 2)
        #expect(try TestServer.psql(f.uri, "SELECT count(*) FROM pushseal_epochs") == "0")
        #expect(try f.directory.rotate(conversation: "c1").item.epoch == 1)
    }

    @Test func aSchema1DirectoryGetsItsRecordsOnMigration() throws {
        let f = try Fixture()
        try f.sql("DROP TABLE pushseal_epochs; DROP TABLE pushseal_identities; DROP TABLE pushseal_devices; UPDATE pushseal_schema_version SET version = 1")
        let migrated = try PostgreSQLKeyDirectory(uri: f.uri, masterKey: .bytes(f.masterKey))
        #expect(try TestServer.psql(f.uri, "SELECT version FROM pushseal_schema_version") == "3")
        #expect(try migrated.currentKey(conversation: "c1").item.keyID == f.second.item.keyID)
        try f.sql("DELETE FROM pushseal_keys WHERE kid = \(f.kid(f.second))")
        #expect(directoryError({ _ = try migrated.currentKey(conversation: "c1") }) == .corruptedItem(f.second.item.keyID))
    }
}
}
