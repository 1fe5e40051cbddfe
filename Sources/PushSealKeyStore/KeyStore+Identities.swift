import PushSealCore

/// A provider key pair's public facts (the private half stays sealed in the store).
public struct ProviderKeyInfo: Sendable, Equatable {
    /// The provider key id (SPEC §16.1).
    public let id: KeyID
    /// The 32-byte X25519 public key, which devices pin.
    public let publicKey: [UInt8]
    /// When it was created, in seconds since 1970.
    public let createdAt: Int64

    /// A provider key pair's facts (as a backend reads them back).
    package init(id: KeyID, publicKey: [UInt8], createdAt: Int64) {
        (self.id, self.publicKey, self.createdAt) = (id, publicKey, createdAt)
    }
}

/// Identities for key bundles (SPEC §16, Docs/KEY-STORE.md §2): a device store holds one device
/// key and the pinned provider public keys; a key directory holds the provider's own key pairs.
/// Private keys are sealed at rest under the master key like every conversation key.
extension KeyStore {
    // MARK: - Device key

    /// Creates this store's device key (once): a fresh X25519 key pair, its private half sealed
    /// under the master key. Returns the registration to send to the backend.
    /// ``KeyStoreError/duplicateItem`` when the store already has a device key.
    @discardableResult
    public func createDeviceKey() throws(KeyStoreError) -> DeviceRegistration {
        let pair = IdentityKeyPair.generate()
        try insertIdentity(.device, pair.deviceKeyID, pair: pair, publicKey: pair.publicKey)
        return try! DeviceRegistration(publicKey: pair.publicKey)
    }

    /// The device key pair; ``KeyStoreError/itemNotFound`` when the store has none.
    public func deviceKey() throws(KeyStoreError) -> IdentityKeyPair {
        guard let pair = try identities(.device).first?.pair else { throw .itemNotFound }
        return pair
    }

    /// The device's registration (public key, device key id, suite).
    public func deviceRegistration() throws(KeyStoreError) -> DeviceRegistration {
        guard let publicKey = try identities(.device).first?.publicKey else { throw .itemNotFound }
        return try! DeviceRegistration(publicKey: publicKey)
    }

    // MARK: - Pinned provider keys (device side)

    /// Pins a provider public key (32 bytes): bundles sealed with it are accepted. Returns its
    /// provider key id; pinning a key again changes nothing.
    ///
    /// Refuses (``KeyStoreError/invalidArgument(_:)``) a point of small order, which no provider
    /// key pair can have (every X25519 secret with it is all zero), and this store's own device
    /// public key, which is not a provider's.
    @discardableResult
    public func pinProviderKey(_ publicKey: [UInt8]) throws(KeyStoreError) -> KeyID {
        guard publicKey.count == IdentityKeyPair.byteCount else {
            throw .invalidArgument("a provider public key is \(IdentityKeyPair.byteCount) bytes, not \(publicKey.count)")
        }
        guard !X25519.isSmallOrder(publicKey) else {
            throw .invalidArgument("the provider public key is a point of small order (no key pair has it; every shared secret with it is zero)")
        }
        if let device = try identities(.device).first, device.publicKey == publicKey {
            throw .invalidArgument("the provider public key is this store's own device public key, not a provider's")
        }
        let id = KeyBundle.providerKeyID(of: publicKey)
        do throws(KeyStoreError) {
            try insertIdentity(.pinned, id, pair: nil, publicKey: publicKey)
        } catch .duplicateItem {
            // Already pinned: the same id means the same public key.
        }
        return id
    }

    /// The pinned provider public keys, oldest first.
    public func pinnedProviderKeys() throws(KeyStoreError) -> [[UInt8]] {
        try identities(.pinned).map(\.publicKey)
    }

    /// Unpins the provider key with `id`; ``KeyStoreError/itemNotFound`` when it is not pinned.
    public func unpinProviderKey(id: KeyID) throws(KeyStoreError) {
        try removeIdentity(.pinned, id)
    }

    // MARK: - Provider key pairs (key directory side)

