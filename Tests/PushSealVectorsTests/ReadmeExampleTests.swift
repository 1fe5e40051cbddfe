import Foundation
import PushSealCore
import PushSealKeyStore
import PushSealProvider
import PushSealReceiver
import Testing

/// The README's two Swift examples, compiled and run. The lines between each `// README:` marker
/// and `// README end` are the README's code blocks verbatim (scripts/docs_consistency.py checks
/// that they are), so the README's code type-checks.
@Suite("README examples")
struct ReadmeExampleTests {
    /// What the README's receiver example displays.
    final class Display {
        var shown: [String] = []
    }

    /// Seals with the provider example, stores the key, opens with the receiver example.
    static func run(keyBytes: [UInt8], now: Int64, appGroupDirectory: String, masterKeyFromKeychain: [UInt8],
                    display out: Display) throws -> (request: APNsRequest, receiver: Receiver) {
        // README: provider
        let key = try ConversationKey(rawBytes: keyBytes)          // 32 random bytes, shared with the devices
        let sealer = try NotificationSealer()                      // pad block 256
        let content = NotificationContent(
            conversationID: "c_81f3", messageID: "m_5521", sentAt: now,
            title: "Ana", body: "Are we still on for 7?")
        let request = try sealer.seal(content, with: key, options: APNsOptions(topic: "com.example.chat"))
        // README end

        // The device got the key over the app's own E2EE channel and stored it.
        let store = try DeviceKeyStore(directory: appGroupDirectory, masterKey: .bytes(masterKeyFromKeychain), create: true)
        try store.add(key, conversation: "c_81f3", epoch: 1)
        let payloadBytes = request.body
        func display(title: String?, body: String) { out.shown.append("\(title ?? "-"): \(body)") }
        func display(fallback: String, reason: ReasonCode?) { out.shown.append("fallback \(reason?.rawValue ?? "-"): \(fallback)") }

        // README: receiver
        let receiver = Receiver(keySource: KeyStoreKeySource(
            directory: appGroupDirectory, masterKey: .bytes(masterKeyFromKeychain)))
        let shown = receiver.open(.json(payloadBytes))    // or .userInfo(…), .fcmData(…)
        // Texts are NotificationText: .plain(text), or .localized(key:arguments:) from a placeholder's loc-key.
        // display(title:body:) and display(fallback:reason:) stand for the app's own code.
        if shown.outcome == .decrypted {
            display(title: shown.title?.unlocalizedText, body: shown.body.unlocalizedText)
        } else {
            display(fallback: shown.body.unlocalizedText, reason: shown.reason)   // e.g. .storeLocked, .authenticationFailed
        }
        // README end
        return (request, receiver)
    }

    @Test("provider example seals, receiver example opens through a shared key store")
    func providerThenReceiver() throws {
        let appGroupDirectory = NSTemporaryDirectory() + "pushseal-readme-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: appGroupDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: appGroupDirectory) }
        let display = Display()
        let (request, receiver) = try Self.run(
            keyBytes: (0..<32).map { _ in UInt8.random(in: 0...255) }, now: Int64(Date().timeIntervalSince1970),
            appGroupDirectory: appGroupDirectory, masterKeyFromKeychain: (0..<32).map { _ in UInt8.random(in: 0...255) },
            display: display)
        #expect(request.body.count <= 4096)
        #expect(try request.headers().contains(HTTPHeader(name: "apns-push-type", value: "alert")))
        #expect(request.path == .complete)
        #expect(display.shown == ["Ana: Are we still on for 7?"])
        #expect(receiver.open(.json(request.body)).isDuplicate)
    }
}
