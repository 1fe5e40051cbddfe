import Testing
import PushSealCore
import PushSealKeyDirectory
@_spi(Vectors) import PushSealProvider

@Suite("Input validation: every failure is a typed error")
struct ValidationTests {
    let key = testKey(9)
    let sealer = try! NotificationSealer()
    let valid = NotificationContent(conversationID: "c", messageID: "m", sentAt: 1_700_000_000, body: "hello")

    func contentError(_ content: NotificationContent, field: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for transport in 0..<2 {
            do {
                if transport == 0 {
                    _ = try sealer.seal(content, with: key, options: APNsOptions())
                } else {
                    _ = try sealer.seal(content, with: key, options: FCMOptions(token: "t"))
                }
                Issue.record("sealing succeeded", sourceLocation: sourceLocation)
            } catch {
                switch error {
                case let .invalidContent(.outOfRange(actual, _)), let .invalidContent(.missingField(actual)):
                    #expect(actual == field, sourceLocation: sourceLocation)
                    #expect(error.code == "invalid_content", sourceLocation: sourceLocation)
                default:
                    Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test("Content: empty or oversized ids, negative badge, ts out of range, missing body")
    func contentErrors() {
        var c = valid
        c.conversationID = ""
        contentError(c, field: "cid")
        c = valid; c.messageID = ""
        contentError(c, field: "mid")
        c = valid; c.conversationID = String(repeating: "a", count: 257)
        contentError(c, field: "cid")
        c = valid; c.messageID = String(repeating: "é", count: 129)
        contentError(c, field: "mid")
        c = valid; c.thread = ""
        contentError(c, field: "thread")
        c = valid; c.category = String(repeating: "k", count: 300)
        contentError(c, field: "category")
        c = valid; c.sender = .init(id: "")
        contentError(c, field: "sender.id")
        c = valid; c.badge = -1
        contentError(c, field: "badge")
        c = valid; c.badge = NotificationContent.maximumBadge + 1
        contentError(c, field: "badge")
        c = valid; c.sentAt = -1
        contentError(c, field: "ts")
        c = valid; c.sentAt = NotificationContent.maximumTimestamp + 1
        contentError(c, field: "ts")
        c = valid; c.body = nil; c.title = "t"
        contentError(c, field: "body")
        c = valid; c.body = nil; c.isTruncated = true
        contentError(c, field: "body")
    }

    @Test("Boundaries that are valid: 256-byte ids, badge 0 and maximum, ts 0 and maximum are sealed whole and open to the same content; one past each is refused")
    func validBoundaries() throws {
        var low = valid
        low.conversationID = String(repeating: "a", count: 256)
        low.messageID = String(repeating: "b", count: 256)
        low.badge = 0
        low.sentAt = 0
        var high = low
        high.sentAt = NotificationContent.maximumTimestamp
        high.badge = NotificationContent.maximumBadge
        for content in [low, high] {
            let apns = try sealer.seal(content, with: key, options: APNsOptions())
            #expect(apns.path == .complete)
            #expect(try checkPayload(apns.checked, content: content, key: key, transport: .apns(APNsOptions()), padBlock: sealer.padBlock) == content)
            let fcm = try sealer.seal(content, with: key, options: FCMOptions(token: "t"))
            #expect(fcm.path == .complete)
            #expect(try checkPayload(fcm.checked, content: content, key: key, transport: .fcm(FCMOptions(token: "t")), padBlock: sealer.padBlock) == content)
        }
        // One past each boundary is refused, naming the field.
        var past = low; past.conversationID += "a"
        contentError(past, field: "cid")
        past = low; past.messageID += "b"
        contentError(past, field: "mid")
        past = high; past.sentAt += 1
        contentError(past, field: "ts")
        past = high; past.badge! += 1
        contentError(past, field: "badge")
    }

    func apnsError(_ options: APNsOptions) -> ProviderError? {
        do {
            _ = try sealer.seal(valid, with: key, options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test("Placeholder missing or malformed")
    func placeholder() {
        #expect(apnsError(APNsOptions(placeholder: .text(title: "t", body: ""))) == .missingPlaceholder)
        #expect(apnsError(APNsOptions(placeholder: .localized(titleKey: nil, titleArguments: [], bodyKey: "", bodyArguments: []))) == .missingPlaceholder)
        #expect(apnsError(APNsOptions(placeholder: .text(title: "", body: "b")))?.code == "invalid_placeholder")
        #expect(apnsError(APNsOptions(placeholder: .localized(titleKey: "", titleArguments: [], bodyKey: "K", bodyArguments: [])))?.code == "invalid_placeholder")
        #expect(apnsError(APNsOptions(placeholder: .localized(titleKey: nil, titleArguments: ["a"], bodyKey: "K", bodyArguments: [])))?.code == "invalid_placeholder")
        #expect(ProviderError.missingPlaceholder.code == "missing_placeholder")
    }

    @Test("Collapse id: at most 64 bytes of visible ASCII")
    func collapseID() {
        #expect(apnsError(APNsOptions(collapseID: String(repeating: "x", count: 64))) == nil)
        #expect(apnsError(APNsOptions(collapseID: String(repeating: "x", count: 65))) == .collapseIDTooLong(byteCount: 65))
        #expect(apnsError(APNsOptions(collapseID: String(repeating: "é", count: 33))) == .collapseIDTooLong(byteCount: 66))
        #expect(apnsError(APNsOptions(collapseID: ""))?.code == "invalid_collapse_id")
        #expect(apnsError(APNsOptions(collapseID: "a b"))?.code == "invalid_collapse_id")
        #expect(apnsError(APNsOptions(collapseID: "é"))?.code == "invalid_collapse_id")
    }

    @Test("Topic: needed for headers, not for the body; validated when given")
    func topic() throws {
        let request = try sealer.seal(valid, with: key, options: APNsOptions())
        #expect(throws: ProviderError.missingTopic) { try request.headers() }
        #expect(apnsError(APNsOptions(topic: ""))?.code == "invalid_topic")
        #expect(apnsError(APNsOptions(topic: "com.example app"))?.code == "invalid_topic")
        #expect(apnsError(APNsOptions(topic: String(repeating: "a", count: 256)))?.code == "invalid_topic")
        #expect(apnsError(APNsOptions(topic: "com.example.app.voip")) == nil)
    }

    @Test("Other APNs options: relevance score, expiration, empty sound/category/thread-id")
    func otherOptions() {
        for score in [-0.01, 1.01, Double.nan, Double.infinity] {
            #expect(apnsError(APNsOptions(relevanceScore: score)) == .invalidOption(field: "relevance-score", detail: "must be a number from 0 to 1"))
        }
        #expect(apnsError(APNsOptions(expiration: .at(-1)))?.code == "invalid_option")
        #expect(apnsError(APNsOptions(expiration: .after(seconds: -1)))?.code == "invalid_option")
        #expect(apnsError(APNsOptions(sound: ""))?.code == "invalid_option")
        #expect(apnsError(APNsOptions(category: ""))?.code == "invalid_option")
        #expect(apnsError(APNsOptions(threadID: .plain("")))?.code == "invalid_option")
    }

    @Test("FCM token: non-empty, at most 4096 bytes of visible ASCII without quotes or backslashes", arguments: [
        "", " ", "abc def", "abc\tdef", "abc\"def", "abc\\def", "tökén", "abc\u{0}", "abc\n", String(repeating: "a", count: 4097),
    ])
    func malformedToken(token: String) {
        #expect(throws: ProviderError.self) { try sealer.seal(valid, with: key, options: FCMOptions(token: token)) }
        do {
            _ = try sealer.seal(valid, with: key, options: FCMOptions(token: token))
        } catch {
            #expect(error.code == "invalid_fcm_token")
        }
    }

    @Test("FCM token: realistic shapes are accepted; ttl is bounded")
    func goodTokens() throws {
        for token in ["a", "dGVzdA:APA91bH-x_y.z~", String(repeating: "a", count: 4096)] {
            _ = try sealer.seal(valid, with: key, options: FCMOptions(token: token))
        }
        #expect(throws: ProviderError.invalidOption(field: "ttl", detail: "must be 0 to 2419200 seconds")) {
            try sealer.seal(valid, with: key, options: FCMOptions(token: "t", timeToLive: 2_419_201))
        }
        #expect(throws: ProviderError.self) { try sealer.seal(valid, with: key, options: FCMOptions(token: "t", timeToLive: -1)) }
    }

    @Test("Pad block must be 1...4096", arguments: [0, -1, 4097, Int.max])
    func padBlock(block: Int) {
        #expect(throws: ProviderError.invalidPadBlock(block)) { try NotificationSealer(padBlock: block) }
    }

    @Test("Pad block bounds are accepted")
    func padBlockBounds() throws {
        _ = try NotificationSealer(padBlock: 1)
        _ = try NotificationSealer(padBlock: 4096)
    }

    @Test("Nothing fits: a placeholder so large that not even the content-free payload fits")
    func doesNotFit() throws {
        let huge = APNsOptions(placeholder: .text(title: nil, body: String(repeating: "p", count: 4_000)))
        do {
            _ = try sealer.seal(valid, with: key, options: huge)
            Issue.record("sealing succeeded")
        } catch {
            guard case let .doesNotFit(byteCount, limit) = error else { Issue.record("unexpected \(error)"); return }
            #expect(limit == 4096)
            #expect(byteCount > 4096)
        }
        let enormous = APNsOptions(placeholder: .text(title: nil, body: String(repeating: "p", count: 10_000)))
        #expect(throws: ProviderError.self) { try sealer.seal(valid, with: key, options: enormous) }
    }

    @Test("Key provider: unknown conversation is keyUnavailable; a known one seals")
    func keyProvider() throws {
        let provider = FixedKeyProvider([(conversation: "c", key: key)])
        let request = try sealer.seal(valid, keyProvider: provider, options: APNsOptions())
        #expect(request.keyID == key.id)
        var other = valid
        other.conversationID = "unknown"
        #expect(throws: ProviderError.keyUnavailable(conversation: "unknown", detail: "no key for this conversation")) {
            try sealer.seal(other, keyProvider: provider, options: FCMOptions(token: "t"))
        }
        // Ids are compared by UTF-8 bytes: a canonically equivalent id is a different conversation.
        let composed = FixedKeyProvider([(conversation: "\u{E9}", key: key)])
        var decomposed = valid
        decomposed.conversationID = "e\u{301}"
        #expect(throws: ProviderError.self) { try sealer.seal(decomposed, keyProvider: composed, options: APNsOptions()) }
    }

    struct FailingProvider: CurrentKeyProvider {
        struct Locked: Error, CustomStringConvertible { var description: String { "store locked" } }
        func currentKey(conversation: String) throws -> ConversationKey { throw Locked() }
    }

    @Test("Key provider errors are wrapped with their description")
    func keyProviderFailure() {
        #expect(throws: ProviderError.keyUnavailable(conversation: "c", detail: "store locked")) {
            try sealer.seal(valid, keyProvider: FailingProvider(), options: APNsOptions())
        }
    }

    @Test("A deterministic salt must be 24 bytes")
    func saltLength() {
        #expect(throws: ProviderError.invalidSalt(byteCount: 23)) {
            try sealer.seal(valid, with: key, options: APNsOptions(), salt: [UInt8](repeating: 1, count: 23))
        }
        #expect(throws: ProviderError.invalidSalt(byteCount: 25)) {
            try sealer.seal(valid, with: key, options: FCMOptions(token: "t"), salt: [UInt8](repeating: 1, count: 25))
        }
    }

    @Test("A deterministic salt source that returns the wrong length is a typed error")
    func derivedSaltLength() throws {
        let sealer = try NotificationSealer(deterministicSalt: { _ in [1, 2, 3] })
        #expect(throws: ProviderError.invalidSalt(byteCount: 3)) { try sealer.seal(valid, with: key, options: APNsOptions()) }
        let batch = sealer.seal(batch: [BatchItem(content: valid, key: key, options: FCMOptions(token: "t"))])
        #expect(batch == [.failure(.invalidSalt(byteCount: 3))])
    }

    @Test("Every error has a stable code and a message")
    func descriptions() {
        let errors: [ProviderError] = [
            .invalidContent(.missingField("body")), .missingPlaceholder, .invalidPlaceholder("x"), .invalidFCMToken("x"),
            .invalidPadBlock(0), .collapseIDTooLong(byteCount: 65), .invalidCollapseID("x"), .missingTopic, .invalidTopic("x"),
            .invalidOption(field: "f", detail: "d"), .keyUnavailable(conversation: "c", detail: "d"),
            .doesNotFit(byteCount: 5000, limit: 4096), .invalidSalt(byteCount: 1), .internalInconsistency("x"),
        ]
        #expect(Set(errors.map(\.code)).count == errors.count)
        for error in errors { #expect(!error.description.isEmpty) }
    }
}