    /// Creates a provider key pair. The first one is the current one at once; any later one is
    /// not used for bundles until ``promoteProviderKey(id:)`` makes it current, so devices can pin
    /// it first. Older ones stay until removed, so bundles sealed with them and devices that
    /// pinned them keep working. The current one is recorded (authenticated, file format 6) in
    /// the same transaction.
    @discardableResult
    public func createProviderKey() throws(KeyStoreError) -> ProviderKeyInfo {
        let pair = IdentityKeyPair.generate()
        let createdAt = clock()
        let binding = IdentitySealing.Binding(kind: .provider, id: pair.providerKeyID.bytes, publicKey: pair.publicKey, createdAt: createdAt)
        let sealed = IdentitySealing.seal(pair, binding: binding, masterKey: masterKey)
        let (masterKey, recordKey) = (self.masterKey, self.epochRecordKey)
        try session(.write) { connection throws(KeyStoreError) in
            let recorded = try Self.providerKeyRecord(connection, recordKey: recordKey)
            let existing = try Self.identityRows(.provider, connection, masterKey: masterKey).count
            let record = try ProviderKeyRules.recordAfterCreate(pair.providerKeyID, recorded: recorded, existingRows: existing)
            try Self.insertIdentityRow(binding, sealed: sealed, connection)
            if let record { try Self.writeProviderKeyRecord(record, connection, recordKey: recordKey) }
        }
        return ProviderKeyInfo(id: pair.providerKeyID, publicKey: pair.publicKey, createdAt: createdAt)
    }

    /// Makes the provider key pair `id` the current one: bundles are sealed with it from now on.
    /// ``KeyStoreError/itemNotFound`` when there is none with this id. Promoting the current one
    /// changes nothing.
    public func promoteProviderKey(id: KeyID) throws(KeyStoreError) {
        let (masterKey, recordKey) = (self.masterKey, self.epochRecordKey)
        try session(.write) { connection throws(KeyStoreError) in
            guard try Self.identityRows(.provider, connection, masterKey: masterKey).contains(where: { $0.id == id.bytes }) else {
                throw .itemNotFound
            }
            try Self.writeProviderKeyRecord(id, connection, recordKey: recordKey)
        }
    }

    /// Every provider key pair's public facts, oldest first (the last is the newest).
    public func providerKeys() throws(KeyStoreError) -> [ProviderKeyInfo] {
        try identities(.provider).map { ProviderKeyInfo(id: KeyID(bytes: $0.id)!, publicKey: $0.publicKey, createdAt: $0.createdAt) }
    }

    /// The provider key pair with `id`, or the current one (the recorded newest, file format 6)
    /// when `id` is nil; ``KeyStoreError/itemNotFound`` when there is none.
    /// ``KeyStoreError/providerKeyMissing(_:)`` when the current one's row was deleted outside the
    /// API (or its record was): never an older key pair instead.
    public func providerKey(id: KeyID? = nil) throws(KeyStoreError) -> IdentityKeyPair {
        let (masterKey, recordKey) = (self.masterKey, self.epochRecordKey)
        let row = try session(.read) { connection throws(KeyStoreError) -> IdentityRow? in
            let rows = try Self.identityRows(.provider, connection, masterKey: masterKey)
            if let id { return rows.first { $0.id == id.bytes } }
            return try Self.currentProviderKey(rows, connection, recordKey: recordKey)
        }
        guard let pair = row?.pair else { throw .itemNotFound }
        return pair
    }

    /// Removes the provider key pair with `id`; ``KeyStoreError/itemNotFound`` when absent.
    /// The current one goes only when it is the last one (its record goes with it); while others
    /// remain it is ``KeyStoreError/invalidArgument(_:)``: promote another one first.
    public func removeProviderKey(id: KeyID) throws(KeyStoreError) {
        let (masterKey, recordKey) = (self.masterKey, self.epochRecordKey)
        let removed = try session(.write) { connection throws(KeyStoreError) -> Int in
            let rows = try Self.identityRows(.provider, connection, masterKey: masterKey)
            guard rows.contains(where: { $0.id == id.bytes }) else { return 0 }
            let recorded = try Self.providerKeyRecord(connection, recordKey: recordKey)
            let last = try ProviderKeyRules.removal(of: id, recorded: recorded, rowCount: rows.count)
            let removed = try Self.deleteIdentityRow(.provider, id, connection)
            if last { try Self.writeProviderKeyRecord(nil, connection, recordKey: recordKey) }
            return removed
        }
        guard removed > 0 else { throw .itemNotFound }
    }

