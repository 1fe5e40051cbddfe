import PushSealCore
import PushSealKeyDirectory

/// Identities for key bundles (SPEC §16, Docs/KEY-STORE.md §2): a device store holds one device
/// key and the pinned provider public keys; a key directory holds the provider's own key pairs.
/// Private keys are sealed at rest under the master key like every conversation key.
extension DeviceKeyStore {
    // MARK: - Device key

    /// Creates this store's device key (once): a fresh X25519 key pair, its private half sealed
    /// under the master key. Returns the registration to send to the backend.
    /// `KeyDirectoryError.duplicateItem` when the store already has a device key.
    @discardableResult
    public func createDeviceKey() throws(KeyDirectoryError) -> DeviceRegistration {
        let pair = IdentityKeyPair.generate()
        try insertIdentity(.device, pair.deviceKeyID, pair: pair, publicKey: pair.publicKey)
        return try! DeviceRegistration(publicKey: pair.publicKey)
    }

    /// The device key pair; `KeyDirectoryError.itemNotFound` when the store has none.
    public func deviceKey() throws(KeyDirectoryError) -> IdentityKeyPair {
        guard let pair = try identities(.device).first?.pair else { throw .itemNotFound }
        return pair
    }

    /// The device's registration (public key, device key id, suite).
    public func deviceRegistration() throws(KeyDirectoryError) -> DeviceRegistration {
        guard let publicKey = try identities(.device).first?.publicKey else { throw .itemNotFound }
        return try! DeviceRegistration(publicKey: publicKey)
    }

    // MARK: - Pinned provider keys (device side)

    /// Pins a provider public key (32 bytes): bundles sealed with it are accepted. Returns its
    /// provider key id; pinning a key again changes nothing.
    ///
    /// Refuses (`KeyDirectoryError.invalidArgument(_:)`) a point of small order, which no provider
    /// key pair can have (every X25519 secret with it is all zero), and this store's own device
    /// public key, which is not a provider's.
    @discardableResult
    public func pinProviderKey(_ publicKey: [UInt8]) throws(KeyDirectoryError) -> KeyID {
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
        do throws(KeyDirectoryError) {
            try insertIdentity(.pinned, id, pair: nil, publicKey: publicKey)
        } catch .duplicateItem {
            // Already pinned: the same id means the same public key.
        }
        return id
    }

    /// The pinned provider public keys, oldest first.
    public func pinnedProviderKeys() throws(KeyDirectoryError) -> [[UInt8]] {
        try identities(.pinned).map(\.publicKey)
    }

