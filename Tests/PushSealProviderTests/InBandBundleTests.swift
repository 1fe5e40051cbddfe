import Testing
import PushSealCore
import PushSealJSON
@_spi(Vectors) @testable import PushSealProvider

/// The in-band key bundle (SPEC §16.7): its member, and the size policy that counts it first.
@Suite("In-band key bundle")
struct InBandBundleTests {
    let root = testKey(1)
    let provider = IdentityKeyPair.generate()
    let device = IdentityKeyPair.generate()
    /// The device's key K_d: every notification here is sealed under it.
    var key: ConversationKey { root.deviceKey(for: device.deviceKeyID) }

    func bundle(conversation: String = "c1", root: ConversationKey? = nil) throws -> KeyBundle {
        try KeyBundle.seal(
            conversationKey: root ?? self.root, conversation: conversation, epoch: 1, since: 1_700_000_000, retireBy: nil, expires: 1_702_592_000,
            provider: provider, device: DeviceRegistration(publicKey: device.publicKey))
    }

    func content(body: String) -> NotificationContent {
        NotificationContent(conversationID: "c1", messageID: "m1", sentAt: 1_700_000_000, body: body)
    }

    func object(_ bytes: [UInt8]) throws -> JSONObject {
        try #require(try JSONParser.parse(bytes).objectValue)
    }

    @Test("APNs: a top-level \"pushseal-bundle\" string next to \"pushseal\"; the bundle is exact")
    func apnsMember() throws {
        let sealer = try NotificationSealer()
        var options = APNsOptions()
        let bundle = try bundle()
        options.keyBundle = bundle
        let request = try sealer.seal(content(body: "hi"), with: key, options: options)
        let payload = try object(request.body)
        #expect(payload["pushseal-bundle"]?.stringValue == bundle.text)
        #expect(payload["pushseal"]?.stringValue != nil)
        let plain = try sealer.seal(content(body: "hi"), with: key, options: APNsOptions())
        #expect(try object(plain.body)["pushseal-bundle"] == nil)
    }

    @Test("FCM (Android and iOS forms): the bundle goes where \"pushseal\" is")
    func fcmMember() throws {
        let sealer = try NotificationSealer()
        let bundle = try bundle()
        var android = FCMOptions(token: "token-1")
        android.keyBundle = bundle
        let message = try object(sealer.seal(content(body: "hi"), with: key, options: android).body)
        let data = message["message"]?.objectValue?["data"]?.objectValue
        #expect(data?["pushseal-bundle"]?.stringValue == bundle.text)
        var ios = FCMOptions(token: "token-1", apns: APNsOptions())
        ios.keyBundle = bundle
        let iosMessage = try object(sealer.seal(content(body: "hi"), with: key, options: ios).body)
        let apnsPayload = iosMessage["message"]?.objectValue?["apns"]?.objectValue?["payload"]?.objectValue
        #expect(apnsPayload?["pushseal-bundle"]?.stringValue == bundle.text)
    }

    @Test("a bundle of another key (or of K itself) is refused before sealing; a parsed bundle's kid is sealed, so it is not checked")
    func wrongKey() throws {
        var options = APNsOptions()
        options.keyBundle = try bundle(root: testKey(2))
        #expect(throws: ProviderError.self) { try NotificationSealer().seal(content(body: "hi"), with: key, options: options) }
        options.keyBundle = try bundle()
        #expect(throws: ProviderError.self, "sealed under K, not K_d") { try NotificationSealer().seal(content(body: "hi"), with: root, options: options) }
        #expect(try NotificationSealer().seal(content(body: "hi"), with: key, options: options).keyID == key.id)
        options.keyBundle = try KeyBundle(text: bundle(root: testKey(2)).text)
        #expect(try NotificationSealer().seal(content(body: "hi"), with: key, options: options).keyID == key.id)
    }