    // MARK: - Installing bundles (device side)

    /// Checks `bundle` against this store's device key and pinned provider keys (SPEC §16.5) and
    /// installs its key under the installation rules (step 9): one write transaction reads the
    /// identities and the conversation's bundle record, opens the bundle, applies
    /// `KeyBundle.installation` and writes the key, the retired earlier epochs and the record, so
    /// concurrent installs of one bundle give one `KeyBundleInstallation.installed`.
    /// `expectedKeyID` (in band: the kid of the envelope the bundle rides with) refuses a bundle
    /// carrying any other key with `KeyBundleError.envelopeMismatch` before anything is written.
    /// A store failure (no device key, locked, damaged) is `KeyBundleError.storeLocked`.
    @discardableResult
    public func install(_ bundle: KeyBundle, expectedKeyID: KeyID? = nil) throws(KeyBundleError) -> KeyBundleInstallation {
        try installReportingConversation(bundle, expectedKeyID: expectedKeyID).installation
    }

    /// ``install(_:expectedKeyID:)`` that also returns the opened contents' conversation, epoch and kid.
    public func installReportingConversation(
        _ bundle: KeyBundle, expectedKeyID: KeyID? = nil
    ) throws(KeyBundleError) -> (installation: KeyBundleInstallation, conversation: String, epoch: Int64, keyID: KeyID) {
        typealias Outcome = (installation: KeyBundleInstallation, conversation: String, epoch: Int64, keyID: KeyID)
        let now = clock()
        let (masterKey, recordKey) = (self.masterKey, self.epochRecordKey)
        var failure: KeyBundleError?
        let result: Outcome?
        do {
            result = try session(.write) { connection throws(KeyStoreError) -> Outcome? in
                let device = try Self.identityRows(.device, connection, masterKey: masterKey).first
                guard let device = device?.pair else { throw .locked("the store has no device key (pushseal device init)") }
                let pinned = try Self.identityRows(.pinned, connection, masterKey: masterKey).map(\.publicKey)
                let contents: KeyBundleContents
                do throws(KeyBundleError) {
                    contents = try bundle.open(device: device, pinnedProviderKeys: pinned, now: now)
                    if let expectedKeyID, contents.keyID != expectedKeyID { throw .envelopeMismatch(expectedKeyID) }
                } catch {
                    failure = error
                    return nil
                }
                let cid = Array(contents.conversation.utf8)
                let stored = try Self.bundleRecord(cid, connection, recordKey: recordKey)
                let record: KeyBundleConversationRecord
                if let stored { record = stored } else { record = try Self.initialBundleRecord(cid, connection) }
                var underKeyID: (row: Row, conversation: String, epoch: Int64, notAfter: Int64?)?
                if let row = try Self.fetchRow(connection, kid: contents.keyID) {
                    let item = try Self.unseal(row, masterKey: masterKey).item
                    underKeyID = (row, item.conversation, item.epoch, item.notAfter)
                }
                let forEpoch = try connection.withStatement(
                    "SELECT kid FROM keys WHERE conversation = ?1 AND epoch = ?2"
                ) { statement throws(KeyStoreError) -> KeyID? in
                    try statement.bind(1, textBytes: cid)
                    try statement.bind(2, contents.epoch)
                    return try statement.step() ? KeyID(bytes: statement.bytes(0)) : nil
                }
                // Finding F1 (SPEC §16.5 9f): every stored epoch above retired this one when it started.
                let startedAbove = try connection.withStatement(
                    "SELECT min(created_at) FROM keys WHERE conversation = ?1 AND epoch > ?2"
                ) { statement throws(KeyStoreError) -> Int64? in
                    try statement.bind(1, textBytes: cid)
                    try statement.bind(2, contents.epoch)
                    return try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
                }
                let plan: KeyBundleInstallPlan
                do throws(KeyBundleError) {
                    plan = try KeyBundle.installation(
                        of: contents, record: record, storedUnderKeyID: underKeyID.map { ($0.conversation, $0.epoch, $0.notAfter) },
                        storedForEpoch: forEpoch, startedAbove: startedAbove, now: now)
                } catch {
                    failure = error
                    return nil
                }
                switch plan.installation {
                case .alreadyInstalled:
                    if let underKeyID, plan.notAfter != underKeyID.notAfter {
                        try Self.setNotAfter(plan.notAfter, of: underKeyID.row, connection, masterKey: masterKey)
                    }
                case .installed, .installedRetired:
                    if let retireAt = plan.retireEarlierAt {
                        try Self.retireEpochs(of: contents.conversation, below: contents.epoch, at: retireAt, connection, masterKey: masterKey)
                    }
                    let item = KeyItem(
                        keyID: contents.keyID, conversation: contents.conversation, epoch: contents.epoch, label: nil,
                        createdAt: plan.createdAt ?? now,
                        notAfter: plan.notAfter)
                    try Self.insert(item, sealed: ItemSealing.seal(contents.key, binding: .init(item), masterKey: masterKey), connection)
                    try Self.advanceEpochRecord(for: item, connection, recordKey: recordKey)
                }
                if stored != plan.record { try Self.writeBundleRecord(cid, plan.record, connection, recordKey: recordKey) }
                return (plan.installation, contents.conversation, contents.epoch, contents.keyID)
            }
        } catch {
            throw .storeLocked("\(error)")
        }
        if let failure { throw failure }
        return result!
    }

