import Foundation
import PushSealCore
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing

/// Edits made directly in the SQLite file, bypassing the store: each must be reported as
/// `corruptedItem` for the edited item only — never a wrong key — while other items stay readable.
@Suite("Tampering in the SQLite file")
struct TamperingTests {
    struct Fixture {
        let dir = TemporaryDirectory()
        let store: DeviceKeyStore
        let a = ConversationKey.generate()
        let b = ConversationKey.generate()
        let c = ConversationKey.generate()

        init() throws {
            store = try makeStore(dir)
            try store.add(a, conversation: "alice", epoch: 1)
            try store.add(b, conversation: "bob", epoch: 1)
            try store.add(c, conversation: "carol", epoch: 1)
        }

        func raw() throws -> RawDatabase { try RawDatabase(dir.database) }

        func sealed(_ key: ConversationKey) throws -> [UInt8] {
            try raw().column("SELECT sealed FROM keys WHERE kid = \(sqlBlob(key.id.bytes))")[0]
        }

        /// The untouched item is still readable, through this instance and a fresh one.
        func expectIntact(_ key: ConversationKey) throws {
            #expect(try store.key(for: key.id).key == key)
            #expect(try reopen(dir).key(for: key.id).key == key)
        }
    }

    @Test func swappedSealedBlobsAreCorruptedForBothRows() throws {
        let f = try Fixture()
        let sa = try f.sealed(f.a), sb = try f.sealed(f.b)
        try f.raw().execute("UPDATE keys SET sealed = \(sqlBlob(sb)) WHERE kid = \(sqlBlob(f.a.id.bytes))")
        try f.raw().execute("UPDATE keys SET sealed = \(sqlBlob(sa)) WHERE kid = \(sqlBlob(f.b.id.bytes))")
        #expect(storeError { try f.store.key(for: f.a.id) } == .corruptedItem(f.a.id))
        #expect(storeError { try f.store.key(for: f.b.id) } == .corruptedItem(f.b.id))
        #expect(storeError { try f.store.asDirectory.currentKey(conversation: "alice") } == .corruptedItem(f.a.id))
        guard case .unavailable(.corruptedItem(f.a.id)) = f.store.lookup(f.a.id) else {
            Issue.record("lookup")
            return
        }
        try f.expectIntact(f.c)
        // Listing authenticates every row and names a damaged one; it can still be removed by id.
        guard case .corruptedItem? = storeError({ try f.store.items() }) else {
            Issue.record("items() must report the damaged rows")
            return
        }
        try f.store.remove(keyID: f.a.id)
        try f.store.remove(keyID: f.b.id)
        #expect(try f.store.items().count == 1)
    }

    @Test func everySingleFlippedByteIsDetected() throws {
        let f = try Fixture()
        let original = try f.sealed(f.a)
        #expect(original.count == 73)
        for index in original.indices {
            for mask: UInt8 in [0x01, 0x80] {
                var flipped = original
                flipped[index] ^= mask
                try f.raw().execute("UPDATE keys SET sealed = \(sqlBlob(flipped)) WHERE kid = \(sqlBlob(f.a.id.bytes))")
                #expect(storeError { try f.store.key(for: f.a.id) } == .corruptedItem(f.a.id), "byte \(index) mask \(mask)")
            }
        }
        for truncated in [Array(original.dropLast()), Array(original.prefix(41)), [], original + [0]] {
            try f.raw().execute("UPDATE keys SET sealed = \(sqlBlob(truncated)) WHERE kid = \(sqlBlob(f.a.id.bytes))")
            #expect(storeError { try f.store.key(for: f.a.id) } == .corruptedItem(f.a.id))
        }
        try f.raw().execute("UPDATE keys SET sealed = \(sqlBlob(original)) WHERE kid = \(sqlBlob(f.a.id.bytes))")
        try f.expectIntact(f.a)
        try f.expectIntact(f.b)
    }

    @Test func anEditedConversationIsDetected() throws {
        let f = try Fixture()
        try f.raw().execute("UPDATE keys SET conversation = 'mallory' WHERE kid = \(sqlBlob(f.a.id.bytes))")
        #expect(storeError { try f.store.key(for: f.a.id) } == .corruptedItem(f.a.id))
        // The attacker's goal: make alice's key current for another conversation. It never comes out.
        #expect(storeError { try f.store.asDirectory.currentKey(conversation: "mallory") } == .epochRecordMissing(conversation: "mallory"))
        // Alice's newest epoch went missing from her conversation: her epoch record says so.
        #expect(storeError { try f.store.asDirectory.currentKey(conversation: "alice") } == .corruptedItem(f.a.id))
        // Moving a key into an existing conversation at a higher epoch: above bob's record.
        try f.raw().execute("UPDATE keys SET conversation = 'bob', epoch = 9 WHERE kid = \(sqlBlob(f.a.id.bytes))")
        #expect(storeError { try f.store.asDirectory.currentKey(conversation: "bob") } == .corruptedItem(f.b.id))
        try f.raw().execute("UPDATE keys SET conversation = 'alice', epoch = 1 WHERE kid = \(sqlBlob(f.a.id.bytes))")
        try f.expectIntact(f.a)
        try f.expectIntact(f.b)
        try f.expectIntact(f.c)
    }

