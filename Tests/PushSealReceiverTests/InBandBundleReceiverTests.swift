import Foundation
import PushSealCore
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import PushSealReceiver
import Testing

/// The receiver with an in-band key bundle (SPEC §16.7): installed first, only when it carries the
/// envelope's key, then the envelope is opened; a bad bundle never prevents opening with a key
/// the device already has.
@Suite("Receiver with in-band key bundles")
struct InBandBundleReceiverTests {
    /// A device store (device key, pinned provider, keyA for conversationA at epoch 1).
    final class Device {
        let directory: String
        let store: DeviceKeyStore
        let provider = IdentityKeyPair.generate()

        init() throws {
            directory = NSTemporaryDirectory() + "pushseal-receiver-bundle-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            store = try DeviceKeyStore(directory: directory, masterKey: .keyFile(path: directory + "/master.key", createIfMissing: true), create: true, clock: { now })
            try store.add(keyA, conversation: conversationA, epoch: 1)
            try store.createDeviceKey()
            try store.pinProviderKey(provider.publicKey)
        }

        var receiver: Receiver {
            makeReceiver(KeyStoreKeySource(directory: directory, masterKey: .keyFile(path: directory + "/master.key"), clock: { now }))
        }

        /// The bundle delivering this device's key of conversation key `key` (K).
        func bundle(_ key: ConversationKey, epoch: Int64, since: Int64 = now - 60, retireBy: Int64? = nil, expires: Int64 = now + 86_400,
                    provider: IdentityKeyPair? = nil) throws -> String {
            try KeyBundle.seal(conversationKey: key, conversation: conversationA, epoch: epoch, since: since, retireBy: retireBy, expires: expires,
                               provider: provider ?? self.provider, device: store.deviceRegistration()).text
        }

        /// This device's key K_d of conversation key `key`.
        func deviceKey(_ key: ConversationKey) throws -> ConversationKey { key.deviceKey(for: try store.deviceRegistration().deviceKeyID) }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    static func payload(wire: String, bundle: String) -> [UInt8] {
        Array(#"{"aps":{"alert":{"body":"New message"},"mutable-content":1},"pushseal":"\#(wire)","pushseal-bundle":\#(bundle)}"#.utf8)
    }

    @Test("a rotation reaches the device in band: the new epoch's first notification installs its key and decrypts")
    func rotationInBand() throws {
        let device = try Device()
        let newKey = ConversationKey.generate()
        let wire = seal(contentA(), key: try device.deviceKey(newKey))
        #expect(device.receiver.open(.json(Array(apns(wire: wire).utf8))).reason == .unknownKey, "without the bundle")
        let opened = device.receiver.open(.json(Self.payload(wire: wire, bundle: "\"\(try device.bundle(newKey, epoch: 2))\"")))
        #expect(opened.outcome == .decrypted)
        #expect(opened.keyBundle == .installed)
        #expect(try device.store.asDirectory.currentKey(conversation: conversationA).key == device.deviceKey(newKey))
        #expect(try device.store.key(for: keyA.id).item.notAfter == now - 60, "epoch 1 retired at the provider's since")
        let again = device.receiver.open(.json(Self.payload(
            wire: seal(contentA(mid: "m2"), key: try device.deviceKey(newKey)), bundle: "\"\(try device.bundle(newKey, epoch: 2))\"")))
        #expect(again.outcome == .decrypted)
        #expect(again.keyBundle == .alreadyInstalled)
    }

    @Test("a bad bundle is reported and the notification still opens with the key the device has", arguments: [
        "forged", "expired", "garbage", "number", "otherKey", "formatOne",
    ])
    func badBundleNeverBlocks(kind: String) throws {
        let device = try Device()
        let bundle: String
        let expected: KeyBundleReason
        switch kind {
        case "forged": (bundle, expected) = ("\"\(try device.bundle(.generate(), epoch: 2, provider: .generate()))\"", .unknownProvider)
        case "expired": (bundle, expected) = ("\"\(try device.bundle(.generate(), epoch: 2, since: now - 100, expires: now - 1))\"", .bundleExpired)
        case "garbage": (bundle, expected) = ("\"not a bundle\"", .malformedBundle)
        case "number": (bundle, expected) = ("17", .malformedBundle)
        case "formatOne": (bundle, expected) = ("\"AQ\(String(repeating: "A", count: 200))\"", .unsupportedBundleVersion)
        // A genuine bundle of another key than the envelope's: never installed in band.
        default: (bundle, expected) = ("\"\(try device.bundle(.generate(), epoch: 2))\"", .envelopeMismatch)
        }
        let opened = device.receiver.open(.json(Self.payload(wire: seal(contentA()), bundle: bundle)))
        #expect(opened.outcome == .decrypted)
        #expect(opened.body == .plain("Hello from A"))
        guard case let .refused(error)? = opened.keyBundle else { Issue.record("expected a refusal, got \(String(describing: opened.keyBundle))"); return }
        #expect(error.reason == expected)
        #expect(try device.store.items().count == 1, "nothing installed")
    }

    @Test("userInfo and FCM data maps carry the bundle too; a key source without a device key refuses it as store_locked")
    func otherForms() throws {
        let device = try Device()
        let newKey = ConversationKey.generate()
        let wire = seal(contentA(), key: try device.deviceKey(newKey))
        let text = try device.bundle(newKey, epoch: 2)
        var info = userInfo(pushseal: .string(wire))
        info["pushseal-bundle"] = .string(text)
        #expect(device.receiver.open(.userInfo(info)).keyBundle == .installed)
        #expect(device.receiver.open(.fcmData(["pushseal": seal(contentA(mid: "m3"), key: try device.deviceKey(newKey)), "pushseal-bundle": text]))
            .keyBundle == .alreadyInstalled)
        let single = makeReceiver(sourceA()).open(.json(Self.payload(wire: seal(contentA()), bundle: "\"\(text)\"")))
        #expect(single.outcome == .decrypted)
        #expect(single.keyBundle.map(\.code) == "store_locked")
        #expect(makeReceiver(sourceA()).open(.json(Array(apns(wire: seal(contentA())).utf8))).keyBundle == nil)
    }