    /// The conversation's bundle record (high-water epoch, its since time, purge tombstone), or
    /// nil when the device installed nothing for it. ``KeyStoreError/corruptedItem(_:)`` when edited.
    public func bundleRecord(conversation: String) throws(KeyStoreError) -> KeyBundleConversationRecord? {
        try Self.check(conversation: conversation)
        let recordKey = epochRecordKey
        return try session(.read) { connection throws(KeyStoreError) in
            try Self.bundleRecord(Array(conversation.utf8), connection, recordKey: recordKey)
        }
    }

    /// The logout wipe of a device store (SPEC §16.5, `store remove --all`): in one transaction,
    /// every key, epoch record, bundle record and duplicate-log entry is deleted and the device key
    /// is replaced by a fresh one, so no bundle sealed before the wipe can open on this device
    /// (it lands on `bundle_authentication_failed`). Returns how many keys were removed and the new
    /// registration, which the app must send to its backend. Pinned provider keys stay.
    /// ``KeyStoreError/itemNotFound`` when the store has no device key (use ``removeAll()``).
    public func wipeDevice() throws(KeyStoreError) -> (removed: Int, registration: DeviceRegistration) {
        let pair = IdentityKeyPair.generate()
        let createdAt = clock()
        let binding = IdentitySealing.Binding(kind: .device, id: pair.deviceKeyID.bytes, publicKey: pair.publicKey, createdAt: createdAt)
        let sealed = IdentitySealing.seal(pair, binding: binding, masterKey: masterKey)
        let removed = try session(.write) { connection throws(KeyStoreError) -> Int in
            try connection.execute("DELETE FROM identities WHERE kind = 'device'")
            guard connection.changes > 0 else { throw .itemNotFound }
            try connection.execute("DELETE FROM keys")
            let removed = connection.changes
            try connection.execute("DELETE FROM epochs")
            try connection.execute("DELETE FROM epoch_marks")
            try connection.execute("DELETE FROM bundle_records")
            try connection.execute("DELETE FROM deliveries")
            try Self.insertIdentityRow(binding, sealed: sealed, connection)
            return removed
        }
        return (removed, try! DeviceRegistration(publicKey: pair.publicKey))
    }

    // MARK: - Rows

    struct IdentityRow {
        var id: [UInt8]
        var publicKey: [UInt8]
        var createdAt: Int64
        var pair: IdentityKeyPair?
    }

