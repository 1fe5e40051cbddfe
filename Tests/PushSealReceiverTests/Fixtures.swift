@_spi(Vectors) import PushSealCore
import PushSealReceiver
import Dispatch
import Synchronization

/// Fixed receiver time for every test: 2023-11-14T22:13:20Z.
let now: Int64 = 1_700_000_000

/// A fixed key and its conversation.
let keyA = try! ConversationKey(rawBytes: (0..<32).map { UInt8($0) })
let keyB = try! ConversationKey(rawBytes: (0..<32).map { UInt8(255 - $0) })
let conversationA = "conversation-A"

/// A receiver over `source` with the fixed clock.
func makeReceiver(
    _ source: any ReceiverKeySource, maximumAge: Int64 = ReceiverConfiguration.defaultMaximumAge,
    maximumFutureSkew: Int64 = ReceiverConfiguration.defaultMaximumFutureSkew,
    prefersPayloadPlaceholder: Bool = true, retainsContentBytes: Bool = false,
    fallbackText: @escaping @Sendable (ReasonCode?) -> FallbackText = { _ in .standard }
) -> Receiver {
    Receiver(keySource: source, configuration: ReceiverConfiguration(
        maximumAge: maximumAge, maximumFutureSkew: maximumFutureSkew, clock: { now },
        prefersPayloadPlaceholder: prefersPayloadPlaceholder, retainsContentBytes: retainsContentBytes, fallbackText: fallbackText))
}

/// A fresh in-memory source holding `keyA` for `conversationA`.
func sourceA() -> SingleConversationKey {
    SingleConversationKey(key: keyA, conversation: conversationA)
}

/// A typical content of conversation A.
func contentA(mid: String = "m1", ts: Int64 = now - 60, body: String? = "Hello from A") -> NotificationContent {
    NotificationContent(conversationID: conversationA, messageID: mid, sentAt: ts, title: "Ana", body: body)
}

/// Seals `content` (deterministic encoding) under `key`, padded to a multiple of `padBlock`.
func seal(_ content: NotificationContent, key: ConversationKey = keyA, padBlock: Int = 256) -> String {
    sealBytes(try! content.encoded(), key: key, padBlock: padBlock)
}

/// Seals arbitrary content bytes (not necessarily valid content).
func sealBytes(_ bytes: [UInt8], key: ConversationKey = keyA, padBlock: Int = 256) -> String {
    let padded = Padding.paddedLength(contentLength: bytes.count, blockSize: padBlock)
    return Envelope.seal(content: bytes, with: key, paddedLength: padded, salt: Array(repeating: 7, count: 24)).wire
}

/// Seals an exact AEAD plaintext P (padding included, possibly malformed).
func sealPlaintext(_ plaintext: [UInt8], key: ConversationKey = keyA) -> String {
    Envelope.seal(plaintext: plaintext, with: key, salt: Array(repeating: 9, count: 24)).wire
}

/// The placeholder used in APNs payloads built here.
let placeholderTitle = "Placeholder title"
let placeholderBody = "New message (placeholder)"

/// An APNs body carrying `wire` (raw JSON text of the `pushseal` value is `sealedJSON`).
func apns(sealedJSON: String, alert: String = #"{"title":"Placeholder title","body":"New message (placeholder)"}"#) -> String {
    #"{"aps":{"alert":\#(alert),"mutable-content":1,"thread-id":"opaque-thread","sound":"default"},"pushseal":\#(sealedJSON)}"#
}

/// An APNs body carrying the wire string `wire`.
func apns(wire: String) -> String {
    apns(sealedJSON: "\"\(wire)\"")
}

/// The userInfo iOS would derive from `apns(wire:)`.
func userInfo(pushseal: UserInfoValue?, aps: UserInfoValue? = .dictionary([
    "alert": .dictionary(["title": .string(placeholderTitle), "body": .string(placeholderBody)]),
    "mutable-content": .number(1), "thread-id": .string("opaque-thread"),
])) -> [String: UserInfoValue] {
    var info: [String: UserInfoValue] = [:]
    if let aps { info["aps"] = aps }
    if let pushseal { info["pushseal"] = pushseal }
    return info
}

/// An FCM HTTP v1 message carrying `wire`.
func fcmMessage(wire: String) -> String {
    #"{"message":{"token":"t0k3n","data":{"pushseal":"\#(wire)"},"android":{"priority":"high","ttl":"2419200s"}}}"#
}

/// A key source that counts lookups and can block them until released.
final class InstrumentedSource: ReceiverKeySource, @unchecked Sendable {
    let inner: SingleConversationKey
    private let state = Mutex<(lookups: Int, blocked: Bool)>((0, false))
    private let entered = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)

    init(_ inner: SingleConversationKey, blockLookups: Bool = false) {
        self.inner = inner
        state.withLock { $0.blocked = blockLookups }
    }

    var lookups: Int { state.withLock { $0.lookups } }

    /// Waits until a lookup has started (and is blocked).
    func waitUntilLookupStarted() { entered.wait() }
    /// Lets a blocked lookup continue.
    func releaseLookup() { release.signal() }

    func lookupKey(_ id: KeyID) -> KeyLookupResult {
        let blocked = state.withLock { s -> Bool in
            s.lookups += 1
            return s.blocked
        }
        if blocked {
            entered.signal()
            release.wait()
        }
        return inner.lookupKey(id)
    }

    func markDelivered(conversation: String, messageID: String, envelope: [UInt8]) -> DeliveryRecord {
        inner.markDelivered(conversation: conversation, messageID: messageID, envelope: [])
    }
}

/// Every string a notification would show or log, plus its full reflection.
func allText(of notification: ReceivedNotification) -> [String] {
    var strings: [String] = [String(reflecting: notification), String(describing: notification)]
    for text in [notification.title, notification.subtitle, Optional(notification.body)] {
        if case let .plain(value)? = text { strings.append(value) }
        if case let .localized(key, arguments)? = text { strings.append(key); strings.append(contentsOf: arguments) }
    }
    strings.append(contentsOf: [notification.threadIdentifier, notification.category, notification.diagnostic,
                                notification.conversationID, notification.messageID, notification.sender?.id,
                                notification.sender?.name].compactMap { $0 })
    for (key, value) in notification.extras { strings.append(key); strings.append(value) }
    return strings
}