    @Test func anEditedEpochIsDetected() throws {
        let f = try Fixture()
        for epoch in [0, 2, 256, Int64.max] {
            try f.raw().execute("UPDATE keys SET epoch = \(epoch) WHERE kid = \(sqlBlob(f.a.id.bytes))")
            #expect(storeError { try f.store.key(for: f.a.id) } == .corruptedItem(f.a.id), "epoch \(epoch)")
        }
        try f.expectIntact(f.b)
        try f.expectIntact(f.c)
    }

    @Test func anEditedKeyIDIsDetected() throws {
        let f = try Fixture()
        let forged = ConversationKey.generate().id
        try f.raw().execute("UPDATE keys SET kid = \(sqlBlob(forged.bytes)) WHERE kid = \(sqlBlob(f.a.id.bytes))")
        #expect(storeError { try f.store.key(for: forged) } == .corruptedItem(forged))
        #expect(storeError { try f.store.key(for: f.a.id) } == .itemNotFound)
        try f.expectIntact(f.b)
    }

    @Test func swappedKeyIDsAreCorruptedForBothRows() throws {
        // Two genuine rows with their kids exchanged: each row's key now sits under the other's
        // id. The kid is in the associated data, so neither opens, whichever path reads it — the
        // unsealed key's id is taken from the authenticated row, never derived again.
        let f = try Fixture()
        let parked = sqlBlob([UInt8](repeating: 0xEE, count: KeyID.byteCount))
        let (ka, kb) = (sqlBlob(f.a.id.bytes), sqlBlob(f.b.id.bytes))
        try f.raw().execute("UPDATE keys SET kid = \(parked) WHERE kid = \(ka)")
        try f.raw().execute("UPDATE keys SET kid = \(ka) WHERE kid = \(kb)")
        try f.raw().execute("UPDATE keys SET kid = \(kb) WHERE kid = \(parked)")
        #expect(storeError { try f.store.key(for: f.a.id) } == .corruptedItem(f.a.id))
        #expect(storeError { try f.store.key(for: f.b.id) } == .corruptedItem(f.b.id))
        #expect(storeError { try reopen(f.dir).key(for: f.a.id) } == .corruptedItem(f.a.id))
        for id in [f.a.id, f.b.id] {
            guard case .unavailable(.corruptedItem(id)) = f.store.lookup(id) else {
                Issue.record("lookup on the kept store")
                return
            }
            guard case .unavailable(.corruptedItem(id)) = DeviceKeyStore.lookup(id, directory: f.dir.store, masterKey: .keyFile(path: f.dir.keyFile)) else {
                Issue.record("lookup straight from the directory")
                return
            }
        }
        #expect(storeError { try f.store.asDirectory.currentKey(conversation: "alice") } == .corruptedItem(f.a.id))
        try f.expectIntact(f.c)
    }

    @Test func aWholeRowCopiedUnderAnotherKeyIDIsDetected() throws {
        // Even with every column consistent except the kid, the sealed key does not open
        // (the kid is in the associated data).
        let f = try Fixture()
        let forged = ConversationKey.generate().id
        try f.raw().execute("""
            INSERT INTO keys (kid, conversation, epoch, label, created_at, not_after, sealed)
            SELECT \(sqlBlob(forged.bytes)), 'alice', 2, label, created_at, not_after, sealed FROM keys WHERE kid = \(sqlBlob(f.a.id.bytes))
            """)
        // The copy sits above alice's epoch record (epoch 1, kid a): refused before any unsealing.
        #expect(storeError { try f.store.asDirectory.currentKey(conversation: "alice") } == .corruptedItem(f.a.id))
        #expect(storeError { try f.store.key(for: forged) } == .corruptedItem(forged))
        try f.expectIntact(f.a)
    }

    @Test func editedMetadataIsDetected() throws {
        // Label, created and not-after are bound too (file format 2): editing them is detected,
        // so they can never steer which key is current or mislead what is shown.
        let f = try Fixture()
        try f.raw().execute("UPDATE keys SET label = 'edited', created_at = 1, not_after = 2 WHERE kid = \(sqlBlob(f.a.id.bytes))")
        #expect(storeError { try f.store.key(for: f.a.id) } == .corruptedItem(f.a.id))
        try f.expectIntact(f.c)
    }

    @Test func aDamagedVerifierLocksTheStoreWithoutTouchingItems() throws {
        let f = try Fixture()
        var verifier = try f.raw().column("SELECT value FROM meta WHERE name = 'verifier'")[0]
        verifier[40] ^= 1
        try f.raw().execute("UPDATE meta SET value = \(sqlBlob(verifier)) WHERE name = 'verifier'")
        let error = storeError { try reopen(f.dir) }
        #expect(error?.lockedReason?.contains("wrong master key") == true)
        verifier[40] ^= 1
        try f.raw().execute("UPDATE meta SET value = \(sqlBlob(verifier)) WHERE name = 'verifier'")
        try f.expectIntact(f.a)
    }
}