    /// Inserts one identity row; returns its created time. ``KeyStoreError/duplicateItem`` when
    /// the row exists (or, for the device key, any device key exists).
    @discardableResult
    private func insertIdentity(
        _ kind: IdentitySealing.Kind, _ id: KeyID, pair: IdentityKeyPair?, publicKey: [UInt8]
    ) throws(KeyStoreError) -> Int64 {
        let createdAt = clock()
        let binding = IdentitySealing.Binding(kind: kind, id: id.bytes, publicKey: publicKey, createdAt: createdAt)
        let sealed = IdentitySealing.seal(pair, binding: binding, masterKey: masterKey)
        try session(.write) { connection throws(KeyStoreError) in try Self.insertIdentityRow(binding, sealed: sealed, connection) }
        return createdAt
    }

    /// Inserts one sealed identity row; ``KeyStoreError/duplicateItem`` when it exists.
    private static func insertIdentityRow(_ binding: IdentitySealing.Binding, sealed: [UInt8], _ connection: SQLiteConnection) throws(KeyStoreError) {
        try connection.withStatement(
            "INSERT OR IGNORE INTO identities (kind, id, public_key, created_at, sealed) VALUES (?1, ?2, ?3, ?4, ?5)"
        ) { statement throws(KeyStoreError) in
            try statement.bind(1, text: binding.kind.rawValue)
            try statement.bind(2, blob: binding.id)
            try statement.bind(3, blob: binding.publicKey)
            try statement.bind(4, binding.createdAt)
            try statement.bind(5, blob: sealed)
            _ = try statement.step()
        }
        if connection.changes == 0 { throw .duplicateItem }
    }

    private func removeIdentity(_ kind: IdentitySealing.Kind, _ id: KeyID) throws(KeyStoreError) {
        let removed = try session(.write) { connection throws(KeyStoreError) -> Int in try Self.deleteIdentityRow(kind, id, connection) }
        guard removed > 0 else { throw .itemNotFound }
    }

    /// Deletes one identity row; returns how many rows went (0 or 1).
    private static func deleteIdentityRow(_ kind: IdentitySealing.Kind, _ id: KeyID, _ connection: SQLiteConnection) throws(KeyStoreError) -> Int {
        try connection.withStatement("DELETE FROM identities WHERE kind = ?1 AND id = ?2") { statement throws(KeyStoreError) in
            try statement.bind(1, text: kind.rawValue)
            try statement.bind(2, blob: id.bytes)
            _ = try statement.step()
        }
        return connection.changes
    }

    private func identities(_ kind: IdentitySealing.Kind) throws(KeyStoreError) -> [IdentityRow] {
        let masterKey = self.masterKey
        return try session(.read) { connection throws(KeyStoreError) in try Self.identityRows(kind, connection, masterKey: masterKey) }
    }

    /// The rows of `kind`, oldest first, each authenticated (and its private key unsealed).
    static func identityRows(_ kind: IdentitySealing.Kind, _ connection: SQLiteConnection, masterKey: SecretKey) throws(KeyStoreError) -> [IdentityRow] {
        let raw = try connection.withStatement(
            "SELECT id, public_key, created_at, sealed FROM identities WHERE kind = ?1 ORDER BY created_at, rowid"
        ) { statement throws(KeyStoreError) -> [(IdentitySealing.Binding, [UInt8])] in
            try statement.bind(1, text: kind.rawValue)
            var rows: [(IdentitySealing.Binding, [UInt8])] = []
            while try statement.step() {
                rows.append((.init(kind: kind, id: statement.bytes(0), publicKey: statement.bytes(1), createdAt: statement.int64(2)), statement.bytes(3)))
            }
            return rows
        }
        var rows: [IdentityRow] = []
        for (binding, sealed) in raw {
            guard binding.id.count == KeyID.byteCount, binding.publicKey.count == IdentityKeyPair.byteCount,
                  KeyID(bytes: binding.id) == (kind == .device ? KeyBundle.deviceKeyID(of: binding.publicKey) : KeyBundle.providerKeyID(of: binding.publicKey))
            else { throw .invalidStore("a \(kind.rawValue) identity row's id is not the id of its public key") }
            let pair = try IdentitySealing.unseal(sealed, binding: binding, masterKey: masterKey)
            rows.append(IdentityRow(id: binding.id, publicKey: binding.publicKey, createdAt: binding.createdAt, pair: pair))
        }
        return rows
    }
}
