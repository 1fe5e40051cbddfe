import Testing
import PushSealCore
import PushSealJSON
@_spi(Vectors) @testable import PushSealProvider

/// The in-band key bundle (SPEC §16.7): its member, and the size policy that counts it first.
@Suite("In-band key bundle")
struct InBandBundleTests {
    let key = testKey(1)
    let provider = IdentityKeyPair.generate()
    let device = IdentityKeyPair.generate()

    func bundle(conversation: String = "c1", key: ConversationKey? = nil) throws -> KeyBundle {
        try KeyBundle.seal(key ?? self.key, conversation: conversation, epoch: 1, notAfter: nil, provider: provider, devicePublicKey: device.publicKey)
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

    @Test("a bundle of another key is refused before sealing")
    func wrongKey() throws {
        var options = APNsOptions()
        options.keyBundle = try bundle(key: testKey(2))
        #expect(throws: ProviderError.self) { try NotificationSealer().seal(content(body: "hi"), with: key, options: options) }
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
        #expect(with.body.count <= NotificationSealer.apnsPayloadLimit)
        guard case let .truncated(original) = with.path else { Issue.record("expected truncation, got \(with.path)"); return }
        #expect(original == 3800)
        #expect(with.sizes.contentByteCount < without.sizes.contentByteCount)
        var fcm = FCMOptions(token: "t")
        fcm.keyBundle = bundle
        let message = try sealer.seal(long, with: key, options: fcm)
        let data = try #require(try object(message.body)["message"]?.objectValue?["data"]?.objectValue)
        let counted = data.members.reduce(0) { $0 + $1.name.utf8.count + ($1.value.stringValue?.utf8.count ?? 0) }
        #expect(counted <= NotificationSealer.fcmDataLimit)
    }

    @Test("with a smaller limit: room for the bundle and a truncated body; then content-free; then does_not_fit", arguments: [
        (limit: 900, expected: "truncated"), (limit: 480, expected: "contentFree"), (limit: 400, expected: "doesNotFit"),
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

/// `KeyBundle.seal(…, devicePublicKeys:)`: one key to many devices, on every core.
@Suite("Key bundle fan-out")
struct BundleFanOutTests {
    @Test("one result per device, in order, each opening on its own device; a bad key fails only its own", arguments: [1, 2, 4])
    func fanOut(threads: Int) throws {
        let provider = IdentityKeyPair.generate()
        let key = testKey(3)
        var devices = (0..<37).map { _ in IdentityKeyPair.generate() }
        var publicKeys = devices.map(\.publicKey)
        publicKeys[5] = [UInt8](repeating: 0, count: 32)  // small order: refused
        devices[5] = IdentityKeyPair.generate()
        let results = KeyBundle.seal(key, conversation: "c", epoch: 4, notAfter: nil, provider: provider,
                                     devicePublicKeys: publicKeys, maximumThreads: threads)
        #expect(results.count == 37)
        for (index, result) in results.enumerated() {
            if index == 5 {
                #expect(throws: KeyBundleSealingError.self) { try result.get() }
                continue
            }
            let opened = try result.get().open(device: devices[index], pinnedProviderKeys: [provider.publicKey], now: 0)
            #expect(opened.key == key && opened.conversation == "c", "device \(index)")
        }
        #expect(KeyBundle.seal(key, conversation: "c", epoch: 1, notAfter: nil, provider: provider, devicePublicKeys: []).isEmpty)
    }
}
