public import PushSealCore
public import PushSealKeyStore

/// Provider key pairs and device registrations on PostgreSQL (schema version 3,
/// Docs/KEY-STORE.md §3.6, §3.7): the SQLite store's rows, sealed and row-bound by the same
/// `IdentitySealing`, and the same rules (`KeyStore.ProviderKeyRules`, `RegisteredDevice.Rules`).
/// Every write takes the identities' advisory lock, so concurrent creations, promotions and
/// removals on many nodes are serialized.
extension PostgreSQLKeyDirectory {
    /// The advisory lock key of identity writes ("PSID").
    static let identityLock: Int64 = 0x5053_4944

    // MARK: - Provider key pairs

    /// Creates a provider key pair; the first one is current at once, a later one once promoted
    /// (``promoteProviderKey(id:)``). See `KeyDirectory.createProviderKey()`.
    @discardableResult
    public func createProviderKey() throws(KeyStoreError) -> ProviderKeyInfo {
        let pair = IdentityKeyPair.generate()
        let binding = IdentitySealing.Binding(kind: .provider, id: pair.providerKeyID.bytes, publicKey: pair.publicKey, createdAt: clock())
        let sealed = IdentitySealing.seal(pair, binding: binding, masterKey: masterKey)
        try identityWrite { connection, retrying throws(KeyStoreError) in
            let rows = try self.providerKeyRows(connection)
            // A retry after a lost COMMIT reply: this very key pair is in already.
            if retrying, rows.contains(where: { $0.binding.id == binding.id }) { return }
            let recorded = try self.providerKeyRecord(connection)
            let record = try KeyStore.ProviderKeyRules.recordAfterCreate(pair.providerKeyID, recorded: recorded, existingRows: rows.count)
            try connection.execute(
                "INSERT INTO pushseal_identities (kind, id, public_key, created_at, sealed) VALUES ('provider', $1, $2, $3, $4)",
                [.bytes(binding.id), .bytes(binding.publicKey), .int64(binding.createdAt), .bytes(sealed)])
            if let record { try self.writeProviderKeyRecord(record, connection) }
        }
        return ProviderKeyInfo(id: pair.providerKeyID, publicKey: pair.publicKey, createdAt: binding.createdAt)
    }

    /// Every provider key pair's public facts, oldest first; each row authenticated.
    public func providerKeys() throws(KeyStoreError) -> [ProviderKeyInfo] {
        try read { connection throws(KeyStoreError) in try self.providerKeyRows(connection) }.map {
            ProviderKeyInfo(id: KeyID(bytes: $0.binding.id)!, publicKey: $0.binding.publicKey, createdAt: $0.binding.createdAt)
        }
    }

    /// The provider key pair `id`, or the current (recorded) one when `id` is nil; never an older
    /// key pair in place of a missing current one (`KeyStoreError.providerKeyMissing(_:)`).
    public func providerKey(id: KeyID? = nil) throws(KeyStoreError) -> IdentityKeyPair {
        let pair = try read { connection throws(KeyStoreError) -> IdentityKeyPair? in
            let rows = try self.providerKeyRows(connection)
            if let id { return rows.first { $0.binding.id == id.bytes }?.pair }
            guard let recorded = try self.providerKeyRecord(connection) else {
                if rows.isEmpty { return nil }
                throw .providerKeyMissing(nil)
            }
            guard let row = rows.first(where: { $0.binding.id == recorded.bytes }) else { throw .providerKeyMissing(recorded) }
            return row.pair
        }
        guard let pair else { throw .itemNotFound }
        return pair
    }

    /// Makes the provider key pair `id` the current one; `KeyStoreError.itemNotFound` when absent.
    public func promoteProviderKey(id: KeyID) throws(KeyStoreError) {
        try identityWrite { connection, _ throws(KeyStoreError) in
            guard try self.providerKeyRows(connection).contains(where: { $0.binding.id == id.bytes }) else { throw .itemNotFound }
            try self.writeProviderKeyRecord(id, connection)
        }
    }

    /// Removes the provider key pair `id`: the current one only when it is the last one.
    public func removeProviderKey(id: KeyID) throws(KeyStoreError) {
        let removed = try identityWrite { connection, retrying throws(KeyStoreError) -> Bool in
            let rows = try self.providerKeyRows(connection)
            guard rows.contains(where: { $0.binding.id == id.bytes }) else { return retrying }
            let last = try KeyStore.ProviderKeyRules.removal(of: id, recorded: try self.providerKeyRecord(connection), rowCount: rows.count)
            try connection.execute("DELETE FROM pushseal_identities WHERE kind = 'provider' AND id = $1", [.bytes(id.bytes)])
            if last { try self.writeProviderKeyRecord(nil, connection) }
            return true
        }
        guard removed else { throw .itemNotFound }
    }

    // MARK: - Device registrations

