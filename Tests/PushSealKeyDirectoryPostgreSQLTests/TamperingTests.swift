import PushSealCore
import PushSealKeyDirectoryPostgreSQL
import Testing

/// Rows edited directly on the server, bypassing the directory: each is `corruptedItem` for the
/// edited row only — never a wrong key — exactly as in the SQLite store (same ItemSealing binding).
extension PostgreSQLTests {
@Suite("tampered rows")
struct TamperingTests {
    struct Fixture {
        let uri: String
        let directory: PostgreSQLKeyDirectory
        let a = ConversationKey.generate(), b = ConversationKey.generate(), c = ConversationKey.generate()

        init() throws {
            uri = try TestServer.freshSchemaURI()
            directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(TestServer.masterKey()), create: true)
            try directory.add(a, conversation: "alice", epoch: 1)
            try directory.add(b, conversation: "bob", epoch: 1)
            try directory.add(c, conversation: "carol", epoch: 1)
        }

        func kid(_ key: ConversationKey) -> String { "'\\x" + TestServer.hex(key.id.bytes) + "'::bytea" }

        func sql(_ text: String) throws { try TestServer.psql(uri, text) }

        func expectIntact() throws {
            #expect(try directory.key(for: c.id).key == c)
            #expect(try directory.currentKey(conversation: "carol").key == c)
        }
    }

    @Test func swappedSealedKeysAreCorrupted() throws {
        let f = try Fixture()
        try f.sql("""
            UPDATE pushseal_keys k SET sealed = o.sealed FROM pushseal_keys o
            WHERE (k.kid, o.kid) IN ((\(f.kid(f.a)), \(f.kid(f.b))), (\(f.kid(f.b)), \(f.kid(f.a))))
            """)
        #expect(directoryError({ _ = try f.directory.key(for: f.a.id) }) == .corruptedItem(f.a.id))
        #expect(directoryError({ _ = try f.directory.currentKey(conversation: "bob") }) == .corruptedItem(f.b.id))
        try f.expectIntact()
    }

    @Test func aRowCopiedToAnotherConversationIsCorrupted() throws {
        let f = try Fixture()
        try f.sql("UPDATE pushseal_keys SET conversation = 'mallory' WHERE kid = \(f.kid(f.a))")
        #expect(directoryError({ _ = try f.directory.currentKey(conversation: "mallory") }) == .epochRecordMissing(conversation: "mallory"))
        try f.expectIntact()
    }

    @Test func everyEditedColumnIsCorrupted() throws {
        let edits = [
            "epoch = 9", "created_at = created_at + 1", "not_after = 4102444800", "label = 'x'",
            "sealed = set_byte(sealed, 40, get_byte(sealed, 40) # 1)",
        ]
        for edit in edits {
            let f = try Fixture()
            try f.sql("UPDATE pushseal_keys SET \(edit) WHERE kid = \(f.kid(f.a))")
            #expect(directoryError({ _ = try f.directory.key(for: f.a.id) }) == .corruptedItem(f.a.id), "\(edit)")
            guard case .corruptedItem? = directoryError({ _ = try f.directory.items(conversation: nil) }) else {
                Issue.record("items() must report the edited row (\(edit))")
                continue
            }
            try f.expectIntact()
        }
    }

    @Test func aTamperedRowRollsARotationBack() throws {
        let f = try Fixture()
        try f.sql("UPDATE pushseal_keys SET created_at = created_at + 1 WHERE kid = \(f.kid(f.a))")
        #expect(directoryError({ try f.directory.rotate(conversation: "alice") }) == .corruptedItem(f.a.id))
        #expect(try TestServer.psql(f.uri, "SELECT count(*) FROM pushseal_keys WHERE conversation = 'alice'") == "1")
    }
}
}
