import PushSealCore
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing

/// Device keys, provider keys, pinning and bundle installation in the store (SPEC §16).
@Suite("Identities and bundle installation")
struct IdentityAndBundleTests {
    /// A device store with a device key and one pinned provider key, and a directory with that provider key.
    func setUp(clock: ManualClock = ManualClock()) throws -> (device: DeviceKeyStore, directory: DeviceKeyStore, provider: IdentityKeyPair, dir: TemporaryDirectory) {
        let deviceDir = TemporaryDirectory()
        let device = try makeStore(deviceDir, clock: clock)
        let directory = try makeStore(TemporaryDirectory(), clock: clock)
        let info = try directory.asDirectory.createProviderKey()
        try device.createDeviceKey()
        try device.pinProviderKey(info.publicKey)
        return (device, directory, try directory.asDirectory.providerKey(), deviceDir)
    }

    let since: Int64 = 1_699_990_000

    /// The bundle delivering `device`'s key of conversation key `key` (epoch `epoch`, which
    /// became current at `since` and is current unless `retireBy` is given).
    func bundle(_ key: ConversationKey, conversation: String = "c", epoch: Int64 = 1, since: Int64? = nil, retireBy: Int64? = nil,
                expires: Int64 = 1_800_000_000, provider: IdentityKeyPair, to device: DeviceKeyStore) throws -> KeyBundle {
        try KeyBundle.seal(conversationKey: key, conversation: conversation, epoch: epoch, since: since ?? self.since, retireBy: retireBy,
                           expires: expires, provider: provider, device: device.deviceRegistration())
    }

