import PushSealTestSupport
import Testing
import PushSealCore
import PushSealJSON
@_spi(Vectors) import PushSealProvider

/// A fixed key from a seed byte (tests only).
func testKey(_ seed: UInt8) -> ConversationKey {
    try! ConversationKey(rawBytes: (0..<32).map { UInt8(truncatingIfNeeded: Int($0) &* 7 &+ Int(seed)) })
}

/// A deterministic 24-byte salt from the content's message id (FNV-1a based; tests only).
let saltFromMessageID: @Sendable (NotificationContent) -> [UInt8] = { content in
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in content.messageID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    return (0..<24).map { UInt8(truncatingIfNeeded: hash >> (UInt64($0 % 8) * 8)) ^ UInt8($0) }
}

// MARK: - Random text

enum TextKind: CaseIterable { case ascii, cjk, emoji, combining, rtl, mixed }

/// Pieces that exercise grapheme clustering and JSON escaping.
enum TextPieces {
    static let emoji = [
        "👩🏽‍💻", "👨‍👩‍👧‍👦", "🏳️‍🌈", "👍🏿", "👋", "🇯🇵", "🇺🇦", "🧑🏻‍🤝‍🧑🏾", "❤️", "😀", "🏴‍☠️", "👩‍❤️‍💋‍👨", "#️⃣",
    ]
    static let combining = ["e\u{301}", "a\u{308}\u{301}\u{323}", "n\u{303}", "o\u{302}\u{300}", "\u{1100}\u{1161}\u{11A8}", "g\u{30A}\u{327}"]
    static let rtl = ["שלום", "مرحبا", "\u{200F}עברית", "سلام عليكم", "\u{0600}١٢", "ك\u{64E}ت\u{64E}ب\u{64E}"]
    static let asciiSpecial = ["\"", "\\", "\n", "\t", "\r\n", "\u{1}", "\u{1F}", "/", " ", "\u{7F}"]

    static func piece(_ kind: TextKind, using rng: inout SeededGenerator) -> String {
        switch kind {
        case .ascii:
            if Int.random(in: 0..<12, using: &rng) == 0 { return asciiSpecial.randomElement(using: &rng)! }
            let length = Int.random(in: 1...12, using: &rng)
            return String(String.UnicodeScalarView((0..<length).map { _ in Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &rng)) }))
        case .cjk:
            let length = Int.random(in: 1...6, using: &rng)
            return String(String.UnicodeScalarView((0..<length).map { _ in Unicode.Scalar(UInt32.random(in: 0x4E00...0x9FFF, using: &rng))! }))
        case .emoji:
            return emoji.randomElement(using: &rng)!
        case .combining:
            if Int.random(in: 0..<40, using: &rng) == 0 {
                // A long "zalgo" cluster: one base and many combining marks.
                let marks = Int.random(in: 20...300, using: &rng)
                return "Z" + String(String.UnicodeScalarView((0..<marks).map { _ in Unicode.Scalar(UInt32.random(in: 0x300...0x36F, using: &rng))! }))
            }
            return combining.randomElement(using: &rng)!
        case .rtl:
            return rtl.randomElement(using: &rng)!
        case .mixed:
            return piece([.ascii, .cjk, .emoji, .combining, .rtl].randomElement(using: &rng)!, using: &rng)
        }
    }

    /// Text of about `byteCount` UTF-8 bytes (at least that many, unless 0).
    static func text(byteCount: Int, kind: TextKind, using rng: inout SeededGenerator) -> String {
        var text = ""
        var count = 0
        while count < byteCount {
            let piece = piece(kind, using: &rng)
            text += piece
            count += piece.utf8.count
        }
        return text
    }
}

