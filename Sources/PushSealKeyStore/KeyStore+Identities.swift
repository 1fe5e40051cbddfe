import PushSealCore

/// A provider key pair's public facts (the private half stays sealed in the store).
public struct ProviderKeyInfo: Sendable, Equatable {
    /// The provider key id (SPEC §16.1).
    public let id: KeyID
    /// The 32-byte X25519 public key, which devices pin.
    public let publicKey: [UInt8]
    /// When it was created, in seconds since 1970.
    public let createdAt: Int64
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
    @discardableResult
    public func pinProviderKey(_ publicKey: [UInt8]) throws(KeyStoreError) -> KeyID {
        guard publicKey.count == IdentityKeyPair.byteCount else {
            throw .invalidArgument("a provider public key is \(IdentityKeyPair.byteCount) bytes, not \(publicKey.count)")
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

    /// Creates a provider key pair; it becomes the current one (the newest). Older ones stay
    /// until removed, so bundles sealed with them and devices that pinned them keep working.
    @discardableResult
    public func createProviderKey() throws(KeyStoreError) -> ProviderKeyInfo {
        let pair = IdentityKeyPair.generate()
        let createdAt = try insertIdentity(.provider, pair.providerKeyID, pair: pair, publicKey: pair.publicKey)
        return ProviderKeyInfo(id: pair.providerKeyID, publicKey: pair.publicKey, createdAt: createdAt)
    }

    /// Every provider key pair's public facts, oldest first (the last is the current one).
    public func providerKeys() throws(KeyStoreError) -> [ProviderKeyInfo] {
        try identities(.provider).map { ProviderKeyInfo(id: KeyID(bytes: $0.id)!, publicKey: $0.publicKey, createdAt: $0.createdAt) }
    }

    /// The provider key pair with `id`, or the current (newest) one when `id` is nil;
    /// ``KeyStoreError/itemNotFound`` when there is none.
    public func providerKey(id: KeyID? = nil) throws(KeyStoreError) -> IdentityKeyPair {
        let rows = try identities(.provider)
        let row = id.map { wanted in rows.first { $0.id == wanted.bytes } } ?? rows.last
        guard let pair = row?.pair else { throw .itemNotFound }
        return pair
    }

    /// Removes the provider key pair with `id`; ``KeyStoreError/itemNotFound`` when absent.
    public func removeProviderKey(id: KeyID) throws(KeyStoreError) {
        try removeIdentity(.provider, id)
    }

    // MARK: - Installing bundles (device side)

    /// Checks `bundle` against this store's device key and pinned provider keys (SPEC §16.5) and
    /// installs its key: one write transaction reads the identities, opens the bundle, checks for
    /// conflicts and inserts, so concurrent installs of one bundle give one `KeyBundleInstallation.installed`.
    /// A store failure (no device key, locked, damaged) is `KeyBundleError.storeLocked`.
    @discardableResult
    public func install(_ bundle: KeyBundle) throws(KeyBundleError) -> KeyBundleInstallation {
        try installReportingConversation(bundle).installation
    }

    /// ``install(_:)`` that also returns the conversation the opened bundle named.
    public func installReportingConversation(_ bundle: KeyBundle) throws(KeyBundleError) -> (installation: KeyBundleInstallation, conversation: String) {
        let now = clock()
        let (masterKey, recordKey) = (self.masterKey, self.epochRecordKey)
        var failure: KeyBundleError?
        let result: (installation: KeyBundleInstallation, conversation: String)?
        do {
            result = try session(.write) { connection throws(KeyStoreError) -> (installation: KeyBundleInstallation, conversation: String)? in
                let device = try Self.identityRows(.device, connection, masterKey: masterKey).first
                guard let device = device?.pair else { throw .locked("the store has no device key (pushseal device init)") }
                let pinned = try Self.identityRows(.pinned, connection, masterKey: masterKey).map(\.publicKey)
                let opened: KeyBundle.Opened
                do throws(KeyBundleError) { opened = try bundle.open(device: device, pinnedProviderKeys: pinned, now: now) } catch {
                    failure = error
                    return nil
                }
                let header = bundle.header
                var underKeyID: (conversation: String, epoch: Int64)?
                if let row = try Self.fetchRow(connection, kid: header.keyID) {
                    let stored = try Self.unseal(row, masterKey: masterKey)
                    underKeyID = (stored.item.conversation, stored.item.epoch)
                }
                let forEpoch = try connection.withStatement(
                    "SELECT kid FROM keys WHERE conversation = ?1 AND epoch = ?2"
                ) { statement throws(KeyStoreError) -> KeyID? in
                    try statement.bind(1, text: opened.conversation)
                    try statement.bind(2, header.epoch)
                    return try statement.step() ? KeyID(bytes: statement.bytes(0)) : nil
                }
                let installation: KeyBundleInstallation
                do throws(KeyBundleError) { installation = try KeyBundle.installation(
                    of: header, conversation: opened.conversation, storedUnderKeyID: underKeyID, storedForEpoch: forEpoch) } catch {
                    failure = error
                    return nil
                }
                if installation == .installed {
                    let item = KeyItem(
                        keyID: opened.key.id, conversation: opened.conversation, epoch: header.epoch, label: nil, createdAt: now,
                        notAfter: header.notAfter)
                    // A newer epoch than any the device knows retires the earlier ones now, as the
                    // provider's rotation did (SPEC §16.6): a member removed by that rotation can no
                    // longer forge notifications dated after this moment (`retired_key`).
                    if try Self.nextEpoch(opened.conversation, connection, recordKey: recordKey) <= header.epoch {
                        try Self.retire(conversation: opened.conversation, at: now, connection, masterKey: masterKey)
                    }
                    try Self.insert(item, sealed: ItemSealing.seal(opened.key, binding: .init(item), masterKey: masterKey), connection)
                    try Self.advanceEpochRecord(for: item, connection, recordKey: recordKey)
                }
                return (installation, opened.conversation)
            }
        } catch {
            throw .storeLocked("\(error)")
        }
        if let failure { throw failure }
        return result!
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
        try session(.write) { connection throws(KeyStoreError) in
            try connection.withStatement(
                "INSERT OR IGNORE INTO identities (kind, id, public_key, created_at, sealed) VALUES (?1, ?2, ?3, ?4, ?5)"
            ) { statement throws(KeyStoreError) in
                try statement.bind(1, text: kind.rawValue)
                try statement.bind(2, blob: id.bytes)
                try statement.bind(3, blob: publicKey)
                try statement.bind(4, createdAt)
                try statement.bind(5, blob: sealed)
                _ = try statement.step()
            }
            if connection.changes == 0 { throw .duplicateItem }
        }
        return createdAt
    }

    private func removeIdentity(_ kind: IdentitySealing.Kind, _ id: KeyID) throws(KeyStoreError) {
        let removed = try session(.write) { connection throws(KeyStoreError) -> Int in
            try connection.withStatement("DELETE FROM identities WHERE kind = ?1 AND id = ?2") { statement throws(KeyStoreError) in
                try statement.bind(1, text: kind.rawValue)
                try statement.bind(2, blob: id.bytes)
                _ = try statement.step()
            }
            return connection.changes
        }
        guard removed > 0 else { throw .itemNotFound }
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
