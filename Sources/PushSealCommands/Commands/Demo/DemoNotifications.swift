import PushSealCore
import PushSealProvider

/// A conversation of the demo: its id (the content's `cid`, never visible to Apple or Google) and
/// a name for people.
struct DemoConversation {
    let id: String
    let name: String

    static let aliceBob = DemoConversation(id: "chat:alice+bob", name: "Alice ↔ Bob")
    static let hike = DemoConversation(id: "group:weekend-hike", name: "Weekend hike 🥾 (group)")
}

/// A notification the demo seals: its content, the transport it goes out on, and the payload
/// file it is written to.
struct DemoNotification {
    enum Transport: String {
        case apns
        case fcm

        var label: String { self == .apns ? "APNs" : "FCM" }
        /// Who runs the push service and sees the payload.
        var operatorName: String { self == .apns ? "Apple" : "Google" }
    }

    /// Machine name (`chat-message`); the steps are `seal-<name>` and `open-<name>`.
    let name: String
    /// The text report's title.
    let title: String
    let conversation: DemoConversation
    let transport: Transport
    let content: NotificationContent
    /// The provider's expected size-policy path: `complete`, `truncated` or `content-free`.
    let expectedPath: String

    /// `NN-name.apns.json`.
    func fileName(number: Int) -> String {
        Self.fileName(number: number, name: name, transport: transport)
    }

    /// `NN-name.apns.json`.
    static func fileName(number: Int, name: String, transport: Transport) -> String {
        (number < 10 ? "0" : "") + "\(number)-\(name).\(transport.rawValue).json"
    }

    /// Every string of the content that must never appear in the payload (SPEC §14: Apple and
    /// Google see only the placeholder and opaque values), with the field it came from.
    var plaintextStrings: [(field: String, text: String)] {
        var strings: [(String, String)] = [("cid", content.conversationID), ("mid", content.messageID)]
        if let title = content.title { strings.append(("title", title)) }
        if let subtitle = content.subtitle { strings.append(("subtitle", subtitle)) }
        if let body = content.body { strings.append(("body", body)) }
        if let sender = content.sender {
            strings.append(("sender.id", sender.id))
            if let name = sender.name { strings.append(("sender.name", name)) }
        }
        if let thread = content.thread { strings.append(("thread", thread)) }
        for (key, value) in content.extras.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            strings.append(("x.\(key)", value))
        }
        return strings
    }
}

/// The demo's fixed cast: realistic contents, relative to the demo's frozen clock.
///
/// Every identifier and text contains a character outside the base64url alphabet (`:`, `+`, a
/// space, punctuation or emoji), so the plaintext check can never be fooled by a chance match
/// inside the payload's base64url wire string.
enum DemoNotifications {
    /// The placeholder every APNs payload carries (what the lock screen shows when decryption fails).
    static let placeholder = "New message"
    /// The app's bundle id (`apns-topic`).
    static let topic = "com.example.chat"
    /// The Android device's FCM registration token (not secret; visible to Google anyway).
    static let fcmToken = "demo-android-registration-token"

    static let apnsOptions = APNsOptions(placeholder: .text(title: nil, body: placeholder), topic: topic)
    static let fcmOptions = FCMOptions(token: fcmToken)

    /// 1. A plain chat message.
    static func chatMessage(now: Int64) -> DemoNotification {
        DemoNotification(
            name: "chat-message", title: "Chat message", conversation: .aliceBob, transport: .apns,
            content: NotificationContent(
                conversationID: DemoConversation.aliceBob.id, messageID: "msg:1001", sentAt: now - 5,
                title: "Alice Martin", body: "Are we still on for dinner at 7? I booked the table by the window 🍝", badge: 1),
            expectedPath: "complete")
    }

    /// 2. A long message whose body does not fit 4096 bytes of APNs JSON.
    static func longMessage(now: Int64) -> DemoNotification {
        DemoNotification(
            name: "long-message", title: "Long message (body truncated to fit)", conversation: .hike, transport: .apns,
            content: NotificationContent(
                conversationID: DemoConversation.hike.id, messageID: "msg:2001", sentAt: now - 4,
                title: "Dana Lee", subtitle: "Weekend hike 🥾", body: longBody),
            expectedPath: "truncated")
    }