    @Test("the bundle is counted first: a long body is truncated to make room, the payload stays within 4096 bytes")
    func countedFirst() throws {
        let sealer = try NotificationSealer()
        let bundle = try bundle(conversation: String(repeating: "c", count: 256))
        let long = NotificationContent(conversationID: String(repeating: "c", count: 256), messageID: "m", sentAt: 1, body: String(repeating: "x", count: 3800))
        var options = APNsOptions()
        let without = try sealer.seal(long, with: key, options: options)
        options.keyBundle = bundle
        let with = try sealer.seal(long, with: key, options: options)
        #expect(with.body.count <= TransportLimit.apnsPayload)
        guard case let .truncated(original) = with.path else { Issue.record("expected truncation, got \(with.path)"); return }
        #expect(original == 3800)
        #expect(with.sizes.contentByteCount < without.sizes.contentByteCount)
        var fcm = FCMOptions(token: "t")
        fcm.keyBundle = bundle
        let message = try sealer.seal(long, with: key, options: fcm)
        let data = try #require(try object(message.body)["message"]?.objectValue?["data"]?.objectValue)
        let counted = data.members.reduce(0) { $0 + $1.name.utf8.count + ($1.value.stringValue?.utf8.count ?? 0) }
        #expect(counted <= TransportLimit.fcmData)
    }

    @Test("with a smaller limit: room for the bundle and a truncated body; then content-free; then does_not_fit", arguments: [
        (limit: 1_250, expected: "truncated"), (limit: 830, expected: "contentFree"), (limit: 740, expected: "doesNotFit"),
    ])
    func smallerLimit(limit: Int, expected: String) throws {
        let sealer = try NotificationSealer(padBlock: 1)
        let bundle = try bundle()
        var frame = PayloadFrame.apns(options: APNsOptions(), key: key).carrying(bundle)
        frame.limit = limit
        let unbundled = PayloadFrame.apns(options: APNsOptions(), key: key)
        #expect(frame.limitedOverhead == unbundled.limitedOverhead + 21 + bundle.text.utf8.count)
        do {
            let sealed = try sealer.seal(content(body: String(repeating: "y", count: 600)), key: key, frame: frame)
            #expect(sealed.payload.count <= limit)
            #expect(try object(sealed.payload)["pushseal-bundle"]?.stringValue == bundle.text)
            switch sealed.path {
            case .truncated: #expect(expected == "truncated")
            case .contentFree: #expect(expected == "contentFree")
            case .complete: Issue.record("a 600-byte body cannot fit whole")
            }
        } catch {
            #expect(expected == "doesNotFit")
            #expect((error as? ProviderError)?.code == "does_not_fit")
        }
    }
}

/// `KeyBundle.seal(conversationKey:…, devices:)`: one epoch to many devices, on every core, each
/// bundle carrying that device's own key.
@Suite("Key bundle fan-out")
struct BundleFanOutTests {
    @Test("one result per device, in order, each opening on its own device to its own K_d; a bad key fails only its own", arguments: [1, 2, 4])
    func fanOut(threads: Int) throws {
        let provider = IdentityKeyPair.generate()
        let key = testKey(3)
        var devices = (0..<37).map { _ in IdentityKeyPair.generate() }
        var registrations = try devices.map { try DeviceRegistration(publicKey: $0.publicKey) }
        registrations[5] = try DeviceRegistration(publicKey: [UInt8](repeating: 0, count: 32))  // small order: refused
        devices[5] = IdentityKeyPair.generate()
        let results = KeyBundle.seal(conversationKey: key, conversation: "c", epoch: 4, since: 10, retireBy: nil, expires: 100, provider: provider,
                                     devices: registrations, maximumThreads: threads)
        #expect(results.count == 37)
        var kids = Set<KeyID>()
        for (index, result) in results.enumerated() {
            if index == 5 {
                #expect(throws: KeyBundleSealingError.self) { try result.get() }
                continue
            }
            let opened = try result.get().open(device: devices[index], pinnedProviderKeys: [provider.publicKey], now: 0)
            #expect(opened.key == key.deviceKey(for: devices[index].deviceKeyID) && opened.conversation == "c", "device \(index)")
            #expect(opened.key != key)
            kids.insert(opened.keyID)
        }
        #expect(kids.count == 36, "every device its own kid")
        #expect(KeyBundle.seal(conversationKey: key, conversation: "c", epoch: 1, since: 0, retireBy: nil, expires: 0, provider: provider,
                               devices: []).isEmpty)
    }
}

