import PushSealCore

/// Device registrations in a key directory on SQLite (file format 8, table `devices`,
/// Docs/KEY-STORE.md §3.7): the rules are `RegisteredDevice.Rules`, shared with PostgreSQL.
extension KeyStore {
    /// Registers the device of `registration` (the JSON `pushseal device init` prints), so that
    /// bundles and per-device keys can be sealed to it by its device key id. Registering it again
    /// changes nothing and returns the existing row; a revoked device key is
    /// ``KeyStoreError/invalidArgument(_:)``.
    @discardableResult
    public func registerDevice(_ registration: DeviceRegistration) throws(KeyStoreError) -> RegisteredDevice {
        let binding = RegisteredDevice.Rules.binding(registration, createdAt: clock())
        let sealed = IdentitySealing.seal(nil, binding: binding, masterKey: masterKey)
        let masterKey = self.masterKey
        return try session(.write) { connection throws(KeyStoreError) -> RegisteredDevice in
            if let existing = try Self.registeredDeviceRows(connection, masterKey: masterKey, id: registration.deviceKeyID).first {
                return try RegisteredDevice.Rules.reRegistration(of: existing)
            }
            try Self.writeRegisteredDevice(binding, sealed: sealed, connection)
            return RegisteredDevice(id: registration.deviceKeyID, publicKey: registration.publicKey, createdAt: binding.createdAt, revokedAt: nil)
        }
    }

    /// Every registered device, revoked ones included, oldest first; each row authenticated.
    public func registeredDevices() throws(KeyStoreError) -> [RegisteredDevice] {
        let masterKey = self.masterKey
        return try session(.read) { connection throws(KeyStoreError) in try Self.registeredDeviceRows(connection, masterKey: masterKey, id: nil) }
    }

    /// The registered device with device key id `id` (revoked or not); ``KeyStoreError/itemNotFound`` when absent.
    public func registeredDevice(id: KeyID) throws(KeyStoreError) -> RegisteredDevice {
        let masterKey = self.masterKey
        let row = try session(.read) { connection throws(KeyStoreError) in try Self.registeredDeviceRows(connection, masterKey: masterKey, id: id).first }
        guard let row else { throw .itemNotFound }
        return row
    }

    /// Revokes the registered device `id`: nothing is sealed to it from now on (its row stays,
    /// so it is not registered again). Returns the revoked row (a device revoked already keeps
    /// its revocation time); ``KeyStoreError/itemNotFound`` when absent.
    @discardableResult
    public func revokeDevice(id: KeyID) throws(KeyStoreError) -> RegisteredDevice {
        let (masterKey, now) = (self.masterKey, clock())
        return try session(.write) { connection throws(KeyStoreError) -> RegisteredDevice in
            guard let existing = try Self.registeredDeviceRows(connection, masterKey: masterKey, id: id).first else { throw .itemNotFound }
            let binding = RegisteredDevice.Rules.revoked(existing, at: now)
            try Self.writeRegisteredDevice(binding, sealed: IdentitySealing.seal(nil, binding: binding, masterKey: masterKey), connection)
            return RegisteredDevice(id: id, publicKey: existing.publicKey, createdAt: existing.createdAt, revokedAt: binding.revokedAt)
        }
    }

    /// Seals every registered device row again under `newKey` (master-key rotation); how many.
    static func resealRegisteredDevices(_ connection: SQLiteConnection, from oldKey: SecretKey, to newKey: SecretKey) throws(KeyStoreError) -> Int {
        let devices = try registeredDeviceRows(connection, masterKey: oldKey, id: nil)
        for device in devices {
            let binding = RegisteredDevice.Rules.binding(of: device)
            try writeRegisteredDevice(binding, sealed: IdentitySealing.seal(nil, binding: binding, masterKey: newKey), connection)
        }
        return devices.count
    }

    private static func writeRegisteredDevice(_ binding: IdentitySealing.Binding, sealed: [UInt8], _ connection: SQLiteConnection) throws(KeyStoreError) {
        try connection.withStatement(
            "INSERT OR REPLACE INTO devices (id, public_key, created_at, revoked_at, sealed) VALUES (?1, ?2, ?3, ?4, ?5)"
        ) { statement throws(KeyStoreError) in
            try statement.bind(1, blob: binding.id)
            try statement.bind(2, blob: binding.publicKey)
            try statement.bind(3, binding.createdAt)
            try statement.bind(4, binding.revokedAt)
            try statement.bind(5, blob: sealed)
            _ = try statement.step()
        }
    }

    /// The registered device rows (all, or the one with `id`), oldest first, each checked.
    private static func registeredDeviceRows(_ connection: SQLiteConnection, masterKey: SecretKey, id: KeyID?) throws(KeyStoreError) -> [RegisteredDevice] {
        let raw = try connection.withStatement(
            "SELECT id, public_key, created_at, revoked_at, sealed FROM devices WHERE ?1 IS NULL OR id = ?1 ORDER BY created_at, id"
        ) { statement throws(KeyStoreError) -> [(IdentitySealing.Binding, [UInt8])] in
            try statement.bind(1, optionalBlob: id?.bytes)
            var rows: [(IdentitySealing.Binding, [UInt8])] = []
            while try statement.step() {
                rows.append((
                    .init(kind: .registered, id: statement.bytes(0), publicKey: statement.bytes(1), createdAt: statement.int64(2),
                          revokedAt: statement.optionalInt64(3)),
                    statement.bytes(4)))
            }
            return rows
        }
        var devices: [RegisteredDevice] = []
        for (binding, sealed) in raw { devices.append(try RegisteredDevice.Rules.checked(binding, sealed: sealed, masterKey: masterKey)) }
        return devices
    }
}