/// Random ids of visible ASCII letters and digits, long enough to be recognisable in a payload.
func randomIdentifier(_ prefix: String, using rng: inout SeededGenerator) -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    return prefix + String((0..<Int.random(in: 10...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
}

/// A random valid content; the body is empty to 100 KB.
func randomContent(using rng: inout SeededGenerator) -> NotificationContent {
    let kind = TextKind.allCases.randomElement(using: &rng)!
    let bodyBytes: Int = switch Int.random(in: 0..<10, using: &rng) {
    case 0: 0
    case 1...3: Int.random(in: 1...300, using: &rng)
    case 4...6: Int.random(in: 300...4_000, using: &rng)
    case 7...8: Int.random(in: 4_000...20_000, using: &rng)
    default: Int.random(in: 20_000...100_000, using: &rng)
    }
    func maybeText(_ probability: Int, maxBytes: Int) -> String? {
        guard Int.random(in: 0..<100, using: &rng) < probability else { return nil }
        return TextPieces.text(byteCount: Int.random(in: 1...maxBytes, using: &rng), kind: .mixed, using: &rng)
    }
    let bigTitle = Int.random(in: 0..<20, using: &rng) == 0
    var extras: [String: String] = [:]
    if Int.random(in: 0..<3, using: &rng) == 0 {
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            extras[randomIdentifier("k", using: &rng)] = TextPieces.text(byteCount: Int.random(in: 0...(bigTitle ? 1500 : 80), using: &rng), kind: .mixed, using: &rng)
        }
    }
    return NotificationContent(
        conversationID: randomIdentifier("conv-", using: &rng), messageID: randomIdentifier("msg-", using: &rng),
        sentAt: Int64.random(in: 0...NotificationContent.maximumTimestamp, using: &rng),
        title: bigTitle ? TextPieces.text(byteCount: Int.random(in: 2_000...6_000, using: &rng), kind: .mixed, using: &rng) : maybeText(70, maxBytes: 60),
        subtitle: maybeText(20, maxBytes: 40),
        body: TextPieces.text(byteCount: bodyBytes, kind: kind, using: &rng),
        sender: Int.random(in: 0..<2, using: &rng) == 0 ? .init(id: randomIdentifier("user-", using: &rng), name: maybeText(80, maxBytes: 30)) : nil,
        thread: Int.random(in: 0..<4, using: &rng) == 0 ? randomIdentifier("thread-", using: &rng) : nil,
        category: Int.random(in: 0..<4, using: &rng) == 0 ? "REPLY" : nil,
        badge: Int.random(in: 0..<3, using: &rng) == 0 ? Int64.random(in: 0...NotificationContent.maximumBadge, using: &rng) : nil,
        extras: extras)
}

// MARK: - Checking a payload

/// The deterministic encoding without the 4000-byte check (contents to be truncated exceed it).
func encodedUnchecked(_ content: NotificationContent) -> [UInt8] {
    var writer = JSONWriter()
    content.writeJSON(to: &writer)
    return writer.bytes
}

enum Transport { case apns(APNsOptions), fcm(FCMOptions) }

struct PayloadResult {
    let body: [UInt8]
    let path: SealPath
    let sizes: SealSizes
}

extension APNsRequest { var checked: PayloadResult { PayloadResult(body: body, path: path, sizes: sizes) } }
extension FCMMessage { var checked: PayloadResult { PayloadResult(body: body, path: path, sizes: sizes) } }

func member(_ object: JSONObject, _ name: String) -> JSONValue? { object[name] }

/// JSON text of a string value, as `JSONWriter` writes it.
func jsonString(_ string: String) -> String {
    var writer = JSONWriter()
    writer.appendString(string)
    return writer.text
}

/// The expected alert object text for a placeholder.
func alertText(_ placeholder: APNsOptions.Placeholder) -> String {
    switch placeholder {
    case let .text(title, body):
        return "{" + (title.map { "\"title\":\(jsonString($0))," } ?? "") + "\"body\":\(jsonString(body))}"
    case let .localized(titleKey, titleArguments, bodyKey, bodyArguments):
        func array(_ items: [String]) -> String { "[" + items.map(jsonString).joined(separator: ",") + "]" }
        var text = "{"
        if let titleKey {
            text += "\"title-loc-key\":\(jsonString(titleKey))"
            if !titleArguments.isEmpty { text += ",\"title-loc-args\":\(array(titleArguments))" }
            text += ","
        }
        text += "\"loc-key\":\(jsonString(bodyKey))"
        if !bodyArguments.isEmpty { text += ",\"loc-args\":\(array(bodyArguments))" }
        return text + "}"
    }
}

/// UTF-8 offsets of the extended grapheme cluster boundaries of `text` (0 and the end included).
func graphemeBoundaries(_ text: String) -> [Int] {
    var offsets = [0]
    var offset = 0
    for character in text {
        offset += character.utf8.count
        offsets.append(offset)
    }
    return offsets
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
    let first = needle[0]
    var index = 0
    while index <= haystack.count - needle.count {
        if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return true }
        index += 1
    }
    return false
}