/// Sealing notifications per device (SPEC §4.4): one content, each device's own K_d.
@Suite("Per-device sealing")
struct PerDeviceSealingTests {
    let root = testKey(4)
    let content = NotificationContent(conversationID: "c1", messageID: "m1", sentAt: 1_700_000_000, body: "hi")

    @Test("seal(conversationKey:device:) seals under K_d: the kid and thread-id are the device's, two devices share neither")
    func perDevice() throws {
        let sealer = try NotificationSealer()
        let a = KeyID(bytes: [UInt8](repeating: 1, count: 16))!, b = KeyID(bytes: [UInt8](repeating: 2, count: 16))!
        let ra = try sealer.seal(content, conversationKey: root, device: a, options: APNsOptions())
        let rb = try sealer.seal(content, conversationKey: root, device: b, options: APNsOptions())
        #expect(ra.keyID == root.deviceKey(for: a).id)
        #expect(rb.keyID == root.deviceKey(for: b).id)
        #expect(ra.keyID != rb.keyID && ra.keyID != root.id)
        let ta = try #require(try JSONParser.parse(ra.body).objectValue?["aps"]?.objectValue?["thread-id"]?.stringValue)
        let tb = try #require(try JSONParser.parse(rb.body).objectValue?["aps"]?.objectValue?["thread-id"]?.stringValue)
        #expect(ta == root.deviceKey(for: a).opaqueThreadID)
        #expect(ta != tb && ta != root.opaqueThreadID)
    }

    @Test("fan-out: one result per device in order, each sealed under its K_d; the cache derives each key once", arguments: [false, true])
    func fanOut(cached: Bool) throws {
        let sealer = try NotificationSealer()
        let devices = (0..<50).map { KeyID(bytes: [UInt8](repeating: UInt8($0), count: 16))! }
        let cache = cached ? DeviceKeyCache() : nil
        let results = sealer.seal(content, conversationKey: root, devices: devices.map { ($0, APNsOptions()) }, cache: cache)
        #expect(results.count == 50)
        for (device, result) in zip(devices, results) {
            #expect(try result.get().keyID == root.deviceKey(for: device).id)
        }
        if let cache {
            #expect(cache.count == 50)
            _ = sealer.seal(content, conversationKey: root, devices: devices.map { ($0, APNsOptions()) }, cache: cache)
            #expect(cache.count == 50, "cached per (epoch, device)")
            _ = try sealer.seal(content, conversationKey: testKey(5), device: devices[0], options: APNsOptions(), cache: cache)
            #expect(cache.count == 51, "another epoch's key is another entry")
        }
        var bad = APNsOptions()
        bad.topic = ""
        let mixed = sealer.seal(content, conversationKey: root, devices: [(devices[0], APNsOptions()), (devices[1], bad)], cache: cache)
        #expect((try? mixed[0].get()) != nil)
        #expect(throws: ProviderError.self) { try mixed[1].get() }
    }

    @Test("the cache is bounded: full, it starts over")
    func cacheBound() {
        let cache = DeviceKeyCache(capacity: 3)
        for index in 0..<3 { _ = cache.deviceKey(of: root, for: KeyID(bytes: [UInt8](repeating: UInt8(index), count: 16))!) }
        #expect(cache.count == 3)
        let fourth = KeyID(bytes: [UInt8](repeating: 9, count: 16))!
        #expect(cache.deviceKey(of: root, for: fourth) == root.deviceKey(for: fourth))
        #expect(cache.count == 1)
        cache.removeAll()
        #expect(cache.count == 0)
    }
}
