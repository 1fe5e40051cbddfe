import PushSealCore

/// Master-key rotation: every row sealed again under a new master key in one transaction, so a
/// copy of the store made before (with keys purged since) no longer opens once the old master
/// key is destroyed. Docs/KEY-STORE.md §8 ("A purge is durable only against later copies").
extension KeyStore {
    /// What a master-key rotation did.
    public struct MasterKeyRotation: Sendable, Equatable {
        /// Keys sealed again under the new master key.
        public var resealedKeys: Int
        /// Identities (device key, provider key pairs, pinned provider keys) sealed again.
        public var resealedIdentities: Int
        /// Duplicate-log entries deleted: they are keyed HMACs under a key derived from the old
        /// master key and cannot be carried over (replays of notifications opened before the
        /// rotation are no longer flagged duplicate; the freshness window still bounds them).
        public var clearedDeliveries: Int

        /// A rotation's figures (every key directory reports them).
        package init(resealedKeys: Int, resealedIdentities: Int, clearedDeliveries: Int) {
            (self.resealedKeys, self.resealedIdentities, self.clearedDeliveries) = (resealedKeys, resealedIdentities, clearedDeliveries)
        }
    }

    /// Seals every key, every identity, every epoch record and the verifier again under the master key of
    /// `newSource`, and clears the duplicate log, in one write transaction: all or nothing. A row
    /// that does not unseal under the current master key (`corruptedItem`) aborts the rotation
    /// and nothing changes.
    ///
    /// The new key is loaded (and created, for a key file or keychain source that may create)
    /// before the transaction, so a crash leaves either the old store with an unused new key or
    /// the new store with its key. This instance keeps the old key and fails every later call
    /// (`locked`: "re-created with another master key"): open the store again with `newSource`,
    /// then destroy the old master key. ``KeyStoreError/invalidArgument(_:)`` when the new key
    /// equals the current one.
    @discardableResult
    public func rotateMasterKey(to newSource: MasterKeySource) throws(KeyStoreError) -> MasterKeyRotation {
        let newKey = try newSource.load(mayCreate: true)
        if newKey == masterKey { throw .invalidArgument("the new master key is the current one") }
        let (oldKey, oldRecordKey) = (masterKey, epochRecordKey)
        let newRecordKey = ItemSealing.epochRecordKey(masterKey: newKey)
        return try session(.write) { connection throws(KeyStoreError) -> MasterKeyRotation in
            let rows = try connection.withStatement("SELECT \(Row.columns) FROM keys") { statement throws(KeyStoreError) -> [Row] in
                var rows: [Row] = []
                while try statement.step() { rows.append(Row(statement)) }
                return rows
            }
            try connection.withStatement("UPDATE keys SET sealed = ?2 WHERE kid = ?1") { statement throws(KeyStoreError) in
                for row in rows {
                    let stored = try Self.unseal(row, masterKey: oldKey)
                    try statement.bind(1, blob: row.kid)
                    try statement.bind(2, blob: ItemSealing.seal(stored.key, binding: row.binding, masterKey: newKey))
                    _ = try statement.step()
                    statement.reset()
                }
            }
            let records = try connection.withStatement("SELECT \(EpochRecord.columns) FROM epochs") {
                statement throws(KeyStoreError) -> [EpochRecord] in
                var records: [EpochRecord] = []
                while try statement.step() { records.append(EpochRecord(statement)) }
                return records
            }
            for record in records {
                guard record.isAuthentic(recordKey: oldRecordKey) else { throw .corruptedItem(record.keyID) }
                try Self.writeEpochRecord(
                    EpochRecord(conversation: record.conversation, epoch: record.epoch, kid: record.kid, removed: record.removed,
                                recordKey: newRecordKey),
                    connection)
            }
            // The high-water marks (file format 7), verified under the old key.
            let marks = try connection.withStatement("SELECT conversation FROM epoch_marks") { statement throws(KeyStoreError) -> [[UInt8]] in
                var all: [[UInt8]] = []
                while try statement.step() { all.append(statement.textBytes(0)) }
                return all
            }
            for conversation in marks {
                if let epoch = try Self.epochMark(conversation, connection, recordKey: oldRecordKey) {
                    try Self.writeEpochMark(conversation, epoch: epoch, connection, recordKey: newRecordKey)
                }
            }
            // The provider-key record (file format 6), verified under the old key.
            if let current = try Self.providerKeyRecord(connection, recordKey: oldRecordKey) {
                try Self.writeProviderKeyRecord(current, connection, recordKey: newRecordKey)
            }
            // The device key, the provider key pairs and the pinned provider keys (file format 4).
            var resealedIdentities = 0
            for kind in [IdentitySealing.Kind.device, .provider, .pinned] {
                let identities = try Self.identityRows(kind, connection, masterKey: oldKey)
                try connection.withStatement("UPDATE identities SET sealed = ?3 WHERE kind = ?1 AND id = ?2") { statement throws(KeyStoreError) in
                    for identity in identities {
                        let binding = IdentitySealing.Binding(kind: kind, id: identity.id, publicKey: identity.publicKey, createdAt: identity.createdAt)
                        try statement.bind(1, text: kind.rawValue)
                        try statement.bind(2, blob: identity.id)
                        try statement.bind(3, blob: IdentitySealing.seal(identity.pair, binding: binding, masterKey: newKey))
                        _ = try statement.step()
                        statement.reset()
                    }
                }
                resealedIdentities += identities.count
            }
            resealedIdentities += try Self.resealRegisteredDevices(connection, from: oldKey, to: newKey)
            try connection.execute("DELETE FROM deliveries")
            let cleared = connection.changes
            try connection.withStatement("UPDATE meta SET value = ?1 WHERE name = 'verifier'") { statement throws(KeyStoreError) in
                try statement.bind(1, blob: ItemSealing.makeVerifier(masterKey: newKey))
                _ = try statement.step()
            }
            return MasterKeyRotation(resealedKeys: rows.count, resealedIdentities: resealedIdentities, clearedDeliveries: cleared)
        }
    }
}