/// Checks everything the size policy promises about one sealed payload. Returns the decrypted content.
@discardableResult
func checkPayload(
    _ result: PayloadResult, content: NotificationContent, key: ConversationKey, transport: Transport, padBlock: Int,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> NotificationContent {
    let parsed = try JSONParser.parse(result.body)
    let top = try #require(parsed.objectValue, sourceLocation: sourceLocation)
    let wire: String
    switch transport {
    case let .apns(options):
        #expect(top.members.map(\.name) == ["aps", "pushseal"], sourceLocation: sourceLocation)
        let aps = try #require(top["aps"]?.objectValue, sourceLocation: sourceLocation)
        #expect(aps["mutable-content"] == .number("1"), sourceLocation: sourceLocation)
        let alert = try #require(aps["alert"], sourceLocation: sourceLocation)
        #expect(alert.compactText == alertText(options.placeholder), sourceLocation: sourceLocation)
        #expect(aps.members.first?.name == "alert", sourceLocation: sourceLocation)
        wire = try #require(top["pushseal"]?.stringValue, sourceLocation: sourceLocation)
        #expect(result.body.count <= 4096, sourceLocation: sourceLocation)
        #expect(result.sizes.limitedByteCount == result.body.count, sourceLocation: sourceLocation)
    case let .fcm(options):
        #expect(top.members.map(\.name) == ["message"], sourceLocation: sourceLocation)
        let message = try #require(top["message"]?.objectValue, sourceLocation: sourceLocation)
        #expect(message.members.map(\.name) == ["token", "data", "android"], sourceLocation: sourceLocation)
        #expect(message["token"] == .string(options.token), sourceLocation: sourceLocation)
        let data = try #require(message["data"]?.objectValue, sourceLocation: sourceLocation)
        #expect(data.members.map(\.name) == ["pushseal"], sourceLocation: sourceLocation)
        wire = try #require(data["pushseal"]?.stringValue, sourceLocation: sourceLocation)
        #expect(message["android"]?.compactText == "{\"priority\":\"\(options.priority.rawValue)\",\"ttl\":\"\(options.timeToLive)s\"}", sourceLocation: sourceLocation)
        // FCM counts the data map's keys plus values.
        #expect(8 + wire.utf8.count <= 4096, sourceLocation: sourceLocation)
        #expect(result.sizes.limitedByteCount == 8 + wire.utf8.count, sourceLocation: sourceLocation)
    }
    #expect(result.sizes.payloadByteCount == result.body.count, sourceLocation: sourceLocation)
    #expect(result.sizes.wireLength == wire.utf8.count, sourceLocation: sourceLocation)
    #expect(result.sizes.limit == 4096, sourceLocation: sourceLocation)

    let envelope = try Envelope(wire: wire)
    #expect(envelope.keyID == key.id, sourceLocation: sourceLocation)
    #expect(envelope.bytes.count == result.sizes.envelopeByteCount, sourceLocation: sourceLocation)
    #expect(envelope.paddedContentByteCount == result.sizes.paddedByteCount, sourceLocation: sourceLocation)
    let plaintext = try envelope.open(with: key)
    #expect(plaintext.count == result.sizes.contentByteCount, sourceLocation: sourceLocation)
    let decrypted = try envelope.openContent(with: key)

    // The rule, restated independently: the largest |P| that fits given this payload's overhead.
    let overhead = result.sizes.limitedByteCount - wire.utf8.count
    let maximumEnvelope = min(4096, Base64URL.decodedLength(of: 4096 - overhead))
    let maximumPadded = maximumEnvelope - 57
    let budget = min(4000, maximumPadded - 1)
    let expectedPadded = min(((plaintext.count + 1 + padBlock - 1) / padBlock) * padBlock, maximumPadded)
    #expect(result.sizes.paddedByteCount == expectedPadded, sourceLocation: sourceLocation)

    let original = encodedUnchecked(content)
    switch result.path {
    case .complete:
        #expect(try decrypted.encoded() == original, sourceLocation: sourceLocation)
        #expect(plaintext == original, sourceLocation: sourceLocation)
        #expect(original.count <= budget, sourceLocation: sourceLocation)
    case let .truncated(originalBodyLength):
        #expect(original.count > budget, sourceLocation: sourceLocation)
        let body = try #require(content.body, sourceLocation: sourceLocation)
        #expect(originalBodyLength == body.utf8.count, sourceLocation: sourceLocation)
        #expect(decrypted.isTruncated, sourceLocation: sourceLocation)
        let sealedBody = Array(try #require(decrypted.body, sourceLocation: sourceLocation).utf8)
        #expect(sealedBody.suffix(3) == [0xE2, 0x80, 0xA6], sourceLocation: sourceLocation)
        let kept = sealedBody.count - 3
        #expect(kept < body.utf8.count, sourceLocation: sourceLocation)
        #expect(Array(body.utf8.prefix(kept)) == Array(sealedBody.prefix(kept)), sourceLocation: sourceLocation)
        let boundaries = graphemeBoundaries(body)
        let position = try #require(boundaries.firstIndex(of: kept), "prefix must end at a grapheme boundary", sourceLocation: sourceLocation)
        // Every other field is unchanged.
        var restored = decrypted
        restored.body = body
        restored.isTruncated = content.isTruncated
        #expect(encodedUnchecked(restored) == original, sourceLocation: sourceLocation)
        // Longest: one more grapheme would not fit.
        var longer = decrypted
        longer.body = String(decoding: body.utf8.prefix(boundaries[position + 1]), as: UTF8.self) + "…"
        #expect(longer.encodedByteCount > budget, sourceLocation: sourceLocation)
    case .contentFree:
        #expect(decrypted.requiresFetch, sourceLocation: sourceLocation)
        #expect(try decrypted.encoded() == content.contentFree.encoded(), sourceLocation: sourceLocation)
        var shortest = content
        shortest.body = "…"
        shortest.isTruncated = true
        #expect(content.body == nil || shortest.encodedByteCount > budget, sourceLocation: sourceLocation)
    }
    if !content.isTruncated {
        let shortened = if case .truncated = result.path { true } else { false }
        #expect(decrypted.isTruncated == shortened, sourceLocation: sourceLocation)
    }

    // Nothing of the content appears outside the sealed wire string.
    let wireBytes = Array(wire.utf8)
    var outside = result.body
    if let range = outside.firstRange(of: wireBytes) { outside.removeSubrange(range) }
    var fields = [content.conversationID, content.messageID]
    fields += [content.title, content.subtitle, content.sender?.id, content.sender?.name, content.thread].compactMap { $0 }
    fields += content.extras.values
    if let body = content.body { fields.append(String(decoding: body.utf8.prefix(64), as: UTF8.self)) }
    for field in fields where field.utf8.count >= 8 {
        let escaped = Array(jsonString(field).utf8.dropFirst().dropLast())
        #expect(!contains(outside, escaped), "content field leaked outside the envelope", sourceLocation: sourceLocation)
    }
    return decrypted
}
