import PushSealCore

/// The provider-key record (file format 6, Docs/KEY-STORE.md §3.6): which provider key pair is the
/// current one, authenticated under the epoch-record key, so that a deleted newest provider-key
/// row is ``KeyStoreError/providerKeyMissing(_:)`` and never a silent fall-back to an older key
/// pair (devices may have unpinned it). A `meta` row, `name = 'provider_key'`:
///
/// ```
/// value = kid(16) || HMAC-SHA256(rk, 0x03 || kid(16))
/// ```
extension KeyStore {
    package static let providerKeyRecordName = "provider_key"
    static let providerKeyRecordFormat: UInt8 = 0x03

    /// The rules of the current provider key, written once for both backends: a new key pair is
    /// current at once only when the directory has none (the first one); any later one waits for
    /// an explicit promotion (``KeyDirectory/promoteProviderKey(id:)``), so that devices can pin
    /// it before bundles use it.
    package enum ProviderKeyRules {
        /// The key to record after creating `created`: itself when there is no provider key yet,
        /// nil (no change) otherwise. ``KeyStoreError/providerKeyMissing(_:)`` when the record is
        /// missing (or does not verify) while key pairs exist: that is not papered over.
        package static func recordAfterCreate(_ created: KeyID, recorded: KeyID?, existingRows: Int) throws(KeyStoreError) -> KeyID? {
            guard recorded == nil else { return nil }
            if existingRows > 0 { throw .providerKeyMissing(nil) }
            return created
        }

        /// Before removing `id`: the current key pair cannot go while others remain (promote
        /// another one first: falling back to a key devices may not have pinned is no rule). Returns
        /// whether the record goes too (the last key pair, the current one).
        package static func removal(of id: KeyID, recorded: KeyID?, rowCount: Int) throws(KeyStoreError) -> Bool {
            guard recorded == id else { return false }
            if rowCount > 1 {
                throw .invalidArgument("provider key \(id) is the current one: promote another provider key first, then remove it")
            }
            return true
        }

        /// The record's value: `kid(16) || HMAC-SHA256(rk, 0x03 || kid(16))`.
        package static func recordValue(_ kid: KeyID, recordKey: SecretKey) -> [UInt8] {
            kid.bytes + providerKeyRecordTag(kid.bytes, recordKey: recordKey)
        }

        /// The recorded key id from a record value, checked; ``KeyStoreError/providerKeyMissing(_:)``
        /// (nil) when it does not verify.
        package static func recorded(_ value: [UInt8], recordKey: SecretKey) throws(KeyStoreError) -> KeyID {
            let kid = Array(value.prefix(KeyID.byteCount)), tag = Array(value.dropFirst(KeyID.byteCount))
            let expected = providerKeyRecordTag(kid, recordKey: recordKey)
            guard kid.count == KeyID.byteCount, tag.count == expected.count,
                  expected.withUnsafeBytes({ e in tag.withUnsafeBytes { t in SecureMemory.constantTimeEqual(e, t) } }),
                  let id = KeyID(bytes: kid)
            else { throw .providerKeyMissing(nil) }
            return id
        }
    }

    static func providerKeyRecordTag(_ kid: [UInt8], recordKey: SecretKey) -> [UInt8] {
        HMACSHA256.authenticationCode(for: [providerKeyRecordFormat] + kid, using: recordKey)
    }

    /// The recorded current provider key id, checked; nil when there is none.
    /// ``KeyStoreError/providerKeyMissing(_:)`` (nil) when the value does not verify.
    static func providerKeyRecord(_ connection: SQLiteConnection, recordKey: SecretKey) throws(KeyStoreError) -> KeyID? {
        let value = try connection.withStatement("SELECT value FROM meta WHERE name = ?1") { statement throws(KeyStoreError) -> [UInt8]? in
            try statement.bind(1, text: providerKeyRecordName)
            return try statement.step() ? statement.bytes(0) : nil
        }
        guard let value else { return nil }
        return try ProviderKeyRules.recorded(value, recordKey: recordKey)
    }

    /// Records `kid` as the current provider key (nil: removes the record, when no provider key is left).
    static func writeProviderKeyRecord(_ kid: KeyID?, _ connection: SQLiteConnection, recordKey: SecretKey) throws(KeyStoreError) {
        guard let kid else {
            try connection.withStatement("DELETE FROM meta WHERE name = ?1") { statement throws(KeyStoreError) in
                try statement.bind(1, text: providerKeyRecordName)
                _ = try statement.step()
            }
            return
        }
        try connection.withStatement("INSERT OR REPLACE INTO meta (name, value) VALUES (?1, ?2)") { statement throws(KeyStoreError) in
            try statement.bind(1, text: providerKeyRecordName)
            try statement.bind(2, blob: ProviderKeyRules.recordValue(kid, recordKey: recordKey))
            _ = try statement.step()
        }
    }

    /// The current provider key pair: the recorded one. ``KeyStoreError/itemNotFound`` when the
    /// store has no provider key; ``KeyStoreError/providerKeyMissing(_:)`` when its row is gone
    /// (deleted outside the API) or the record is missing or does not verify while rows exist.
    static func currentProviderKey(
        _ rows: [IdentityRow], _ connection: SQLiteConnection, recordKey: SecretKey
    ) throws(KeyStoreError) -> IdentityRow {
        guard let recorded = try providerKeyRecord(connection, recordKey: recordKey) else {
            if rows.isEmpty { throw .itemNotFound }
            throw .providerKeyMissing(nil)
        }
        guard let row = rows.first(where: { $0.id == recorded.bytes }) else { throw .providerKeyMissing(recorded) }
        return row
    }

    /// Format 5 -> 6: the newest provider key pair (as before: created last) becomes the recorded one.
    static func createProviderKeyRecord(_ connection: SQLiteConnection, masterKey: SecretKey) throws(KeyStoreError) {
        let newest = try connection.withStatement(
            "SELECT id FROM identities WHERE kind = 'provider' ORDER BY created_at DESC, rowid DESC LIMIT 1"
        ) { statement throws(KeyStoreError) -> [UInt8]? in
            try statement.step() ? statement.bytes(0) : nil
        }
        guard let newest, let kid = KeyID(bytes: newest) else { return }
        try writeProviderKeyRecord(kid, connection, recordKey: ItemSealing.epochRecordKey(masterKey: masterKey))
    }
}
