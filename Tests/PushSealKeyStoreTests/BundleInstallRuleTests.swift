import PushSealCore
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing

/// The device's installation rules in the store (SPEC §16.5 step 9) and the 0.3 forgeries of
/// issue 25, each attacked through the store's install path.
@Suite("Bundle installation rules and the 0.3 forgeries")
struct BundleInstallRuleTests {
    struct World {
        let device: DeviceKeyStore
        let directory: DeviceKeyStore
        let provider: IdentityKeyPair
        let clock: ManualClock
        let dir: TemporaryDirectory

        init() throws {
            clock = ManualClock()
            dir = TemporaryDirectory()
            device = try makeStore(dir, clock: clock)
            directory = try makeStore(TemporaryDirectory(), clock: clock)
            let info = try directory.asDirectory.createProviderKey()
            try device.createDeviceKey()
            try device.pinProviderKey(info.publicKey)
            provider = try directory.asDirectory.providerKey()
        }

        var deviceID: KeyID { try! device.deviceRegistration().deviceKeyID }

        /// The bundle the provider seals for epoch `epoch` of "c" (key `key`).
        func bundle(_ key: ConversationKey, epoch: Int64, since: Int64, retireBy: Int64? = nil, expires: Int64? = nil) throws -> KeyBundle {
            try KeyBundle.seal(conversationKey: key, conversation: "c", epoch: epoch, since: since, retireBy: retireBy,
                               expires: expires ?? clock.now + 365 * 86_400, provider: provider, device: device.deviceRegistration())
        }

        func reason(_ bundle: KeyBundle) -> KeyBundleReason? {
            do { _ = try device.install(bundle); return nil } catch { return error.reason }
        }
    }

    @Test("0.3 forgery 1: a bundle recorded while its epoch was current, replayed after a rotation and a purge, is epoch_purged for ever")
    func replayAfterPurge() throws {
        let w = try World()
        let k1 = ConversationKey.generate(), k2 = ConversationKey.generate()
        let recorded = try w.bundle(k1, epoch: 1, since: w.clock.now)
        #expect(try w.device.install(recorded) == .installed)
        w.clock.advance(86_400)
        #expect(try w.device.install(w.bundle(k2, epoch: 2, since: w.clock.now)) == .installed)
        w.clock.advance(40 * 86_400)
        #expect(try w.device.purgeExpired() == 1)
        #expect(try w.device.bundleRecord(conversation: "c")?.purgedThrough == 1)
        #expect(w.reason(recorded) == .epochPurged)
        w.clock.advance(365 * 86_400 - 41 * 86_400 - 1)
        #expect(w.reason(recorded) == .epochPurged, "a year later")
        #expect(storeError { try w.device.key(for: k1.deviceKey(for: w.deviceID).id) } == .itemNotFound)
        #expect(try w.device.asDirectory.currentKey(conversation: "c").key == k2.deviceKey(for: w.deviceID))
    }

    @Test("0.3 forgery 2: after the logout wipe the device key is new, so no bundle recorded before it opens")
    func replayAfterLogoutWipe() throws {
        let w = try World()
        let k1 = ConversationKey.generate()
        let recorded = try w.bundle(k1, epoch: 1, since: w.clock.now)
        #expect(try w.device.install(recorded) == .installed)
        let before = try w.device.deviceRegistration()
        let (removed, registration) = try w.device.wipeDevice()
        #expect(removed == 1)
        #expect(registration != before)
        #expect(try w.device.deviceRegistration() == registration)
        #expect(try w.device.items().isEmpty)
        #expect(try w.device.bundleRecord(conversation: "c") == nil)
        #expect(try w.device.pinnedProviderKeys() == [w.provider.publicKey], "pins stay")
        #expect(w.reason(recorded) == .bundleAuthenticationFailed)
        // The new registration works.
        #expect(try w.device.install(w.bundle(k1, epoch: 1, since: w.clock.now)) == .installed)
        let plain = try makeStore(TemporaryDirectory())
        #expect(storeError { try plain.wipeDevice() } == .itemNotFound)
    }

    @Test("0.3 forgery 3: a push service that delays the new epoch's bundle does not extend the old key: retired at the provider's since")
    func delayedRetireBy() throws {
        let w = try World()
        let k1 = ConversationKey.generate(), k2 = ConversationKey.generate()
        #expect(try w.device.install(w.bundle(k1, epoch: 1, since: w.clock.now)) == .installed)
        let rotatedAt = w.clock.now + 3_600
        w.clock.advance(10 * 86_400)  // the bundle of epoch 2 arrives ten days late
        #expect(try w.device.install(w.bundle(k2, epoch: 2, since: rotatedAt)) == .installed)
        #expect(try w.device.key(for: k1.deviceKey(for: w.deviceID).id).item.notAfter == rotatedAt)
    }

    @Test("0.3 forgery 4: an authentic bundle at epoch 2^63-1 (what KCI with a stolen device store can make) is epoch_out_of_range; nothing changes")
    func epochSpaceExhaustion() throws {
        let w = try World()
        let k1 = ConversationKey.generate()
        #expect(try w.device.install(w.bundle(k1, epoch: 1, since: w.clock.now)) == .installed)
        #expect(w.reason(try w.bundle(.generate(), epoch: Int64.max, since: w.clock.now)) == .epochOutOfRange)
        #expect(w.reason(try w.bundle(.generate(), epoch: 1 + 65_537, since: w.clock.now)) == .epochOutOfRange)
        #expect(try w.device.bundleRecord(conversation: "c")?.highWater == 1)
        #expect(try w.device.key(for: k1.deviceKey(for: w.deviceID).id).item.notAfter == nil, "the genuine key is not retired")
        #expect(try w.device.install(w.bundle(.generate(), epoch: 1 + 65_536, since: w.clock.now)) == .installed, "the largest step")
    }

