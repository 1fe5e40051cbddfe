import Testing
import PushSealCore
@_spi(Vectors) import PushSealProvider

@Suite("Padding rule and truncation edge cases")
struct PaddingAndTruncationTests {
    let key = testKey(7)

    func content(body: String?, title: String? = nil, extras: [String: String] = [:]) -> NotificationContent {
        NotificationContent(conversationID: "conv", messageID: "msg", sentAt: 1_700_000_000, title: title, body: body, extras: extras)
    }

    @Test("Padded length: block multiple; block 1 adds only the marker")
    func blockMultiples() throws {
        let small = content(body: "hello")
        let count = try small.encoded().count
        for block in [1, 7, 64, 256, 1000] {
            let request = try NotificationSealer(padBlock: block).seal(small, with: key, options: APNsOptions())
            #expect(request.sizes.paddedByteCount == ((count + 1 + block - 1) / block) * block)
            #expect(request.sizes.paddedByteCount % block == 0)
        }
        let unpadded = try NotificationSealer(padBlock: 1).seal(small, with: key, options: APNsOptions())
        #expect(unpadded.sizes.paddedByteCount == count + 1)
    }

    @Test("Pad block 4096: every payload is padded to the largest size that fits")
    func constantSize() throws {
        let sealer = try NotificationSealer(padBlock: 4096)
        var sizes = Set<Int>()
        for length in [0, 10, 500, 2_000, 9_000] {
            let request = try sealer.seal(content(body: String(repeating: "a", count: length)), with: key, options: APNsOptions(threadID: .omitted))
            #expect(request.body.count <= 4096)
            #expect(request.body.count > 4096 - 4)
            sizes.insert(request.body.count)
            let message = try sealer.seal(content(body: String(repeating: "a", count: length)), with: key, options: FCMOptions(token: "t"))
            #expect(message.sizes.limitedByteCount <= 4096 && message.sizes.limitedByteCount > 4096 - 4)
        }
        #expect(sizes.count == 1)
    }

    @Test("Padding never pushes a fitting payload over the limit: it is capped at the largest fitting length")
    func paddingCap() throws {
        let sealer = try NotificationSealer(padBlock: 256)
        let options = APNsOptions(threadID: .omitted)
        // Find bodies whose minimal padding fits but whose block padding would not.
        var capped = 0
        for length in stride(from: 2_700, through: 3_100, by: 1) {
            let item = content(body: String(repeating: "b", count: length))
            let request = try sealer.seal(item, with: key, options: options)
            #expect(request.body.count <= 4096)
            guard request.path == .complete else { continue }
            let count = try item.encoded().count
            let blockPadded = ((count + 1 + 255) / 256) * 256
            if request.sizes.paddedByteCount < blockPadded {
                capped += 1
                #expect(request.sizes.paddedByteCount >= count + 1)
                // Largest that fits: one more padded byte would need a longer wire that exceeds the limit.
                let overhead = request.body.count - request.sizes.wireLength
                #expect(overhead + Base64URL.encodedLength(of: request.sizes.envelopeByteCount + 1) > 4096)
            }
        }
        #expect(capped > 0)
    }

    @Test("CR LF is one grapheme: never split")
    func crlfNotSplit() throws {
        let sealer = try NotificationSealer(padBlock: 1)
        for shift in 0..<8 {
            let body = String(repeating: "x", count: shift) + String(repeating: "\r\n", count: 2_000)
            let item = content(body: body)
            let request = try sealer.seal(item, with: key, options: APNsOptions())
            let decrypted = try checkPayload(request.checked, content: item, key: key, transport: .apns(APNsOptions()), padBlock: 1)
            let kept = Array(decrypted.body!.utf8.dropLast(3))
            #expect(kept.last != UInt8(ascii: "\r"))
        }
    }

    @Test("Escaping is counted: control characters take six bytes each")
    func escapedBody() throws {
        let sealer = try NotificationSealer()
        let item = content(body: String(repeating: "\u{1}", count: 3_000))
        let request = try sealer.seal(item, with: key, options: APNsOptions())
        let decrypted = try checkPayload(request.checked, content: item, key: key, transport: .apns(APNsOptions()), padBlock: 256)
        #expect(request.path == .truncated(originalBodyLength: 3_000))
        #expect(decrypted.body!.unicodeScalars.count < 600)
    }

    @Test("One enormous grapheme cluster: the body becomes just …")
    func giantCluster() throws {
        let sealer = try NotificationSealer()
        let item = content(body: "Z" + String(repeating: "\u{301}", count: 5_000))
        let request = try sealer.seal(item, with: key, options: APNsOptions())
        let decrypted = try checkPayload(request.checked, content: item, key: key, transport: .apns(APNsOptions()), padBlock: 256)
        #expect(decrypted.body == "…")
        #expect(decrypted.isTruncated)
    }

    @Test("100 KB of emoji ZWJ sequences is cut between sequences")
    func emojiFamilies() throws {
        let sealer = try NotificationSealer()
        let item = content(body: String(repeating: "👨‍👩‍👧‍👦👩🏽‍💻", count: 2_600))
        #expect(item.body!.utf8.count > 100_000)
        let request = try sealer.seal(item, with: key, options: FCMOptions(token: "t"))
        try checkPayload(request.checked, content: item, key: key, transport: .fcm(FCMOptions(token: "t")), padBlock: 256)
    }

    @Test("A title or extras too large for even body … gives the content-free payload")
    func contentFree() throws {
        let sealer = try NotificationSealer()
        for item in [
            content(body: "hi", title: String(repeating: "T", count: 3_500)),
            content(body: "", extras: ["k": String(repeating: "v", count: 3_900)]),
            content(body: "x", title: String(repeating: "T", count: 50_000)),
        ] {
            let request = try sealer.seal(item, with: key, options: APNsOptions())
            #expect(request.path == .contentFree)
            let decrypted = try checkPayload(request.checked, content: item, key: key, transport: .apns(APNsOptions()), padBlock: 256)
            #expect(decrypted.body == nil && decrypted.title == nil && decrypted.extras.isEmpty && !decrypted.isTruncated)
            #expect(try decrypted.encoded() == Array("{\"cid\":\"conv\",\"mid\":\"msg\",\"ts\":1700000000}".utf8))
        }
    }

    @Test("A content-free content given as input is sealed whole")
    func contentFreeInput() throws {
        let sealer = try NotificationSealer()
        let item = NotificationContent(conversationID: "c", messageID: "m", sentAt: 5, body: nil)
        let request = try sealer.seal(item, with: key, options: APNsOptions())
        #expect(request.path == .complete)
        try checkPayload(request.checked, content: item, key: key, transport: .apns(APNsOptions()), padBlock: 256)
    }

    @Test("Content over 4000 bytes is truncated even when the transport could carry more")
    func contentLimit() throws {
        // No real transport carries 4000 content bytes; the content limit still bounds the plan.
        let item = content(body: String(repeating: "q", count: 5_000))
        let request = try NotificationSealer(padBlock: 1).seal(item, with: key, options: APNsOptions(threadID: .omitted))
        #expect(request.sizes.contentByteCount <= NotificationContent.maximumByteCount)
        if case .truncated = request.path {} else { Issue.record("expected truncation, got \(request.path)") }
    }
}
