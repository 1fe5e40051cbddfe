@_spi(Vectors) import PushSealCore

extension VectorCaseBuilder {
    mutating func defineValid() {
        padded("A chat message with title and body, default pad block", flags: ["Valid"], content: basic(), label: "valid basic")
        padded("Empty body", flags: ["Valid", "EmptyBody"], content: basic(body: "", mid: "m-0002"), label: "valid empty")
        padded(
            "Multi-byte UTF-8: CJK, Arabic (RTL), ZWJ family, skin tone, combining marks, astral plane",
            flags: ["Valid", "Unicode"],
            content: try! NotificationContent(
                conversationID: conversation, messageID: "m-0003", sentAt: sentAt, title: "李小龍 👨‍👩‍👧‍👦",
                body: "你好！مرحبا بالعالم 👋🏽 e\u{301}\u{302} 𝄞 🏳️‍🌈").encoded(),
            label: "valid unicode")
        padded(
            "Strings containing characters JSON escapes: quote, backslash, newline, tab, U+0001, U+001F",
            flags: ["Valid", "Escapes"],
            content: try! NotificationContent(
                conversationID: conversation, messageID: "m-0004", sentAt: sentAt, title: "\"Quoted\" \\ title",
                body: "line 1\nline 2\ttab \u{1}\u{1F} / end").encoded(),
            label: "valid escapes")
        padded(
            "Every optional field present", flags: ["Valid", "AllFields"],
            content: try! NotificationContent(
                conversationID: conversation, messageID: "m-0005", sentAt: sentAt, title: "Alice", subtitle: "Weekend plans",
                body: "Bring the tent…", sender: .init(id: "user-alice", name: "Alice Liddell"), thread: "weekend",
                category: "MESSAGE_REPLY", badge: 7, isTruncated: true,
                extras: ["deeplink": "app://c/conv-alice-bob/m-0005", "kind": "text"]).encoded(),
            label: "valid all fields")
        for block in [1, 16, 1024] {
            padded("Pad block \(block)", flags: ["Valid", "PadBlock"], content: basic(mid: "m-pad-\(block)"), padBlock: block,
                   label: "valid pad \(block)")
        }
        defineLargest()
        padded(
            "Content-free wake-and-fetch content: cid, mid and ts only", flags: ["Valid", "ContentFree"],
            content: try! NotificationContent(conversationID: conversation, messageID: "m-0006", sentAt: sentAt, body: nil).encoded(),
            label: "valid content free")
        padded(
            "Unknown members (including nested values and numbers in any form) are ignored",
            flags: ["Valid", "UnknownMembers"],
            content: content(#"{"cid":"conv-alice-bob","mid":"m-0007","ts":\#(sentAt),"body":"hi","v2":{"list":[1,2.5,-3e2,null,true]},"zz":null}"#),
            label: "valid unknown")
        padded(
            "Whitespace between tokens and a different member order are valid JSON and accepted",
            flags: ["Valid", "MemberOrder"],
            content: content("{ \"body\" : \"hi\" ,\n\t\"ts\" : \(sentAt), \"mid\":\"m-0008\", \"cid\":\"conv-alice-bob\" }"),
            label: "valid whitespace")
        padded("Already seen (cid, mid): delivered and flagged duplicate", flags: ["Valid", "Duplicate"],
               content: basic(mid: "m-0009"), label: "valid duplicate") {
            $0.previouslySeen = true
            $0.duplicate = true
        }
        padded("ts exactly maxAge seconds before now is still fresh", flags: ["Valid", "FreshnessBoundary"],
               content: basic(mid: "m-0010", ts: VectorSuite.now - VectorSuite.defaultMaxAge), label: "valid oldest")
        padded("ts exactly maxFutureSkew seconds after now is still fresh", flags: ["Valid", "FreshnessBoundary"],
               content: basic(mid: "m-0011", ts: VectorSuite.now + VectorSuite.defaultMaxFutureSkew), label: "valid newest")
        padded("A custom freshness window: one hour", flags: ["Valid", "FreshnessBoundary"],
               content: basic(mid: "m-0012", ts: VectorSuite.now - 3600), label: "valid custom window") {
            $0.maxAge = 3600
        }
    }

    /// The largest body that fits APNs's 4096-byte payload with pad block 1.
    mutating func defineLargest() {
        let overhead = transports.apnsPayload("", alice).utf8.count
        let maximumWire = TransportLimit.apnsPayload - overhead
        let maximumEnvelope = min(Base64URL.decodedLength(of: maximumWire), Envelope.maximumByteCount)
        let maximumContent = min(maximumEnvelope - Envelope.overheadByteCount - 1, NotificationContent.maximumByteCount)
        let emptyLength = basic(body: "", mid: "m-max").count
        let body = String(repeating: "x", count: maximumContent - emptyLength)
        let largest = basic(body: body, mid: "m-max")
        precondition(largest.count == maximumContent)
        padded("The largest content that fits a 4096-byte APNs payload (pad block 1)", flags: ["Valid", "MaxSize"],
               content: largest, padBlock: 1, label: "valid largest")
    }
}
