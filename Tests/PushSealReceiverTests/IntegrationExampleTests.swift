import Foundation
@_spi(Vectors) import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealReceiver
import Testing

// Docs/INTEGRATION-IOS.md §2, the platform-neutral part of the extension, verbatim (keep in sync):
// everything below `NotificationService`, which subclasses the Apple-only base class.

/// The receiver over the key store that the app shares with the extension.
func makeChatReceiver(storeDirectory: String?, masterKey: MasterKeySource) -> Receiver {
    let configuration = ReceiverConfiguration(fallbackText: chatFallbackText)
    guard let storeDirectory else {
        return Receiver(keySource: UnavailableKeySource(reason: "no App Group container"), configuration: configuration)
    }
    // Each lookup opens the store, reads one key and closes it: no SQLite connection is kept (a
    // process suspended holding a lock in a shared container is killed, 0xdead10cc). Before the
    // first unlock, or before the app created the store, notifications fall back with store_locked.
    return Receiver(keySource: KeyStoreKeySource(directory: storeDirectory, masterKey: masterKey), configuration: configuration)
}

/// The app's text when the payload carries no placeholder (or the app prefers its own),
/// localized here by the app. `nil`: deadline reached / content-free message to fetch.
@Sendable func chatFallbackText(_ reason: ReasonCode?) -> FallbackText {
    switch reason {
    case .storeLocked?:
        FallbackText(title: nil, body: NSLocalizedString("Unlock your phone to read new messages", comment: ""))
    case .unknownKey?, .conversationMismatch?:
        FallbackText(title: nil, body: NSLocalizedString("New message — open the app to read it", comment: ""))
    default:
        FallbackText(title: nil, body: NSLocalizedString("New message", comment: ""))
    }
}

/// The INTEGRATION-IOS example does what the guide says it does.
@Suite("INTEGRATION-IOS example")
struct IntegrationExampleTests {
    let masterKey = (0..<32).map { _ in UInt8.random(in: 0...255) }

    private func payload(_ key: ConversationKey, conversation: String) throws -> [UInt8] {
        let content = NotificationContent(
            conversationID: conversation, messageID: "m1", sentAt: Int64(Date().timeIntervalSince1970), title: "Ana", body: "Hi")
        let bytes = try content.encoded()
        let wire = Envelope.seal(content: bytes, with: key, paddedLength: Padding.paddedLength(contentLength: bytes.count, blockSize: 256)).wire
        // No placeholder in the payload: the app's fallback text is what a failure shows.
        return Array(#"{"aps":{"mutable-content":1},"pushseal":"\#(wire)"}"#.utf8)
    }

    @Test("opens through the shared store; falls back with the app's text otherwise")
    func example() throws {
        let directory = NSTemporaryDirectory() + "pushseal-ios-example-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = ConversationKey.generate()
        // The app's side: the store in the App Group container, written by the app.
        let store = try DeviceKeyStore(directory: directory, masterKey: .bytes(masterKey), create: true)
        try store.add(key, conversation: "c1", epoch: 1)

        let receiver = makeChatReceiver(storeDirectory: directory, masterKey: .bytes(masterKey))
        let shown = receiver.open(.json(try payload(key, conversation: "c1")))
        #expect(shown.outcome == .decrypted)
        #expect(shown.body == .plain("Hi"))

        let unknown = receiver.open(.json(try payload(ConversationKey.generate(), conversation: "c1")))
        #expect(unknown.reason == .unknownKey)
        #expect(unknown.body == .plain("New message — open the app to read it"))

        let wrongMaster = makeChatReceiver(storeDirectory: directory, masterKey: .bytes([UInt8](repeating: 1, count: 32)))
        let locked = wrongMaster.open(.json(try payload(key, conversation: "c1")))
        #expect(locked.reason == .storeLocked)
        #expect(locked.body == .plain("Unlock your phone to read new messages"))

        let noContainer = makeChatReceiver(storeDirectory: nil, masterKey: .bytes(masterKey))
        #expect(noContainer.open(.json(try payload(key, conversation: "c1"))).reason == .storeLocked)
    }
}