    /// Registers the device of `registration`; again changes nothing; a revoked one is refused.
    @discardableResult
    public func registerDevice(_ registration: DeviceRegistration) throws(KeyStoreError) -> RegisteredDevice {
        let binding = RegisteredDevice.Rules.binding(registration, createdAt: clock())
        let sealed = IdentitySealing.seal(nil, binding: binding, masterKey: masterKey)
        return try identityWrite { connection, _ throws(KeyStoreError) -> RegisteredDevice in
            if let existing = try self.deviceRows(connection, id: registration.deviceKeyID).first {
                return try RegisteredDevice.Rules.reRegistration(of: existing)
            }
            try Self.writeDevice(binding, sealed: sealed, connection)
            return RegisteredDevice(id: registration.deviceKeyID, publicKey: registration.publicKey, createdAt: binding.createdAt, revokedAt: nil)
        }
    }

    /// Every registered device (revoked ones included), oldest first; each row authenticated.
    public func registeredDevices() throws(KeyStoreError) -> [RegisteredDevice] {
        try read { connection throws(KeyStoreError) in try self.deviceRows(connection, id: nil) }
    }

    /// The registered device `id`; `KeyStoreError.itemNotFound` when absent.
    public func registeredDevice(id: KeyID) throws(KeyStoreError) -> RegisteredDevice {
        guard let device = try read({ connection throws(KeyStoreError) in try self.deviceRows(connection, id: id).first }) else {
            throw .itemNotFound
        }
        return device
    }

    /// Revokes the registered device `id` (a revoked one keeps its time); `KeyStoreError.itemNotFound` when absent.
    @discardableResult
    public func revokeDevice(id: KeyID) throws(KeyStoreError) -> RegisteredDevice {
        let now = clock()
        return try identityWrite { connection, _ throws(KeyStoreError) -> RegisteredDevice in
            guard let existing = try self.deviceRows(connection, id: id).first else { throw .itemNotFound }
            let binding = RegisteredDevice.Rules.revoked(existing, at: now)
            try Self.writeDevice(binding, sealed: IdentitySealing.seal(nil, binding: binding, masterKey: self.masterKey), connection)
            return RegisteredDevice(id: id, publicKey: existing.publicKey, createdAt: existing.createdAt, revokedAt: binding.revokedAt)
        }
    }

    // MARK: - Master-key rotation

    /// Inside ``rotateMasterKey(to:)``'s transaction: every provider key pair, the provider-key
    /// record and every device registration sealed again under `newKey` (each verified under
    /// `oldKey` first); how many rows.
    static func resealIdentities(
        _ connection: PostgreSQLConnection, from oldKey: SecretKey, to newKey: SecretKey, oldRecordKey: SecretKey, newRecordKey: SecretKey
    ) throws(KeyStoreError) -> Int {
        let providers = try providerKeyRows(connection, masterKey: oldKey)
        for row in providers {
            try connection.execute(
                "UPDATE pushseal_identities SET sealed = $2 WHERE kind = 'provider' AND id = $1",
                [.bytes(row.binding.id), .bytes(IdentitySealing.seal(row.pair, binding: row.binding, masterKey: newKey))])
        }
        if let recorded = try providerKeyRecord(connection, recordKey: oldRecordKey) {
            try writeProviderKeyRecord(recorded, connection, recordKey: newRecordKey)
        }
        let devices = try deviceRows(connection, masterKey: oldKey, id: nil)
        for device in devices {
            let binding = RegisteredDevice.Rules.binding(of: device)
            try writeDevice(binding, sealed: IdentitySealing.seal(nil, binding: binding, masterKey: newKey), connection)
        }
        return providers.count + devices.count
    }

    // MARK: - Rows