    @Test("0.3 forgery 5: a retired epoch can be delivered: it installs with its retire-by (installed on a fresh device, installed_retired below H)")
    func retiredEpochDelivered() throws {
        let w = try World()
        let first = try w.directory.asDirectory.rotate(conversation: "c")
        w.clock.advance(100)
        let second = try w.directory.asDirectory.rotate(conversation: "c")
        let retired = try w.directory.key(for: first.item.keyID)
        let retireBy = try #require(retired.item.notAfter)
        let oldBundle = try w.bundle(retired.key, epoch: 1, since: retired.item.createdAt, retireBy: retireBy, expires: w.clock.now + 86_400)
        w.clock.advance(86_400 - 1)
        #expect(try w.device.install(oldBundle) == .installed, "a day later: not bundle_expired")
        #expect(try w.device.key(for: retired.key.deviceKey(for: w.deviceID).id).item.notAfter == retireBy)
        // Another device that already has epoch 2.
        let v = try World()
        v.clock.set(w.clock.now)
        #expect(try v.device.install(v.bundle(second.key, epoch: 2, since: second.item.createdAt)) == .installed)
        let late = try v.bundle(retired.key, epoch: 1, since: retired.item.createdAt, retireBy: retireBy)
        #expect(try v.device.install(late) == .installedRetired)
        #expect(try v.device.key(for: retired.key.deviceKey(for: v.deviceID).id).item.notAfter == min(retireBy, second.item.createdAt))
    }

    @Test("an edited bundle record fails the install closed (store_locked); a deleted one falls back to the stored rows")
    func recordAuthenticated() throws {
        let w = try World()
        let k1 = ConversationKey.generate(), k3 = ConversationKey.generate()
        #expect(try w.device.install(w.bundle(k1, epoch: 5, since: w.clock.now)) == .installed)
        try RawDatabase(w.dir.database).execute("UPDATE bundle_records SET purged_through = 0, high_water = 1")
        #expect(w.reason(try w.bundle(k3, epoch: 3, since: w.clock.now)) == .storeLocked)
        #expect(storeError { try w.device.bundleRecord(conversation: "c") } != nil)
        try RawDatabase(w.dir.database).execute("DELETE FROM bundle_records")
        // H comes back from the newest row (epoch 5): epoch 3 installs only retired.
        #expect(try w.device.install(w.bundle(k3, epoch: 3, since: w.clock.now)) == .installedRetired)
        #expect(try w.device.bundleRecord(conversation: "c")?.highWater == 5)
    }

    @Test("migration: a 0.3 device holding K (format-1 install, file format 4) keeps K; the first per-device bundle installs K_d and retires K at since")
    func migrationFromFormatFour() throws {
        let w = try World()
        let k = ConversationKey.generate()
        try w.device.add(k, conversation: "c", epoch: 1)  // what a format-1 bundle installed: K itself
        try RawDatabase(w.dir.database).execute("DROP TABLE devices; DROP TABLE epoch_marks; DELETE FROM meta WHERE name = 'provider_key'; DROP TABLE bundle_records; DROP TABLE shared_epochs; PRAGMA user_version = 4")
        let migrated = try reopen(w.dir, clock: w.clock)
        #expect(try migrated.bundleRecord(conversation: "c") == KeyBundleConversationRecord(highWater: 1, highWaterSince: w.clock.now, purgedThrough: 0))
        #expect(try migrated.key(for: k.id).key == k)
        let rotatedAt = w.clock.now + 60
        w.clock.advance(600)
        let k2 = ConversationKey.generate()
        #expect(try migrated.install(w.bundle(k2, epoch: 2, since: rotatedAt)) == .installed)
        #expect(try migrated.key(for: k.id).item.notAfter == rotatedAt, "old K retired at since")
        #expect(try migrated.asDirectory.currentKey(conversation: "c").key == k2.deviceKey(for: w.deviceID))
    }

    @Test("migration: a key directory's epochs from before per-device keys are shared; new epochs are not")
    func sharedEpochsMarked() throws {
        let dir = TemporaryDirectory()
        let clock = ManualClock()
        let directory = try makeStore(dir, clock: clock)
        try directory.asDirectory.rotate(conversation: "c")
        try RawDatabase(dir.database).execute("DROP TABLE devices; DROP TABLE epoch_marks; DELETE FROM meta WHERE name = 'provider_key'; DROP TABLE bundle_records; DROP TABLE shared_epochs; PRAGMA user_version = 4")
        let migrated = try reopen(dir, clock: clock)
        #expect(try migrated.isSharedEpoch(conversation: "c", epoch: 1))
        try migrated.asDirectory.rotate(conversation: "c")
        #expect(try !migrated.isSharedEpoch(conversation: "c", epoch: 2))
        #expect(try migrated.bundleRecord(conversation: "c") == nil, "a directory keeps no device records")
    }
}
