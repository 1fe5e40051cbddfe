import PushSealCore
import PushSealProvider

/// Deterministic inputs: contents whose encoding has an exact size, and payloads sealed from them.
enum Fixtures {
    /// `ts` of every content; the receivers' clocks are fixed to it.
    static let sentAt: Int64 = 1_700_000_000
    /// The conversation of the in-memory key.
    static let conversation = "c_81f3a9"

    private static let filler = Array(
        "Are we still on for seven? I booked the table by the window, bring the photos from the trip. ".utf8)

    /// A chat message content (title, sender, body) whose deterministic encoding is exactly
    /// `byteCount` bytes; `message` makes the mid unique without changing the size.
    static func content(byteCount: Int, conversation: String = conversation, message: Int = 0) -> NotificationContent {
        var content = NotificationContent(
            conversationID: conversation, messageID: messageID(message), sentAt: sentAt, title: "Ana",
            body: "", sender: .init(id: "u_17", name: "Ana Lima"))
        let fixed = content.encodedByteCount
        precondition(byteCount >= fixed, "a content of \(byteCount) bytes is too small for the fixture fields")
        var body: [UInt8] = []
        body.reserveCapacity(byteCount - fixed)
        while body.count < byteCount - fixed { body.append(filler[body.count % filler.count]) }
        content.body = String(decoding: body, as: UTF8.self)
        precondition(content.encodedByteCount == byteCount)
        return content
    }

    /// `m_` and 10 digits: the same length for every message number.
    static func messageID(_ number: Int) -> String {
        var digits = String(number)
        while digits.utf8.count < 10 { digits = "0" + digits }
        return "m_" + digits
    }

    /// Default APNs options: placeholder "New message", opaque thread id, and the topic as a
    /// server has it: a string made at run time (heap storage with a reference count, which a
    /// literal in the binary does not have), as if read from its configuration.
    static let apnsOptions = makeAPNsOptions()

    /// A new value of ``apnsOptions`` whose topic has storage of its own (shares no reference
    /// count with any other).
    static func makeAPNsOptions() -> APNsOptions {
        APNsOptions(topic: String(decoding: Array("com.example.chat".utf8), as: UTF8.self))
    }

    /// The APNs payload for `content` under `key` (random salt; pad block `padBlock`).
    static func payload(_ content: NotificationContent, key: ConversationKey, padBlock: Int = 256) -> [UInt8] {
        let sealer = try! NotificationSealer(padBlock: padBlock)
        return try! sealer.seal(content, with: key, options: apnsOptions).body
    }

    /// The padded size the default sealer gives a content of `byteCount` bytes.
    static func paddedByteCount(contentByteCount: Int, padBlock: Int = 256) -> Int {
        Padding.paddedLength(contentLength: contentByteCount, blockSize: padBlock)
    }
}