    /// A write transaction holding the identities' advisory lock (and the master-key check).
    private func identityWrite<R>(_ body: (PostgreSQLConnection, Bool) throws(KeyStoreError) -> R) throws(KeyStoreError) -> R {
        try write(conversation: nil) { connection, retrying throws(KeyStoreError) -> R in
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int64(Self.identityLock)])
            return try body(connection, retrying)
        }
    }

    private func providerKeyRows(_ connection: PostgreSQLConnection) throws(KeyStoreError) -> [(binding: IdentitySealing.Binding, pair: IdentityKeyPair)] {
        try Self.providerKeyRows(connection, masterKey: masterKey)
    }

    /// The provider key pairs, oldest first, each checked (id of its public key, sealed row).
    private static func providerKeyRows(
        _ connection: PostgreSQLConnection, masterKey: SecretKey
    ) throws(KeyStoreError) -> [(binding: IdentitySealing.Binding, pair: IdentityKeyPair)] {
        let rows = try connection.execute(
            "SELECT id, public_key, created_at, sealed FROM pushseal_identities WHERE kind = 'provider' ORDER BY created_at, seq")
        var result: [(binding: IdentitySealing.Binding, pair: IdentityKeyPair)] = []
        for index in 0..<rows.count {
            guard let id = rows.bytes(index, 0), let publicKey = rows.bytes(index, 1), let createdAt = rows.int64(index, 2),
                  let sealed = rows.bytes(index, 3)
            else { throw .invalidStore("a pushseal_identities row has a NULL or malformed column") }
            let binding = IdentitySealing.Binding(kind: .provider, id: id, publicKey: publicKey, createdAt: createdAt)
            guard publicKey.count == IdentityKeyPair.byteCount, KeyID(bytes: id) == KeyBundle.providerKeyID(of: publicKey) else {
                throw .invalidStore("a provider identity row's id is not the id of its public key")
            }
            guard let pair = try IdentitySealing.unseal(sealed, binding: binding, masterKey: masterKey) else {
                throw .invalidStore("a provider identity row has no private key")
            }
            result.append((binding, pair))
        }
        return result
    }

    private func providerKeyRecord(_ connection: PostgreSQLConnection) throws(KeyStoreError) -> KeyID? {
        try Self.providerKeyRecord(connection, recordKey: epochRecordKey)
    }

    /// The recorded current provider key id, checked; nil when there is none.
    private static func providerKeyRecord(_ connection: PostgreSQLConnection, recordKey: SecretKey) throws(KeyStoreError) -> KeyID? {
        let rows = try connection.execute("SELECT value FROM pushseal_meta WHERE name = $1", [.text(KeyStore.providerKeyRecordName)])
        guard rows.count == 1 else { return nil }
        return try KeyStore.ProviderKeyRules.recorded(rows.bytes(0, 0) ?? [], recordKey: recordKey)
    }

    private func writeProviderKeyRecord(_ kid: KeyID?, _ connection: PostgreSQLConnection) throws(KeyStoreError) {
        try Self.writeProviderKeyRecord(kid, connection, recordKey: epochRecordKey)
    }

    /// Records `kid` as the current provider key (nil: removes the record).
    private static func writeProviderKeyRecord(_ kid: KeyID?, _ connection: PostgreSQLConnection, recordKey: SecretKey) throws(KeyStoreError) {
        guard let kid else {
            try connection.execute("DELETE FROM pushseal_meta WHERE name = $1", [.text(KeyStore.providerKeyRecordName)])
            return
        }
        try connection.execute(
            "INSERT INTO pushseal_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
            [.text(KeyStore.providerKeyRecordName), .bytes(KeyStore.ProviderKeyRules.recordValue(kid, recordKey: recordKey))])
    }

    private func deviceRows(_ connection: PostgreSQLConnection, id: KeyID?) throws(KeyStoreError) -> [RegisteredDevice] {
        try Self.deviceRows(connection, masterKey: masterKey, id: id)
    }

    /// The registered devices (all, or `id`'s), oldest first, each checked.
    private static func deviceRows(_ connection: PostgreSQLConnection, masterKey: SecretKey, id: KeyID?) throws(KeyStoreError) -> [RegisteredDevice] {
        let select = "SELECT id, public_key, created_at, revoked_at, sealed FROM pushseal_devices"
        let rows = if let id {
            try connection.execute(select + " WHERE id = $1", [.bytes(id.bytes)])
        } else {
            try connection.execute(select + " ORDER BY created_at, seq")
        }
        var devices: [RegisteredDevice] = []
        for index in 0..<rows.count {
            guard let id = rows.bytes(index, 0), let publicKey = rows.bytes(index, 1), let createdAt = rows.int64(index, 2),
                  let sealed = rows.bytes(index, 4)
            else { throw .invalidStore("a pushseal_devices row has a NULL or malformed column") }
            let revokedAt = rows.int64(index, 3)
            guard revokedAt != nil || rows.bytes(index, 3) == nil else { throw .invalidStore("a pushseal_devices row has a malformed revoked_at") }
            let binding = IdentitySealing.Binding(kind: .registered, id: id, publicKey: publicKey, createdAt: createdAt, revokedAt: revokedAt)
            devices.append(try RegisteredDevice.Rules.checked(binding, sealed: sealed, masterKey: masterKey))
        }
        return devices
    }

    private static func writeDevice(_ binding: IdentitySealing.Binding, sealed: [UInt8], _ connection: PostgreSQLConnection) throws(KeyStoreError) {
        try connection.execute(
            """
            INSERT INTO pushseal_devices (id, public_key, created_at, revoked_at, sealed) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (id) DO UPDATE SET revoked_at = EXCLUDED.revoked_at, sealed = EXCLUDED.sealed
            """,
            [.bytes(binding.id), .bytes(binding.publicKey), .int64(binding.createdAt), binding.revokedAt.map { .int64($0) } ?? .nullInt64, .bytes(sealed)])
    }
}
