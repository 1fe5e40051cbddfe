import PushSealCore
import PushSealKeyDirectory

/// The provider-key record (file format 6, Docs/KEY-STORE.md §3.6): which provider key pair is the
/// current one, authenticated under the epoch-record key, so that a deleted newest provider-key
/// row is `KeyDirectoryError.providerKeyMissing(_:)` and never a silent fall-back to an older key
/// pair (devices may have unpinned it). A `meta` row, `name = 'provider_key'`:
///
/// ```
/// value = kid(16) || HMAC-SHA256(rk, 0x03 || kid(16))
/// ```
extension DeviceKeyStore {
    /// Format 5 -> 6: the newest provider key pair (as before: created last) becomes the recorded one.
    static func createProviderKeyRecord(_ connection: SQLiteConnection, masterKey: MasterKey) throws(KeyDirectoryError) {
        let newest = try connection.withStatement(
            "SELECT id FROM identities WHERE kind = 'provider' ORDER BY created_at DESC, rowid DESC LIMIT 1"
        ) { statement throws(KeyDirectoryError) -> [UInt8]? in
            try statement.step() ? statement.bytes(0) : nil
        }
        guard let newest, let kid = KeyID(bytes: newest) else { return }
        let recordKey = ItemSealing.epochRecordKey(masterKey: masterKey)
        try Rules.writeProviderKeyRecord(kid, SQLiteKeyDirectoryTransaction(connection, recordKey: recordKey), recordKey: recordKey)
    }
}
