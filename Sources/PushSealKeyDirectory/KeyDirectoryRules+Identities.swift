import PushSealCore

/// An identity row read back and checked: its id is its public key's, its sealed blob opens
/// with the row bound in (and holds the private key for a device key or provider key pair).
package struct IdentityRow {
    /// The row's id (device key id or provider key id).
    package var id: [UInt8]
    /// The 32-byte X25519 public key.
    package var publicKey: [UInt8]
    /// When it was created.
    package var createdAt: Int64
    /// The key pair (nil for a pinned public key).
    package var pair: IdentityKeyPair?

    /// `row` of `kind`, checked under `masterKey`; ``KeyDirectoryError/invalidStore(_:)`` when
    /// its id is not its public key's, or its blob does not open.
    package init(_ row: SealedIdentityRow, masterKey: MasterKey) throws(KeyDirectoryError) {
        let (binding, sealed) = row
        let kind = binding.kind
        guard binding.id.count == KeyID.byteCount, binding.publicKey.count == IdentityKeyPair.byteCount,
              KeyID(bytes: binding.id) == (kind == .device ? KeyBundle.deviceKeyID(of: binding.publicKey) : KeyBundle.providerKeyID(of: binding.publicKey))
        else { throw .invalidStore("a \(kind.rawValue) identity row's id is not the id of its public key") }
        let pair = try IdentitySealing.unseal(sealed, binding: binding, masterKey: masterKey)
        (id, publicKey, createdAt, self.pair) = (binding.id, binding.publicKey, binding.createdAt, pair)
    }

    /// The binding of this row as `kind` (to seal it again).
    package func binding(_ kind: IdentitySealing.Kind) -> IdentitySealing.Binding {
        .init(kind: kind, id: id, publicKey: publicKey, createdAt: createdAt)
    }
}

/// Provider key pairs and device registrations (Docs/KEY-STORE.md §3.6, §3.7), the same on every
/// backend: rows sealed and row-bound by ``IdentitySealing``, the current provider key in the
/// authenticated provider-key record (``ProviderKeyRules``), registrations under
/// `RegisteredDevice.Rules`.
extension KeyDirectoryRules {
    /// Every identity row of `kind` in `transaction`, oldest first, each checked.
    package static func identities(_ kind: IdentitySealing.Kind, _ transaction: Storage.Transaction, masterKey: MasterKey) throws(KeyDirectoryError) -> [IdentityRow] {
        var rows: [IdentityRow] = []
        for row in try transaction.identityRows(kind) { rows.append(try IdentityRow(row, masterKey: masterKey)) }
        return rows
    }

    /// The recorded current provider key id, checked; nil when there is none.
    package static func providerKeyRecord(_ transaction: Storage.Transaction, recordKey: SecretKey) throws(KeyDirectoryError) -> KeyID? {
        guard let value = try transaction.meta(ProviderKeyRules.recordName) else { return nil }
        return try ProviderKeyRules.recorded(value, recordKey: recordKey)
    }

    /// Records `kid` as the current provider key (nil: removes the record).
    package static func writeProviderKeyRecord(_ kid: KeyID?, _ transaction: Storage.Transaction, recordKey: SecretKey) throws(KeyDirectoryError) {
        try transaction.setMeta(ProviderKeyRules.recordName, kid.map { ProviderKeyRules.recordValue($0, recordKey: recordKey) })
    }

    /// `KeyDirectory.createProviderKey()`: the first key pair is current at once; a later one
    /// waits for ``promoteProviderKey(id:)``.
    package func createProviderKey() throws(KeyDirectoryError) -> ProviderKeyInfo {
        let pair = IdentityKeyPair.generate()
        let binding = IdentitySealing.Binding(kind: .provider, id: pair.providerKeyID.bytes, publicKey: pair.publicKey, createdAt: clock())
        let sealed = IdentitySealing.seal(pair, binding: binding, masterKey: masterKey)
        let (masterKey, recordKey) = (self.masterKey, self.recordKey)
        try storage.write(.identities) { transaction throws(KeyDirectoryError) in
            let rows = try Self.identities(.provider, transaction, masterKey: masterKey)
            // A retry after a lost COMMIT reply: this very key pair is in already.
            if transaction.isRetry, rows.contains(where: { $0.id == binding.id }) { return }
            let recorded = try Self.providerKeyRecord(transaction, recordKey: recordKey)
            let record = try ProviderKeyRules.recordAfterCreate(pair.providerKeyID, recorded: recorded, existingRows: rows.count)
            try transaction.insertIdentity(binding, sealed: sealed)
            if let record { try Self.writeProviderKeyRecord(record, transaction, recordKey: recordKey) }
        }
        return ProviderKeyInfo(id: pair.providerKeyID, publicKey: pair.publicKey, createdAt: binding.createdAt)
    }