    /// Unpins the provider key with `id`; `KeyDirectoryError.itemNotFound` when it is not pinned.
    public func unpinProviderKey(id: KeyID) throws(KeyDirectoryError) {
        try removeIdentity(.pinned, id)
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
            result = try write(.conversations) { transaction throws(KeyDirectoryError) -> Outcome? in
                let connection = transaction.connection
                let device = try Rules.identities(.device, transaction, masterKey: masterKey).first
                guard let device = device?.pair else { throw .locked("the store has no device key (pushseal device init)") }
                let pinned = try Rules.identities(.pinned, transaction, masterKey: masterKey).map(\.publicKey)
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
                if let row = try transaction.row(kid: contents.keyID.bytes) {
                    let item = try row.unseal(masterKey: masterKey).item
                    underKeyID = (row, item.conversation, item.epoch, item.notAfter)
                }
                let forEpoch = try connection.withStatement(
                    "SELECT kid FROM keys WHERE conversation = ?1 AND epoch = ?2"
                ) { statement throws(KeyDirectoryError) -> KeyID? in
                    try statement.bind(1, textBytes: cid)
                    try statement.bind(2, contents.epoch)
                    return try statement.step() ? KeyID(bytes: statement.bytes(0)) : nil
                }
                // Finding F1 (SPEC §16.5 9f): every stored epoch above retired this one when it started.
                let startedAbove = try connection.withStatement(
                    "SELECT min(created_at) FROM keys WHERE conversation = ?1 AND epoch > ?2"
                ) { statement throws(KeyDirectoryError) -> Int64? in
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
                        try transaction.setNotAfter(plan.notAfter, of: underKeyID.row, masterKey: masterKey)
                    }
                case .installed, .installedRetired:
                    if let retireAt = plan.retireEarlierAt {
                        try transaction.retireEpochs(of: contents.conversation, below: contents.epoch, at: retireAt, masterKey: masterKey)
                    }
                    let item = KeyItem(
                        keyID: contents.keyID, conversation: contents.conversation, epoch: contents.epoch, label: nil,
                        createdAt: plan.createdAt ?? now,
                        notAfter: plan.notAfter)
                    try transaction.insert(contents.key, as: item, masterKey: masterKey, recordKey: recordKey)
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
    /// nil when the device installed nothing for it. `KeyDirectoryError.corruptedItem(_:)` when edited.
    public func bundleRecord(conversation: String) throws(KeyDirectoryError) -> KeyBundleConversationRecord? {
        try KeyDirectoryLimits.check(conversation: conversation)
        let recordKey = epochRecordKey
        return try session(.read) { connection throws(KeyDirectoryError) in
            try Self.bundleRecord(Array(conversation.utf8), connection, recordKey: recordKey)
        }
    }

    /// The logout wipe of a device store (SPEC §16.5, `store remove --all`): in one transaction,
    /// every key, epoch record, bundle record and duplicate-log entry is deleted and the device key
    /// is replaced by a fresh one, so no bundle sealed before the wipe can open on this device
    /// (it lands on `bundle_authentication_failed`). Returns how many keys were removed and the new
    /// registration, which the app must send to its backend. Pinned provider keys stay.
    /// `KeyDirectoryError.itemNotFound` when the store has no device key (use ``removeAll()``).
    public func wipeDevice() throws(KeyDirectoryError) -> (removed: Int, registration: DeviceRegistration) {
        let pair = IdentityKeyPair.generate()
        let createdAt = clock()
        let binding = IdentitySealing.Binding(kind: .device, id: pair.deviceKeyID.bytes, publicKey: pair.publicKey, createdAt: createdAt)
        let sealed = IdentitySealing.seal(pair, binding: binding, masterKey: masterKey)
        let removed = try session(.write) { connection throws(KeyDirectoryError) -> Int in
            try connection.execute("DELETE FROM identities WHERE kind = 'device'")
            guard connection.changes > 0 else { throw .itemNotFound }
            let removed = try Self.deleteEveryKey(connection)
            try SQLiteKeyDirectoryTransaction(connection, recordKey: epochRecordKey).insertIdentity(binding, sealed: sealed)
            return removed
        }
        try deliveryLog.reset()
        return (removed, try! DeviceRegistration(publicKey: pair.publicKey))
    }

    // MARK: - Rows

    /// The rules over this store's file (identity rows, checked).
    typealias Rules = KeyDirectoryRules<DeviceKeyStore>

    /// Inserts one identity row; returns its created time. `KeyDirectoryError.duplicateItem` when
    /// the row exists (or, for the device key, any device key exists).
    @discardableResult
    private func insertIdentity(
        _ kind: IdentitySealing.Kind, _ id: KeyID, pair: IdentityKeyPair?, publicKey: [UInt8]
    ) throws(KeyDirectoryError) -> Int64 {
        let createdAt = clock()
        let binding = IdentitySealing.Binding(kind: kind, id: id.bytes, publicKey: publicKey, createdAt: createdAt)
        let sealed = IdentitySealing.seal(pair, binding: binding, masterKey: masterKey)
        try write(.identities) { transaction throws(KeyDirectoryError) in try transaction.insertIdentity(binding, sealed: sealed) }
        return createdAt
    }

    private func removeIdentity(_ kind: IdentitySealing.Kind, _ id: KeyID) throws(KeyDirectoryError) {
        let removed = try write(.identities) { transaction throws(KeyDirectoryError) -> Int in try transaction.deleteIdentity(kind, id: id) }
        guard removed > 0 else { throw .itemNotFound }
    }

    private func identities(_ kind: IdentitySealing.Kind) throws(KeyDirectoryError) -> [IdentityRow] {
        let masterKey = self.masterKey
        return try read { transaction throws(KeyDirectoryError) in try Rules.identities(kind, transaction, masterKey: masterKey) }
    }
}
