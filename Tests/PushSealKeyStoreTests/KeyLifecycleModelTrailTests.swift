import PushSealCore
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing

/// The counterexamples Spin found in `Models/key-lifecycle.pml` (Models/README.md, "Trails"), replayed against
/// the device store's install path. Each mutant's trail is the attack the removed rule lets through; the test
/// shows the store refuses it. Trails that an existing test already replays step for step are named there, not
/// repeated here (README table).
@Suite("Key-lifecycle model trails (Models/key-lifecycle.pml)")
struct KeyLifecycleModelTrailTests {
    typealias World = BundleInstallRuleTests.World

    @Test("trail no-high-water: a bundle of epoch 1 recorded while current, replayed after epoch 2, installs only retired; the high-water stays 2")
    func replayBelowHighWater() throws {
        let w = try World()
        let k1 = ConversationKey.generate(), k2 = ConversationKey.generate()
        let recorded = try w.bundle(k1, epoch: 1, since: w.clock.now)   // the channel keeps it, delivers it later
        w.clock.advance(1)
        let rotatedAt = w.clock.now
        #expect(try w.device.install(w.bundle(k2, epoch: 2, since: rotatedAt)) == .installed)
        w.clock.advance(1)
        #expect(try w.device.install(recorded) == .installedRetired)
        #expect(try w.device.bundleRecord(conversation: "c")?.highWater == 2, "the newest epoch never moves backwards")
        #expect(try w.device.bundleRecord(conversation: "c")?.highWaterSince == rotatedAt)
        // no-retire-on-install: the replayed "current" bundle carries no retire-by; the device gives it S_H.
        #expect(try w.device.key(for: k1.deviceKey(for: w.deviceID).id).item.notAfter == rotatedAt)
        #expect(try w.device.asDirectory.currentKey(conversation: "c").key == k2.deviceKey(for: w.deviceID))
        #expect(try w.device.install(recorded) == .alreadyInstalled, "replayed again: nothing changes")
        #expect(try w.device.key(for: k1.deviceKey(for: w.deviceID).id).item.notAfter == rotatedAt, "never loosened")
    }

    @Test("trail no-tombstone: install 1, install 2, purge 1, replay 1's bundle: epoch_purged, and the key stays gone")
    func purgedEpochStaysPurged() throws {
        let w = try World()
        let k1 = ConversationKey.generate(), k2 = ConversationKey.generate()
        let recorded = try w.bundle(k1, epoch: 1, since: w.clock.now)
        #expect(try w.device.install(recorded) == .installed)
        #expect(try w.device.install(w.bundle(k2, epoch: 2, since: w.clock.now + 1)) == .installed)
        w.clock.advance(DeviceKeyStore.defaultGracePeriod + 2)
        #expect(try w.device.purgeExpired() == 1)
        #expect(w.reason(recorded) == .epochPurged)
        // A retired bundle of the purged epoch (what the provider may still send) is refused the same way.
        #expect(w.reason(try w.bundle(k1, epoch: 1, since: 0, retireBy: 1)) == .epochPurged)
        #expect(storeError { try w.device.key(for: k1.deviceKey(for: w.deviceID).id) } == .itemNotFound)
    }

    @Test("trail shared-key: the removed member's key for its own device is no key of another member's device")
    func removedMembersKeyOpensNothingElse() throws {
        let member = try World(), removed = try World()
        let k1 = ConversationKey.generate()
        #expect(try member.device.install(member.bundle(k1, epoch: 1, since: 0)) == .installed)
        let removedKey = k1.deviceKey(for: removed.deviceID)
        #expect(removedKey != k1.deviceKey(for: member.deviceID))
        #expect(removedKey.id != k1.deviceKey(for: member.deviceID).id)
        // The member's device holds no key under the removed member's kid: its forgeries are unknown_key there.
        #expect(storeError { try member.device.key(for: removedKey.id) } == .itemNotFound)
    }

    @Test("finding F1: a replayed current bundle of epoch 1 below H = 3 is retired at epoch 2's start, not S_H (epoch 3's since)")
    func retiredInstallUsesNextEpochsStart() throws {
        // Spin's trail of -DATTACKER_HOLDS_K: epoch 1 retired at r1 (epoch 2's since), epoch 2 at r2. The device
        // holds 2 and 3, never 1; the channel replays 1's bundle recorded while it was current. With S_H alone K1
        // got the retire-by r2 > r1, and whoever holds epoch 1's root K forged with ts in (r1, r2]. SPEC §16.5 9f:
        // the earliest recorded start (created time, min(since, install time)) of the stored epochs above bounds
        // it. The forgery itself, through the receiver: RetirementTests.nextEpochsStartRefusesForgery.
        let w = try World()
        let k1 = ConversationKey.generate(), k2 = ConversationKey.generate(), k3 = ConversationKey.generate()
        let recorded = try w.bundle(k1, epoch: 1, since: 0)
        let r1 = w.clock.now + 1, r2 = w.clock.now + 2
        w.clock.set(r2 + 1)
        #expect(try w.device.install(w.bundle(k2, epoch: 2, since: r1)) == .installed)
        #expect(try w.device.install(w.bundle(k3, epoch: 3, since: r2)) == .installed)
        #expect(try w.device.key(for: k2.deviceKey(for: w.deviceID).id).item.createdAt == r1, "the recorded start: min(since, install time)")
        #expect(try w.device.install(recorded) == .installedRetired)
        #expect(try w.device.key(for: k1.deviceKey(for: w.deviceID).id).item.notAfter == r1, "epoch 2's start, not S_H = \(r2)")
        #expect(try w.device.key(for: k2.deviceKey(for: w.deviceID).id).item.notAfter == r2)
        #expect(try w.device.bundleRecord(conversation: "c")?.highWaterSince == r2, "the record is unchanged")
    }

    @Test("finding F1, installed out of order: 3, then 2 below H, then 1: epoch 1 is retired at epoch 2's start")
    func retiredInstallsOutOfOrder() throws {
        let w = try World()
        let k1 = ConversationKey.generate(), k2 = ConversationKey.generate(), k3 = ConversationKey.generate()
        let r1 = w.clock.now + 1, r2 = w.clock.now + 2
        w.clock.set(r2 + 10)
        #expect(try w.device.install(w.bundle(k3, epoch: 3, since: r2)) == .installed)
        #expect(try w.device.install(w.bundle(k2, epoch: 2, since: r1)) == .installedRetired)
        #expect(try w.device.key(for: k2.deviceKey(for: w.deviceID).id).item.notAfter == r2)
        #expect(try w.device.install(w.bundle(k1, epoch: 1, since: 0)) == .installedRetired)
        #expect(try w.device.key(for: k1.deviceKey(for: w.deviceID).id).item.notAfter == r1)
        // A since in the future of the device's clock: the start recorded is the install time.
        let k4 = ConversationKey.generate()
        #expect(try w.device.install(w.bundle(k4, epoch: 4, since: w.clock.now + 100)) == .installed)
        #expect(try w.device.key(for: k4.deviceKey(for: w.deviceID).id).item.createdAt == w.clock.now)
    }
}