    /// `KeyDirectory.providerKeys()`: oldest first, each row authenticated.
    package func providerKeys() throws(KeyDirectoryError) -> [ProviderKeyInfo] {
        let masterKey = self.masterKey
        return try storage.read { transaction throws(KeyDirectoryError) in try Self.identities(.provider, transaction, masterKey: masterKey) }
            .map { ProviderKeyInfo(id: KeyID(bytes: $0.id)!, publicKey: $0.publicKey, createdAt: $0.createdAt) }
    }

    /// `KeyDirectory.providerKey(id:)`: never an older key pair in place of a missing current one.
    package func providerKey(id: KeyID?) throws(KeyDirectoryError) -> IdentityKeyPair {
        let (masterKey, recordKey) = (self.masterKey, self.recordKey)
        let pair = try storage.read { transaction throws(KeyDirectoryError) -> IdentityKeyPair? in
            let rows = try Self.identities(.provider, transaction, masterKey: masterKey)
            if let id { return rows.first { $0.id == id.bytes }?.pair }
            guard let recorded = try Self.providerKeyRecord(transaction, recordKey: recordKey) else {
                if rows.isEmpty { return nil }
                throw .providerKeyMissing(nil)
            }
            guard let row = rows.first(where: { $0.id == recorded.bytes }) else { throw .providerKeyMissing(recorded) }
            return row.pair
        }
        guard let pair else { throw .itemNotFound }
        return pair
    }

    /// `KeyDirectory.promoteProviderKey(id:)`.
    package func promoteProviderKey(id: KeyID) throws(KeyDirectoryError) {
        let (masterKey, recordKey) = (self.masterKey, self.recordKey)
        try storage.write(.identities) { transaction throws(KeyDirectoryError) in
            guard try Self.identities(.provider, transaction, masterKey: masterKey).contains(where: { $0.id == id.bytes }) else {
                throw .itemNotFound
            }
            try Self.writeProviderKeyRecord(id, transaction, recordKey: recordKey)
        }
    }

    /// `KeyDirectory.removeProviderKey(id:)`: the current one only when it is the last one.
    package func removeProviderKey(id: KeyID) throws(KeyDirectoryError) {
        let (masterKey, recordKey) = (self.masterKey, self.recordKey)
        let removed = try storage.write(.identities) { transaction throws(KeyDirectoryError) -> Bool in
            let rows = try Self.identities(.provider, transaction, masterKey: masterKey)
            guard rows.contains(where: { $0.id == id.bytes }) else { return transaction.isRetry }
            let recorded = try Self.providerKeyRecord(transaction, recordKey: recordKey)
            let last = try ProviderKeyRules.removal(of: id, recorded: recorded, rowCount: rows.count)
            _ = try transaction.deleteIdentity(.provider, id: id)
            if last { try Self.writeProviderKeyRecord(nil, transaction, recordKey: recordKey) }
            return true
        }
        guard removed else { throw .itemNotFound }
    }

    // MARK: - Device registrations

    /// The registered devices in `transaction` (all, or `id`'s), oldest first, each checked.
    package static func devices(_ transaction: Storage.Transaction, id: KeyID?, masterKey: MasterKey) throws(KeyDirectoryError) -> [RegisteredDevice] {
        var devices: [RegisteredDevice] = []
        for (binding, sealed) in try transaction.deviceRows(id: id) {
            devices.append(try RegisteredDevice.Rules.checked(binding, sealed: sealed, masterKey: masterKey))
        }
        return devices
    }

    /// `KeyDirectory.registerDevice(_:)`: again changes nothing; a revoked one is refused.
    package func registerDevice(_ registration: DeviceRegistration) throws(KeyDirectoryError) -> RegisteredDevice {
        let binding = RegisteredDevice.Rules.binding(registration, createdAt: clock())
        let sealed = IdentitySealing.seal(nil, binding: binding, masterKey: masterKey)
        let masterKey = self.masterKey
        return try storage.write(.identities) { transaction throws(KeyDirectoryError) -> RegisteredDevice in
            if let existing = try Self.devices(transaction, id: registration.deviceKeyID, masterKey: masterKey).first {
                return try RegisteredDevice.Rules.reRegistration(of: existing)
            }
            try transaction.putDevice(binding, sealed: sealed)
            return RegisteredDevice(id: registration.deviceKeyID, publicKey: registration.publicKey, createdAt: binding.createdAt, revokedAt: nil)
        }
    }

    /// `KeyDirectory.registeredDevices()`.
    package func registeredDevices() throws(KeyDirectoryError) -> [RegisteredDevice] {
        let masterKey = self.masterKey
        return try storage.read { transaction throws(KeyDirectoryError) in try Self.devices(transaction, id: nil, masterKey: masterKey) }
    }

