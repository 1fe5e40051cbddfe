import PushSealTestSupport
import Testing
import PushSealCore
@_spi(Vectors) import PushSealProvider

@Suite("Size policy: property tests over random contents")
struct SizePolicyPropertyTests {
    static let placeholders: [APNsOptions.Placeholder] = [
        APNsOptions.defaultPlaceholder,
        .text(title: "Chat", body: "You have a new message"),
        .localized(titleKey: "NEW_TITLE", titleArguments: ["a"], bodyKey: "NEW_BODY", bodyArguments: ["x", "y\"z"]),
        .text(title: nil, body: String(repeating: "Placeholder ", count: 60)),
    ]

    static func randomAPNsOptions(using rng: inout SeededGenerator) -> APNsOptions {
        APNsOptions(
            placeholder: placeholders.randomElement(using: &rng)!,
            topic: "com.example.chat",
            collapseID: Bool.random(using: &rng) ? "c0ffee" : nil,
            sound: Bool.random(using: &rng) ? "default" : nil,
            category: Bool.random(using: &rng) ? "MESSAGE" : nil,
            interruptionLevel: Bool.random(using: &rng) ? APNsOptions.InterruptionLevel.allCases.randomElement(using: &rng) : nil,
            relevanceScore: Bool.random(using: &rng) ? Double.random(in: 0...1, using: &rng) : nil,
            threadID: [APNsOptions.ThreadID.opaque, .omitted, .plain("visible-thread")].randomElement(using: &rng)!)
    }

    static func randomFCMOptions(using rng: inout SeededGenerator) -> FCMOptions {
        let tokenLength = Int.random(in: 100...400, using: &rng)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_:")
        return FCMOptions(
            token: String((0..<tokenLength).map { _ in alphabet.randomElement(using: &rng)! }),
            priority: Bool.random(using: &rng) ? .high : .normal,
            timeToLive: Int64.random(in: 0...FCMOptions.maximumTimeToLive, using: &rng))
    }

    @Test("APNs: every payload parses, fits, decrypts to the same fields; truncation exact", arguments: [UInt64(1), 2, 3, 4])
    func apnsProperty(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var paths = [0, 0, 0]
        for _ in 0..<90 {
            let content = randomContent(using: &rng)
            let key = testKey(UInt8.random(in: 0...255, using: &rng))
            let padBlock = [1, 16, 256, 256, 1024, 4096].randomElement(using: &rng)!
            let sealer = try NotificationSealer(padBlock: padBlock)
            let options = Self.randomAPNsOptions(using: &rng)
            let request = try sealer.seal(content, with: key, options: options)
            try checkPayload(request.checked, content: content, key: key, transport: .apns(options), padBlock: padBlock)
            switch request.path {
            case .complete: paths[0] += 1
            case .truncated: paths[1] += 1
            case .contentFree: paths[2] += 1
            }
        }
        // The generator reaches every path (so the checks above are not vacuous).
        #expect(paths.allSatisfy { $0 > 0 }, "paths taken: \(paths)")
    }

    @Test("FCM: every message parses, data fits, decrypts to the same fields; truncation exact", arguments: [UInt64(11), 12, 13])
    func fcmProperty(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var paths = [0, 0, 0]
        for _ in 0..<90 {
            let content = randomContent(using: &rng)
            let key = testKey(UInt8.random(in: 0...255, using: &rng))
            let padBlock = [1, 32, 256, 4096].randomElement(using: &rng)!
            let sealer = try NotificationSealer(padBlock: padBlock)
            let options = Self.randomFCMOptions(using: &rng)
            let message = try sealer.seal(content, with: key, options: options)
            try checkPayload(message.checked, content: content, key: key, transport: .fcm(options), padBlock: padBlock)
            switch message.path {
            case .complete: paths[0] += 1
            case .truncated: paths[1] += 1
            case .contentFree: paths[2] += 1
            }
        }
        #expect(paths.allSatisfy { $0 > 0 }, "paths taken: \(paths)")
    }

    @Test("Bodies of every script kind, cut near the limit, keep whole grapheme clusters")
    func everyScriptNearTheLimit() throws {
        var rng = SeededGenerator(seed: 99)
        let sealer = try NotificationSealer()
        let key = testKey(3)
        for kind in TextKind.allCases {
            for target in stride(from: 2_800, through: 3_400, by: 23) {
                let content = NotificationContent(
                    conversationID: "conversation-one", messageID: "message-\(target)", sentAt: 1_700_000_000,
                    body: TextPieces.text(byteCount: target, kind: kind, using: &rng))
                let options = APNsOptions()
                let request = try sealer.seal(content, with: key, options: options)
                try checkPayload(request.checked, content: content, key: key, transport: .apns(options), padBlock: 256)
                let fcmOptions = FCMOptions(token: "token-\(target)")
                let message = try sealer.seal(content, with: key, options: fcmOptions)
                try checkPayload(message.checked, content: content, key: key, transport: .fcm(fcmOptions), padBlock: 256)
            }
        }
    }
}