    @Test("a duplicated bundle member makes the payload not_sealed (SPEC §10.1), as any duplicate")
    func duplicatedMember() throws {
        let device = try Device()
        let text = try device.bundle(.generate(), epoch: 2)
        let json = #"{"aps":{},"pushseal":"\#(seal(contentA()))","pushseal-bundle":"\#(text)","pushseal-bundle":"\#(text)"}"#
        #expect(device.receiver.open(.json(Array(json.utf8))).reason == .notSealed)
    }
}

/// The 0.3 forgeries of issue 25, each through the receiver as a push service would deliver it.
@Suite("Receiver: the 0.3 forgeries fail")
struct InBandForgeryTests {
    typealias Device = InBandBundleReceiverTests.Device

    @Test("a bundle of epoch 1 recorded while current, replayed with a forged envelope after epoch 2: installed retired; the forgery is retired_key")
    func replayAfterRotation() throws {
        let device = try Device()
        let k1 = ConversationKey.generate(), k2 = ConversationKey.generate()
        // Only bundles for conversation A on this device (not the key the fixture adds by hand).
        try device.store.removeConversation(conversationA)
        let recorded = try device.bundle(k1, epoch: 1, since: now - 86_400)
        #expect(try device.store.install(KeyBundle(text: recorded)) == .installed)
        #expect(try device.store.install(KeyBundle(text: device.bundle(k2, epoch: 2, since: now - 3_600))) == .installed)
        #expect(try device.store.key(for: device.deviceKey(k1).id).item.notAfter == now - 3_600)
        // The worst case: the forger holds this device's own K1_d and the recorded bundle, and the
        // old key is gone from the device (removed by hand; a purge is tested in the store).
        try device.store.remove(keyID: device.deviceKey(k1).id)
        let forged = seal(contentA(), key: try device.deviceKey(k1))
        let opened = device.receiver.open(.json(InBandBundleReceiverTests.payload(wire: forged, bundle: "\"\(recorded)\"")))
        #expect(opened.keyBundle == .installedRetired)
        #expect(opened.reason == .retiredKey, "ts now, retired at epoch 2's since")
        #expect(try device.store.key(for: device.deviceKey(k1).id).item.notAfter == now - 3_600)
    }
}

/// Migration from 0.3 (SPEC §16.9): a device that holds K itself from a format-1 install.
@Suite("Receiver: migration from format-1 keys")
struct FormatOneMigrationTests {
    @Test("a 0.3 device keeps opening K-sealed notifications; the first per-device notification installs K_d in band and retires K at since")
    func migration() throws {
        let device = try InBandBundleReceiverTests.Device()  // holds keyA (epoch 1) as a format-1 install left it: K itself
        let late = seal(contentA(mid: "m-late", ts: now - 120), key: keyA)
        #expect(device.receiver.open(.json(Array(apns(wire: late).utf8))).outcome == .decrypted, "K-sealed, before the rotation")
        let k2 = ConversationKey.generate()
        let since = now - 3_600
        let first = seal(contentA(mid: "m-new"), key: try device.deviceKey(k2))
        let opened = device.receiver.open(.json(InBandBundleReceiverTests.payload(
            wire: first, bundle: "\"\(try device.bundle(k2, epoch: 2, since: since))\"")))
        #expect(opened.outcome == .decrypted)
        #expect(opened.keyBundle == .installed)
        #expect(try device.store.key(for: keyA.id).item.notAfter == since, "old K retired at since")
        // A notification sealed under K before the rotation still opens (late delivery) ...
        #expect(device.receiver.open(.json(Array(apns(wire: seal(contentA(mid: "m-late2", ts: since - 10), key: keyA)).utf8))).outcome == .decrypted)
        // ... one claiming a later time is a forgery with the old key: retired_key.
        let forged = seal(contentA(mid: "m-forged", ts: now), key: keyA)
        #expect(device.receiver.open(.json(Array(apns(wire: forged).utf8))).reason == .retiredKey)
    }
}
