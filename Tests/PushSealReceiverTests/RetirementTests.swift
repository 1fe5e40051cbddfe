import Foundation
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import PushSealReceiver
import Testing

/// SPEC §3.5 and §10.2 step 11: a retired key opens what was sent before its retirement, and
/// nothing later (the removed-member forgery).
@Suite("Key retirement on the receiver")
struct RetirementTests {
    let skew = ReceiverConfiguration.defaultMaximumFutureSkew

    private func source(retireBy: Int64?) -> SingleConversationKey {
        SingleConversationKey(key: keyA, conversation: conversationA, retireBy: retireBy)
    }

    @Test("both sides of the boundary retireBy + maxFutureSkew")
    func boundary() {
        let retireBy = now - 86_400
        let receiver = makeReceiver(source(retireBy: retireBy))
        let atBoundary = receiver.open(.json(Array(apns(wire: seal(contentA(mid: "b0", ts: retireBy + skew))).utf8)))
        #expect(atBoundary.outcome == .decrypted && atBoundary.reason == nil)
        let past = receiver.open(.json(Array(apns(wire: seal(contentA(mid: "b1", ts: retireBy + skew + 1))).utf8)))
        #expect(past.outcome == .fallback && past.reason == .retiredKey)
        let inFlight = receiver.open(.json(Array(apns(wire: seal(contentA(mid: "b2", ts: retireBy - 3_600))).utf8)))
        #expect(inFlight.outcome == .decrypted)
    }

    @Test("the removed-member forgery: fallback without plaintext, and nothing recorded in the duplicate log")
    func forgeryFallsBackWithoutPlaintext() {
        let keySource = source(retireBy: now - 86_400)
        let receiver = makeReceiver(keySource, retainsContentBytes: true)
        let forged = receiver.open(.json(Array(apns(wire: seal(contentA(mid: "forged", ts: now))).utf8)))
        #expect(forged.reason == .retiredKey)
        #expect(forged.content == nil && forged.contentBytes == nil && forged.conversationID == nil)
        #expect(!allText(of: forged).contains { $0.contains("Hello from A") })
        #expect(forged.diagnostic?.contains("retire-by") == true)
        // Not recorded: the pair is new to the log afterwards.
        #expect(keySource.markDelivered(conversation: conversationA, messageID: "forged", envelope: []) == .first)
    }

    @Test("stale is checked first; a current key and an extreme retire-by time never trip")
    func orderAndExtremes() {
        let stale = makeReceiver(source(retireBy: now - 86_400)).open(.json(Array(apns(wire: seal(contentA(ts: now + skew + 1))).utf8)))
        #expect(stale.reason == .stale)
        #expect(makeReceiver(source(retireBy: nil)).open(.json(Array(apns(wire: seal(contentA(ts: now))).utf8))).outcome == .decrypted)
        // retireBy + skew overflows: no limit.
        #expect(makeReceiver(source(retireBy: Int64.max)).open(.json(Array(apns(wire: seal(contentA(ts: now))).utf8))).outcome == .decrypted)
        // A retire-by time before 1970 refuses even ts 0 (inside the freshness window of a huge maxAge).
        let early = makeReceiver(source(retireBy: -1_000), maximumAge: Int64.max).open(.json(Array(apns(wire: seal(contentA(ts: 0))).utf8)))
        #expect(early.reason == .retiredKey)
    }

    @Test("over the key store: a device that mirrors the rotation refuses the old key's fresh notifications")
    func keyStoreRotation() throws {
        let directory = NSTemporaryDirectory() + "pushseal-retirement-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let masterKey = MasterKeySource.keyFile(path: directory + "/master.key", createIfMissing: true)
        let rotationTime = now - 3_600
        let device = try DeviceKeyStore(directory: directory, masterKey: masterKey, create: true, clock: { rotationTime })
        try device.add(keyA, conversation: conversationA, epoch: 1)
        let source = KeyStoreKeySource(directory: directory, masterKey: .keyFile(path: directory + "/master.key"), clock: { now })
        let receiver = makeReceiver(source)
        let forged = Array(apns(wire: seal(contentA(mid: "after", ts: now - 60))).utf8)
        let inFlight = Array(apns(wire: seal(contentA(mid: "before", ts: rotationTime - 10))).utf8)

        // Before the rotation the old key is current: the notification opens.
        #expect(receiver.open(.json(forged)).outcome == .decrypted)
        _ = try device.asDirectory.rotate(conversation: conversationA, key: keyB)
        #expect(try device.key(for: keyA.id).item.notAfter == rotationTime)
        // After it: sent later than the retirement, retired_key (a fresh mid, so no duplicate shortcut).
        let forgedAgain = Array(apns(wire: seal(contentA(mid: "after-2", ts: now - 60))).utf8)
        #expect(receiver.open(.json(forgedAgain)).reason == .retiredKey)
        // Sent before it: still opens until the purge.
        #expect(receiver.open(.json(inFlight)).outcome == .decrypted)
        // The new key opens fresh notifications.
        #expect(receiver.open(.json(Array(apns(wire: seal(contentA(mid: "new", ts: now - 60), key: keyB)).utf8))).outcome == .decrypted)
    }

    @Test("finding F1 (Models/key-lifecycle.pml): epochs 2 and 3 installed, then epoch 1's replayed bundle; a forgery with ts in (since(2), since(3)] is retired_key")
    func nextEpochsStartRefusesForgery() throws {
        let directory = NSTemporaryDirectory() + "pushseal-retirement-f1-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try DeviceKeyStore(directory: directory, masterKey: .keyFile(path: directory + "/master.key", createIfMissing: true), create: true,
                                 clock: { now })
        let provider = IdentityKeyPair.generate()
        try store.createDeviceKey()
        try store.pinProviderKey(provider.publicKey)
        let registration = try store.deviceRegistration()
        func bundle(_ key: ConversationKey, epoch: Int64, since: Int64) throws -> KeyBundle {
            try KeyBundle.seal(conversationKey: key, conversation: conversationA, epoch: epoch, since: since, retireBy: nil,
                               expires: now + 86_400, provider: provider, device: registration)
        }
        let k1 = ConversationKey.generate(), k2 = ConversationKey.generate(), k3 = ConversationKey.generate()
        let since2 = now - 2 * 3_600, since3 = now - 3_600
        let recorded = try bundle(k1, epoch: 1, since: now - 3 * 3_600)  // sealed while epoch 1 was current
        #expect(try store.install(bundle(k2, epoch: 2, since: since2)) == .installed)
        #expect(try store.install(bundle(k3, epoch: 3, since: since3)) == .installed)
        #expect(try store.install(recorded) == .installedRetired)
        // The attacker holds epoch 1's root K, so it derives this device's K1_d and seals what it likes.
        let forgedKey = k1.deviceKey(for: registration.deviceKeyID)
        let receiver = makeReceiver(KeyStoreKeySource(directory: directory, masterKey: .keyFile(path: directory + "/master.key"), clock: { now }))
        for (mid, ts) in [("just-past", since2 + skew + 1), ("at-since3", since3), ("since3-plus-skew", since3 + skew)] {
            let forged = receiver.open(.json(Array(apns(wire: seal(contentA(mid: mid, ts: ts), key: forgedKey)).utf8)))
            #expect(forged.reason == .retiredKey, "ts = since(2) + \(ts - since2)")
        }
        // Sent while epoch 1 was current: opens.
        #expect(receiver.open(.json(Array(apns(wire: seal(contentA(mid: "honest", ts: since2 - 60), key: forgedKey)).utf8))).outcome == .decrypted)
    }
}