    /// 3. A communication notification: the sender's name and id drive the avatar on iOS.
    static func groupMessage(now: Int64) -> DemoNotification {
        DemoNotification(
            name: "group-message", title: "Communication notification with a sender", conversation: .hike, transport: .apns,
            content: NotificationContent(
                conversationID: DemoConversation.hike.id, messageID: "msg:2002", sentAt: now - 3,
                title: "Weekend hike 🥾", body: "I'll bring the maps and the snacks 🗺️🍫",
                sender: .init(id: "user:carol", name: "Carol Diaz")),
            expectedPath: "complete")
    }

    /// 4. Sealed under epoch 1 just before the rotation, delivered after it.
    static func inFlight(now: Int64) -> DemoNotification {
        DemoNotification(
            name: "in-flight", title: "In flight during the rotation (old epoch)", conversation: .aliceBob, transport: .apns,
            content: NotificationContent(
                conversationID: DemoConversation.aliceBob.id, messageID: "msg:1002", sentAt: now - 2,
                title: "Alice Martin", body: "Running 10 minutes late, order the garlic bread for me!"),
            expectedPath: "complete")
    }

    /// 5. Sealed under the new epoch, to the Android phone.
    static func afterRotation(now: Int64) -> DemoNotification {
        DemoNotification(
            name: "after-rotation", title: "After the key rotation (new epoch)", conversation: .aliceBob, transport: .fcm,
            content: NotificationContent(
                conversationID: DemoConversation.aliceBob.id, messageID: "msg:1003", sentAt: now - 1,
                title: "Alice Martin", body: "I'm here, table by the window. See you soon!"),
            expectedPath: "complete")
    }

    /// 6. Too much to carry at all (a 160-photo album manifest in `x`): only cid, mid and ts are
    /// sealed and the app fetches the message (wake-and-fetch).
    static func contentFree(now: Int64) -> DemoNotification {
        let album = (1...160).map { "IMG_2026_\(String(repeating: "0", count: 4 - String($0).count))\($0).jpg" }.joined(separator: ", ")
        return DemoNotification(
            name: "content-free", title: "Huge content (content-free wake-and-fetch)", conversation: .hike, transport: .fcm,
            content: NotificationContent(
                conversationID: DemoConversation.hike.id, messageID: "msg:2003", sentAt: now,
                title: "Weekend hike 🥾", body: "Carol shared 160 photos from Saturday 📸", extras: ["album": album]),
            expectedPath: "content-free")
    }

    /// A notification sent 40 days ago (past the receiver's 31-day window), replayed now.
    static func stale(now: Int64) -> DemoNotification {
        DemoNotification(
            name: "stale", title: "Stale: sent 40 days ago, delivered now", conversation: .hike, transport: .apns,
            content: NotificationContent(
                conversationID: DemoConversation.hike.id, messageID: "msg:2000", sentAt: now - 40 * 86_400,
                title: "Weekend hike 🥾", body: "Who is in for a hike next month?"),
            expectedPath: "complete")
    }

    /// A message that arrives after the device wiped its keys (logout).
    static func afterLogout(now: Int64) -> DemoNotification {
        DemoNotification(
            name: "after-logout", title: "Arrives after a logout wipe", conversation: .aliceBob, transport: .apns,
            content: NotificationContent(
                conversationID: DemoConversation.aliceBob.id, messageID: "msg:1004", sentAt: now,
                title: "Alice Martin", body: "Did you get home okay?"),
            expectedPath: "complete")
    }

    /// About 5 KB of trip plan: more than fits, with multi-scalar emoji so the cut must respect
    /// grapheme clusters.
    static let longBody: String = {
        let days = [
            "meet at the trailhead car park at 07:30, coffee from the van 👨‍👩‍👧‍👦 is on me",
            "climb to the ridge (about 3 hours, 900 m up), lunch at the hut, then the lake loop",
            "pack out early, the forecast says rain after 14:00 ⛈️, so waterproofs for everyone",
        ]
        var text = "Here is the full plan for the weekend, please read it before Friday. "
        var line = 0
        while text.utf8.count < 5_000 {
            line += 1
            text += "Step \(line): \(days[line % days.count]). "
        }
        return text + "That's all — reply if anything does not work for you!"
    }()
}
