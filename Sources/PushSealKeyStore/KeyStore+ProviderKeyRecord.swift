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
    static let providerKeyRecordName = "provider_key"
    static let providerKeyRecordFormat: UInt8 = 0x03

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
        let kid = Array(value.prefix(KeyID.byteCount)), tag = Array(value.dropFirst(KeyID.byteCount))
        let expected = providerKeyRecordTag(kid, recordKey: recordKey)
        guard kid.count == KeyID.byteCount, tag.count == expected.count,
              expected.withUnsafeBytes({ e in tag.withUnsafeBytes { t in SecureMemory.constantTimeEqual(e, t) } }),
              let id = KeyID(bytes: kid)
        else { throw .providerKeyMissing(nil) }
        return id
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
            try statement.bind(2, blob: kid.bytes + providerKeyRecordTag(kid.bytes, recordKey: recordKey))
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
