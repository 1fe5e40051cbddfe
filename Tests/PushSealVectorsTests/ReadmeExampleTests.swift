import Foundation
import PushSealCore
import PushSealKeyStore
import PushSealProvider
import PushSealReceiver
import Testing

/// The README's two Swift examples, kept compiling and working (keep in sync with README.md).
@Suite("README examples")
struct ReadmeExampleTests {
    @Test("provider example seals, receiver example opens through a shared key store")
    func providerThenReceiver() throws {
        let appGroupDirectory = NSTemporaryDirectory() + "pushseal-readme-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: appGroupDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: appGroupDirectory) }
        let masterKeyFromKeychain = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let keyBytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let now = Int64(Date().timeIntervalSince1970)

        // Provider side (README "Swift: the provider side").
        let key = try ConversationKey(rawBytes: keyBytes)
        let sealer = try NotificationSealer()
        let content = NotificationContent(
            conversationID: "c_81f3", messageID: "m_5521", sentAt: now,
            title: "Ana", body: "Are we still on for 7?")
        let request = try sealer.seal(content, with: key, options: APNsOptions(topic: "com.example.chat"))
        #expect(request.body.count <= 4096)
        #expect(try request.headers().contains(HTTPHeader(name: "apns-push-type", value: "alert")))
        #expect(request.path == .complete)

        // The device got the key over the app's own E2EE channel and stored it.
        let store = try KeyStore(directory: appGroupDirectory, masterKey: .bytes(masterKeyFromKeychain), create: true)
        try store.add(key, conversation: "c_81f3", epoch: 1)

        // Receiver side (README "Swift: the receiver side").
        let payloadBytes = request.body
        let receiver = Receiver(keySource: KeyStoreKeySource(
            directory: appGroupDirectory, masterKey: .bytes(masterKeyFromKeychain)))
        let shown = receiver.open(json: payloadBytes)
        #expect(shown.outcome == .decrypted)
        #expect(shown.title == .plain("Ana"))
        #expect(shown.body == .plain("Are we still on for 7?"))
        #expect(receiver.open(json: payloadBytes).isDuplicate)
    }
}