    @Test("the device key is created once, survives reopening, and its registration is stable")
    func deviceKey() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        #expect(storeError { try store.deviceKey() } == .itemNotFound)
        let registration = try store.createDeviceKey()
        #expect(storeError { try store.createDeviceKey() } == .duplicateItem)
        let reopened = try reopen(dir)
        #expect(try reopened.deviceRegistration() == registration)
        #expect(try reopened.deviceKey().publicKey == registration.publicKey)
        #expect(try reopened.deviceKey().deviceKeyID == registration.deviceKeyID)
        // The private key is sealed at rest: the 32 private bytes never appear in the file.
        let privateBytes = try reopened.deviceKey().withUnsafePrivateKeyBytes { Array($0) }
        let sealed = try RawDatabase(dir.database).column("SELECT sealed FROM identities WHERE kind = 'device'")[0]
        #expect(sealed.count == 1 + 24 + 32 + 16)
        #expect(!(0...(sealed.count - 32)).contains { Array(sealed[$0..<($0 + 32)]) == privateBytes })
    }

    @Test("provider keys rotate by promotion (issue 24 item 3): the first is current at once, a later one only once promoted; older ones stay until removed")
    func providerKeys() throws {
        let clock = ManualClock()
        let store = try makeStore(TemporaryDirectory(), clock: clock)
        #expect(storeError { try store.asDirectory.providerKey() } == .itemNotFound)
        let first = try store.asDirectory.createProviderKey()
        #expect(try store.asDirectory.providerKey().publicKey == first.publicKey, "the very first key is current at once")
        clock.advance(10)
        let second = try store.asDirectory.createProviderKey()
        #expect(try store.asDirectory.providerKeys() == [first, second])
        // Before promotion: bundles still use the first key (devices may not have pinned the new one).
        #expect(try store.asDirectory.providerKey().publicKey == first.publicKey)
        #expect(storeError { try store.asDirectory.promoteProviderKey(id: KeyID(bytes: [UInt8](repeating: 7, count: 16))!) } == .itemNotFound)
        try store.asDirectory.promoteProviderKey(id: second.id)
        #expect(try store.asDirectory.providerKey().publicKey == second.publicKey)
        #expect(try store.asDirectory.providerKey(id: first.id).publicKey == first.publicKey)
        // The current one cannot go while another remains: no silent fall-back to another key.
        guard case .invalidArgument? = storeError({ try store.asDirectory.removeProviderKey(id: second.id) }) else {
            Issue.record("removing the current provider key while another exists was not refused")
            return
        }
        try store.asDirectory.promoteProviderKey(id: first.id)
        try store.asDirectory.removeProviderKey(id: second.id)
        #expect(try store.asDirectory.providerKey().publicKey == first.publicKey)
        #expect(storeError { try store.asDirectory.removeProviderKey(id: second.id) } == .itemNotFound)
        try store.asDirectory.removeProviderKey(id: first.id)
        #expect(storeError { try store.asDirectory.providerKey() } == .itemNotFound, "the last one goes with its record")
    }

    @Test("pinning is idempotent and checked; unpinning removes")
    func pinning() throws {
        let store = try makeStore(TemporaryDirectory())
        let key = IdentityKeyPair.generate().publicKey
        let id = try store.pinProviderKey(key)
        #expect(try store.pinProviderKey(key) == id)
        #expect(try store.pinnedProviderKeys() == [key])
        #expect(storeError { try store.pinProviderKey([1, 2, 3]) } != nil)
        try store.unpinProviderKey(id: id)
        #expect(try store.pinnedProviderKeys().isEmpty)
        #expect(storeError { try store.unpinProviderKey(id: id) } == .itemNotFound)
    }

    @Test("an edited identity row is refused, never used")
    func tamperedIdentity() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        try store.createDeviceKey()
        try store.pinProviderKey(IdentityKeyPair.generate().publicKey)
        // A pinned key added to the file without the master key does not count.
        let attacker = IdentityKeyPair.generate()
        try RawDatabase(dir.database).execute("""
            INSERT INTO identities (kind, id, public_key, created_at, sealed) VALUES ('pinned', \(sqlBlob(attacker.providerKeyID.bytes)),
            \(sqlBlob(attacker.publicKey)), 1, \(sqlBlob([3] + [UInt8](repeating: 0, count: 40))))
            """)
        #expect(storeError { try store.pinnedProviderKeys() } != nil)
        try RawDatabase(dir.database).execute("DELETE FROM identities WHERE public_key = \(sqlBlob(attacker.publicKey))")
        #expect(try store.pinnedProviderKeys().count == 1)
        try RawDatabase(dir.database).execute("UPDATE identities SET created_at = created_at + 1 WHERE kind = 'device'")
        #expect(storeError { try store.deviceKey() } != nil)
    }

    @Test("install: installed, then already installed; the device's key K_d (never K) is found by its kid for the conversation and epoch")
    func install() throws {
        let (device, _, provider, _) = try setUp()
        let key = ConversationKey.generate()
        let deviceKey = try key.deviceKey(for: device.deviceRegistration().deviceKeyID)
        let sealed = try bundle(key, epoch: 3, retireBy: 1_800_000_000, provider: provider, to: device)
        #expect(try device.install(sealed) == .installed)
        #expect(try device.install(sealed) == .alreadyInstalled)
        #expect(storeError { try device.key(for: key.id) } == .itemNotFound, "K itself never reaches the device")
        let stored = try device.key(for: deviceKey.id)
        #expect(stored.key == deviceKey)
        #expect(stored.item.conversation == "c" && stored.item.epoch == 3 && stored.item.notAfter == 1_800_000_000)
        #expect(try device.bundleRecord(conversation: "c") == KeyBundleConversationRecord(highWater: 3, highWaterSince: since, purgedThrough: 0))
        // A second bundle for the same key (fresh ephemeral) is also already installed.
        #expect(try device.install(bundle(key, epoch: 3, retireBy: 1_800_000_000, provider: provider, to: device)) == .alreadyInstalled)
        let reported = try device.installReportingConversation(sealed)
        #expect(reported.conversation == "c" && reported.epoch == 3 && reported.keyID == deviceKey.id)
    }

    @Test("install refuses, with its reason and nothing stored: another device, unknown provider, expired, envelope mismatch, conflicts")
    func installRefusals() throws {
        let clock = ManualClock()
        let (device, directory, provider, _) = try setUp(clock: clock)
        let otherDevice = try makeStore(TemporaryDirectory(), clock: clock)
        try otherDevice.createDeviceKey()
        func reason(_ bundle: KeyBundle, expected: KeyID? = nil) -> KeyBundleReason? {
            do { _ = try device.install(bundle, expectedKeyID: expected); return nil } catch { return error.reason }
        }
        let key = ConversationKey.generate()
        let deviceKey = try key.deviceKey(for: device.deviceRegistration().deviceKeyID)
        #expect(reason(try bundle(key, provider: provider, to: otherDevice)) == .bundleAuthenticationFailed)
        let unpinned = try directory.asDirectory.createProviderKey()
        #expect(reason(try bundle(key, provider: directory.asDirectory.providerKey(id: unpinned.id), to: device)) == .unknownProvider)
        #expect(reason(try bundle(key, expires: clock.now - 1, provider: provider, to: device)) == .bundleExpired)
        #expect(reason(try bundle(key, provider: provider, to: device), expected: key.id) == .envelopeMismatch)
        #expect(try device.items().isEmpty)
        #expect(try device.bundleRecord(conversation: "c") == nil, "no record for a refused bundle")
        #expect(try device.install(bundle(key, provider: provider, to: device), expectedKeyID: deviceKey.id) == .installed)
        #expect(reason(try bundle(.generate(), provider: provider, to: device)) == .conflictingKey)
        #expect(reason(try bundle(key, epoch: 2, provider: provider, to: device)) == .conflictingKey)
        #expect(reason(try bundle(key, conversation: "d", provider: provider, to: device)) == .conflictingKey)
        #expect(try device.items().count == 1)
    }

    @Test("a store without a device key, or a locked one, reports store_locked")
    func storeLocked() throws {
        let (device, _, provider, dir) = try setUp()
        let sealed = try bundle(.generate(), provider: provider, to: device)
        let empty = try makeStore(TemporaryDirectory())
        do { try empty.install(sealed); Issue.record("installed without a device key") } catch { #expect(error.reason == .storeLocked) }
        try RawDatabase(dir.database).execute("PRAGMA user_version = 10")
        do { try device.install(sealed); Issue.record("installed into an unusable store") } catch { #expect(error.reason == .storeLocked) }
    }

    @Test("the rotation a bundle delivers becomes the current key; the earlier epoch is retired at the new one's since, not at the install time")
    func rotationByBundle() throws {
        let clock = ManualClock()
        let (device, _, provider, _) = try setUp(clock: clock)
        let id = try device.deviceRegistration().deviceKeyID
        let first = ConversationKey.generate(), second = ConversationKey.generate()
        #expect(try device.install(bundle(first, epoch: 1, since: clock.now - 500, provider: provider, to: device)) == .installed)
        #expect(try device.key(for: first.deviceKey(for: id).id).item.notAfter == nil)
        clock.advance(100)
        #expect(try device.install(bundle(second, epoch: 2, since: clock.now - 40, provider: provider, to: device)) == .installed)
        #expect(try device.key(for: first.deviceKey(for: id).id).item.notAfter == clock.now - 40)
        #expect(try device.key(for: second.deviceKey(for: id).id).item.notAfter == nil)
        #expect(try device.asDirectory.currentKey(conversation: "c").key == second.deviceKey(for: id))
        #expect(try device.bundleRecord(conversation: "c") == KeyBundleConversationRecord(highWater: 2, highWaterSince: clock.now - 40, purgedThrough: 0))
    }

    @Test("issue 29 item 2: deleting the newest provider-key row is providerKeyMissing, never the older key pair; API removal moves the record")
    func providerKeyTamperRecord() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let first = try store.asDirectory.createProviderKey(), second = try store.asDirectory.createProviderKey()
        try store.asDirectory.promoteProviderKey(id: second.id)
        #expect(try store.asDirectory.providerKey().providerKeyID == second.id)
        try RawDatabase(dir.database).execute("DELETE FROM identities WHERE kind = 'provider' AND id = \(sqlBlob(second.id.bytes))")
        // Before: providerKey() quietly returned the first (older) key pair.
        #expect(storeError { try store.asDirectory.providerKey() } == .providerKeyMissing(second.id))
        #expect(try store.asDirectory.providerKey(id: first.id).providerKeyID == first.id, "an explicit id still works")
        let third = try store.asDirectory.createProviderKey()
        #expect(storeError { try store.asDirectory.providerKey() } == .providerKeyMissing(second.id), "a new key pair is not current before promotion")
        try store.asDirectory.promoteProviderKey(id: third.id)
        #expect(try store.asDirectory.providerKey().providerKeyID == third.id)

        // The record deleted (with the newest row or not): no provider key is used, nor created over it.
        let other = TemporaryDirectory()
        let directory = try makeStore(other)
        let older = try directory.asDirectory.createProviderKey()
        _ = try directory.asDirectory.createProviderKey()
        try RawDatabase(other.database).execute("DELETE FROM meta WHERE name = 'provider_key'")
        #expect(storeError { try directory.asDirectory.providerKey() } == .providerKeyMissing(nil))
        #expect(storeError { try directory.asDirectory.createProviderKey() } == .providerKeyMissing(nil))
        // An edited record (pointing at the older key) does not verify.
        try RawDatabase(other.database).execute(
            "INSERT INTO meta (name, value) VALUES ('provider_key', \(sqlBlob(older.id.bytes + [UInt8](repeating: 0, count: 32))))")
        #expect(storeError { try directory.asDirectory.providerKey() } == .providerKeyMissing(nil))

        // Through the API: the current key pair goes only after another one is promoted.
        let api = try makeStore(TemporaryDirectory())
        let a = try api.asDirectory.createProviderKey(), b = try api.asDirectory.createProviderKey()
        try api.asDirectory.promoteProviderKey(id: b.id)
        #expect(storeError { try api.asDirectory.removeProviderKey(id: b.id) } != nil)
        try api.asDirectory.promoteProviderKey(id: a.id)
        try api.asDirectory.removeProviderKey(id: b.id)
        #expect(try api.asDirectory.providerKey().providerKeyID == a.id)
        try api.asDirectory.removeProviderKey(id: a.id)
        #expect(storeError { try api.asDirectory.providerKey() } == .itemNotFound)
        #expect(try api.asDirectory.createProviderKey().id == api.asDirectory.providerKey().providerKeyID)
    }

    @Test("format 5 -> 6: a store's newest provider key pair becomes the recorded one; master-key rotation re-tags the record")
    func providerKeyRecordMigration() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        _ = try store.asDirectory.createProviderKey()
        clock.advance(10)
        let newest = try store.asDirectory.createProviderKey()
        try RawDatabase(dir.database).execute("DROP TABLE devices; DROP TABLE epoch_marks; DELETE FROM meta WHERE name = 'provider_key'; PRAGMA user_version = 5")
        let migrated = try reopen(dir, clock: clock)
        #expect(try RawDatabase(dir.database).integer("PRAGMA user_version") == DeviceKeyStore.supportedFileVersion)
        #expect(try migrated.asDirectory.providerKey().providerKeyID == newest.id)
        _ = try migrated.rotateMasterKey(to: .keyFile(path: dir.file("new.key"), createIfMissing: true))
        let rotated = try DeviceKeyStore(directory: dir.store, masterKey: .keyFile(path: dir.file("new.key")), clock: clock.clock)
        #expect(try rotated.asDirectory.providerKey().providerKeyID == newest.id)
    }

    @Test("installing a newer epoch retires an earlier one that has a lifetime too (issue 24 item 4): min(its not-after, since)")
    func installRetiresAKeyWithALifetime() throws {
        let clock = ManualClock()
        let (device, _, provider, _) = try setUp(clock: clock)
        let first = ConversationKey.generate(), second = ConversationKey.generate()
        // Epoch 1 added by hand with a 90-day lifetime (`store add --not-after`).
        try device.add(first, conversation: "c", epoch: 1, notAfter: clock.now + 90 * 86_400)
        clock.advance(100)
        #expect(try device.install(bundle(second, epoch: 2, since: clock.now - 40, provider: provider, to: device)) == .installed)
        #expect(try device.key(for: first.id).item.notAfter == clock.now - 40, "retired at epoch 2's since, not at the end of its lifetime")
        // One whose lifetime ended before keeps its earlier not-after time.
        let third = ConversationKey.generate(), fourth = ConversationKey.generate()
        try device.add(third, conversation: "d", epoch: 1, notAfter: clock.now - 1_000)
        #expect(try device.install(bundle(fourth, conversation: "d", epoch: 2, since: clock.now - 40, provider: provider, to: device)) == .installed)
        #expect(try device.key(for: third.id).item.notAfter == clock.now - 1_000)
    }

    @Test("a late bundle of an older epoch installs retired: at its retire-by, or at the start of the stored epochs above when that is earlier; it retires nothing")
    func olderEpochInstallsRetired() throws {
        let clock = ManualClock()
        let (device, _, provider, _) = try setUp(clock: clock)
        let id = try device.deviceRegistration().deviceKeyID
        let newer = ConversationKey.generate(), older = ConversationKey.generate(), oldest = ConversationKey.generate()
        #expect(try device.install(bundle(newer, conversation: "d", epoch: 3, since: clock.now - 100, provider: provider, to: device)) == .installed)
        #expect(try device.install(bundle(older, conversation: "d", epoch: 2, since: clock.now - 900, retireBy: clock.now - 150,
                                          provider: provider, to: device)) == .installedRetired)
        #expect(try device.key(for: older.deviceKey(for: id).id).item.notAfter == clock.now - 150)
        // A "current" bundle of epoch 1 (recorded before the rotations): retired at epoch 2's start (SPEC §16.5 9f), not at S_H.
        #expect(try device.install(bundle(oldest, conversation: "d", epoch: 1, since: clock.now - 2_000, provider: provider, to: device))
            == .installedRetired)
        #expect(try device.key(for: oldest.deviceKey(for: id).id).item.notAfter == clock.now - 900)
        #expect(try device.key(for: newer.deviceKey(for: id).id).item.notAfter == nil)
        #expect(try device.asDirectory.currentKey(conversation: "d").key == newer.deviceKey(for: id))
    }

    @Test("a master-key rotation reseals the device key and the pinned keys: bundles still install under the new key")
    func masterKeyRotationKeepsIdentities() throws {
        let (device, _, provider, dir) = try setUp()
        let registration = try device.deviceRegistration()
        let rotation = try device.rotateMasterKey(to: .keyFile(path: dir.file("new.key"), createIfMissing: true))
        #expect(rotation.resealedIdentities == 2)
        let reopened = try DeviceKeyStore(directory: dir.store, masterKey: .keyFile(path: dir.file("new.key")))
        #expect(try reopened.deviceRegistration() == registration)
        #expect(try reopened.pinnedProviderKeys() == [provider.publicKey])
        let key = ConversationKey.generate()
        #expect(try reopened.install(bundle(key, provider: provider, to: reopened)) == .installed)
        #expect(try reopened.key(for: key.deviceKey(for: registration.deviceKeyID).id).key == key.deviceKey(for: registration.deviceKeyID))
    }
}
