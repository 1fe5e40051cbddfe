import Foundation
import PushSealCore
import PushSealKeyStore
import PushSealReceiver
import Testing

/// The receiver with an in-band key bundle (SPEC §16.7): installed first, then the envelope is
/// opened; a bad bundle never prevents opening with a key the device already has.
@Suite("Receiver with in-band key bundles")
struct InBandBundleReceiverTests {
    /// A device store (device key, pinned provider, keyA for conversationA at epoch 1).
    final class Device {
        let directory: String
        let store: KeyStore
        let provider = IdentityKeyPair.generate()

        init() throws {
            directory = NSTemporaryDirectory() + "pushseal-receiver-bundle-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            store = try KeyStore(directory: directory, masterKey: .keyFile(path: directory + "/master.key", createIfMissing: true), create: true, clock: { now })
            try store.add(keyA, conversation: conversationA, epoch: 1)
            try store.createDeviceKey()
            try store.pinProviderKey(provider.publicKey)
        }

        var receiver: Receiver {
            makeReceiver(KeyStoreKeySource(directory: directory, masterKey: .keyFile(path: directory + "/master.key"), clock: { now }))
        }

        func bundle(_ key: ConversationKey, epoch: Int64, notAfter: Int64? = nil, provider: IdentityKeyPair? = nil) throws -> String {
            try KeyBundle.seal(key, conversation: conversationA, epoch: epoch, notAfter: notAfter, provider: provider ?? self.provider,
                               devicePublicKey: store.deviceRegistration().publicKey).text
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    static func payload(wire: String, bundle: String) -> [UInt8] {
        Array(#"{"aps":{"alert":{"body":"New message"},"mutable-content":1},"pushseal":"\#(wire)","pushseal-bundle":\#(bundle)}"#.utf8)
    }

    @Test("a rotation reaches the device in band: the new epoch's first notification installs its key and decrypts")
    func rotationInBand() throws {
        let device = try Device()
        let newKey = ConversationKey.generate()
        let wire = seal(contentA(), key: newKey)
        #expect(device.receiver.open(json: Array(apns(wire: wire).utf8)).reason == .unknownKey, "without the bundle")
        let opened = device.receiver.open(json: Self.payload(wire: wire, bundle: "\"\(try device.bundle(newKey, epoch: 2))\""))
        #expect(opened.outcome == .decrypted)
        #expect(opened.keyBundle == .installed)
        #expect(try device.store.currentKey(conversation: conversationA).key == newKey)
        let again = device.receiver.open(json: Self.payload(wire: seal(contentA(mid: "m2"), key: newKey), bundle: "\"\(try device.bundle(newKey, epoch: 2))\""))
        #expect(again.outcome == .decrypted)
        #expect(again.keyBundle == .alreadyInstalled)
    }

    @Test("a bad bundle is reported and the notification still opens with the key the device has", arguments: [
        "forged", "expired", "garbage", "number", "wrongKeyForEpoch",
    ])
    func badBundleNeverBlocks(kind: String) throws {
        let device = try Device()
        let bundle: String
        let expected: KeyBundleReason
        switch kind {
        case "forged": (bundle, expected) = ("\"\(try device.bundle(.generate(), epoch: 2, provider: .generate()))\"", .unknownProvider)
        case "expired": (bundle, expected) = ("\"\(try device.bundle(.generate(), epoch: 2, notAfter: now - 1))\"", .bundleExpired)
        case "garbage": (bundle, expected) = ("\"not a bundle\"", .malformedBundle)
        case "number": (bundle, expected) = ("17", .malformedBundle)
        default: (bundle, expected) = ("\"\(try device.bundle(.generate(), epoch: 1))\"", .conflictingKey)
        }
        let opened = device.receiver.open(json: Self.payload(wire: seal(contentA()), bundle: bundle))
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
        let wire = seal(contentA(), key: newKey)
        let text = try device.bundle(newKey, epoch: 2)
        var info = userInfo(pushseal: .string(wire))
        info["pushseal-bundle"] = .string(text)
        #expect(device.receiver.open(userInfo: info).keyBundle == .installed)
        #expect(device.receiver.open(fcmData: ["pushseal": seal(contentA(mid: "m3"), key: newKey), "pushseal-bundle": text]).keyBundle == .alreadyInstalled)
        let single = makeReceiver(sourceA()).open(json: Self.payload(wire: seal(contentA()), bundle: "\"\(text)\""))
        #expect(single.outcome == .decrypted)
        #expect(single.keyBundle.map(\.code) == "store_locked")
        #expect(makeReceiver(sourceA()).open(json: Array(apns(wire: seal(contentA())).utf8)).keyBundle == nil)
    }

    @Test("a duplicated bundle member makes the payload not_sealed (SPEC §10.1), as any duplicate")
    func duplicatedMember() throws {
        let device = try Device()
        let text = try device.bundle(.generate(), epoch: 2)
        let json = #"{"aps":{},"pushseal":"\#(seal(contentA()))","pushseal-bundle":"\#(text)","pushseal-bundle":"\#(text)"}"#
        #expect(device.receiver.open(json: Array(json.utf8)).reason == .notSealed)
    }
}