    /// `KeyDirectory.registeredDevice(id:)`.
    package func registeredDevice(id: KeyID) throws(KeyDirectoryError) -> RegisteredDevice {
        let masterKey = self.masterKey
        let device = try storage.read { transaction throws(KeyDirectoryError) in try Self.devices(transaction, id: id, masterKey: masterKey).first }
        guard let device else { throw .itemNotFound }
        return device
    }

    /// `KeyDirectory.revokeDevice(id:)`: a device revoked already keeps its time.
    package func revokeDevice(id: KeyID) throws(KeyDirectoryError) -> RegisteredDevice {
        let (masterKey, now) = (self.masterKey, clock())
        return try storage.write(.identities) { transaction throws(KeyDirectoryError) -> RegisteredDevice in
            guard let existing = try Self.devices(transaction, id: id, masterKey: masterKey).first else { throw .itemNotFound }
            let binding = RegisteredDevice.Rules.revoked(existing, at: now)
            try transaction.putDevice(binding, sealed: IdentitySealing.seal(nil, binding: binding, masterKey: masterKey))
            return RegisteredDevice(id: id, publicKey: existing.publicKey, createdAt: existing.createdAt, revokedAt: binding.revokedAt)
        }
    }

    // MARK: - Master-key rotation

    /// `KeyDirectory.rotateMasterKey(to:)`: the verifier, every key, every epoch record and
    /// high-water mark, the provider-key record, every identity and registration sealed again
    /// under the new master key in one transaction: all or nothing (a row that does not verify
    /// under the current key aborts it; the device store clears its duplicate log after the
    /// commit). The new key is
    /// loaded (and created, for a source that may create) before the transaction.
    package func rotateMasterKey(to newSource: MasterKeySource, describing directory: String) throws(KeyDirectoryError) -> MasterKeyRotation {
        let newKey = try newSource.load(mayCreate: true)
        if newKey == masterKey { throw .invalidArgument("the new master key is the current one") }
        let (oldKey, oldRecordKey, verifier) = (masterKey, recordKey, self.verifier)
        let newRecordKey = ItemSealing.epochRecordKey(masterKey: newKey)
        let newVerifier = ItemSealing.makeVerifier(masterKey: newKey)
        return try storage.write(.masterKey) { transaction throws(KeyDirectoryError) -> MasterKeyRotation in
            guard let found = try transaction.meta("verifier") else { throw .invalidStore("\(directory) has no master-key verifier") }
            // A retry after a lost COMMIT reply: done already when the verifier is the new key's.
            if transaction.isRetry, ItemSealing.verify(found, masterKey: newKey) {
                return MasterKeyRotation(resealedKeys: try transaction.rows(conversation: nil).count, resealedIdentities: 0, clearedDeliveries: 0)
            }
            if found != verifier, !ItemSealing.verify(found, masterKey: oldKey) {
                throw .locked("\(directory) is sealed under another master key (it was rotated): open it with the new master key")
            }
            try transaction.setMeta("verifier", newVerifier)
            let rows = try transaction.rows(conversation: nil)
            for var row in rows {
                let stored = try row.unseal(masterKey: oldKey)
                row.sealed = ItemSealing.seal(stored.key, binding: row.binding, masterKey: newKey)
                try transaction.updateSealed(row)
            }
            for record in try transaction.epochRecords() {
                guard record.isAuthentic(recordKey: oldRecordKey) else { throw .corruptedItem(record.keyID) }
                try transaction.putEpochRecord(
                    EpochRecord(conversation: record.conversation, epoch: record.epoch, kid: record.kid, removed: record.removed, recordKey: newRecordKey))
            }
            for conversation in try transaction.epochMarkConversations() {
                if let epoch = try transaction.checkedEpochMark(conversation, recordKey: oldRecordKey) {
                    try transaction.writeEpochMark(conversation, epoch: epoch, recordKey: newRecordKey)
                }
            }
            if let current = try Self.providerKeyRecord(transaction, recordKey: oldRecordKey) {
                try Self.writeProviderKeyRecord(current, transaction, recordKey: newRecordKey)
            }
            var resealedIdentities = 0
            for kind in [IdentitySealing.Kind.device, .provider, .pinned] {
                for identity in try Self.identities(kind, transaction, masterKey: oldKey) {
                    let binding = identity.binding(kind)
                    try transaction.updateIdentity(binding, sealed: IdentitySealing.seal(identity.pair, binding: binding, masterKey: newKey))
                    resealedIdentities += 1
                }
            }
            for device in try Self.devices(transaction, id: nil, masterKey: oldKey) {
                let binding = RegisteredDevice.Rules.binding(of: device)
                try transaction.putDevice(binding, sealed: IdentitySealing.seal(nil, binding: binding, masterKey: newKey))
                resealedIdentities += 1
            }
            try transaction.changed(conversation: nil)
            return MasterKeyRotation(resealedKeys: rows.count, resealedIdentities: resealedIdentities, clearedDeliveries: 0)  // the device store resets its log (a file of its own) after the commit
        }
    }
}
