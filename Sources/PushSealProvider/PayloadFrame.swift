import PushSealCore

/// The bytes around the wire string in a payload, and how the transport limit is measured.
///
/// Every payload is `prefix || base64url(E) || suffix`; the limit applies to
/// `limitedOverhead + |wire|` bytes.
struct PayloadFrame {
    /// Bytes before the wire string (ends with `"pushseal":"`).
    var prefix: [UInt8]
    /// Bytes after the wire string.
    var suffix: [UInt8]
    /// Bytes counted against the limit besides the wire string.
    var limitedOverhead: Int
    /// The transport limit.
    var limit: Int

    /// The largest envelope whose payload fits, or nil when not even the smallest does.
    var maximumEnvelopeByteCount: Int? {
        let room = limit - limitedOverhead
        guard room >= 0 else { return nil }
        let largest = min(Envelope.maximumByteCount, Base64URL.decodedLength(of: room))
        return largest >= Envelope.minimumByteCount ? largest : nil
    }

    /// The largest padded plaintext |P| whose payload fits (nil: none fits).
    var maximumPaddedByteCount: Int? {
        maximumEnvelopeByteCount.map { $0 - Envelope.overheadByteCount }
    }

    /// `prefix || wire || suffix` (the wire is written as is; callers pass a base64url string).
    func wrap(_ wire: String) -> [UInt8] {
        var writer = JSONWriter(capacity: prefix.count + wire.utf8.count + suffix.count)
        writer.appendRaw(bytes: prefix)
        var wire = wire
        wire.withUTF8 { writer.appendRaw(bytes: $0) }
        writer.appendRaw(bytes: suffix)
        return writer.bytes
    }

    /// Bytes counted against the limit for an envelope of `envelopeByteCount` bytes.
    func limitedByteCount(envelopeByteCount: Int) -> Int {
        limitedOverhead + Base64URL.encodedLength(of: envelopeByteCount)
    }

    // MARK: APNs

    /// `{"aps":{"alert":{…},"mutable-content":1[,"sound":…][,"thread-id":…][,"category":…]`
    /// `[,"interruption-level":…][,"relevance-score":…]},"pushseal":"` … `"}`.
    static func apns(options: APNsOptions, key: ConversationKey) -> PayloadFrame {
        var writer = JSONWriter(capacity: 160)
        writer.appendRaw("{\"aps\":{\"alert\":{")
        switch options.placeholder {
        case let .text(title, body):
            if let title {
                writer.appendRaw("\"title\":")
                writer.appendString(title)
                writer.appendRaw(",")
            }
            writer.appendRaw("\"body\":")
            writer.appendString(body)
        case let .localized(titleKey, titleArguments, bodyKey, bodyArguments):
            if let titleKey {
                writer.appendRaw("\"title-loc-key\":")
                writer.appendString(titleKey)
                if !titleArguments.isEmpty {
                    writer.appendRaw(",\"title-loc-args\":")
                    appendArray(titleArguments, to: &writer)
                }
                writer.appendRaw(",")
            }
            writer.appendRaw("\"loc-key\":")
            writer.appendString(bodyKey)
            if !bodyArguments.isEmpty {
                writer.appendRaw(",\"loc-args\":")
                appendArray(bodyArguments, to: &writer)
            }
        }
        writer.appendRaw("},\"mutable-content\":1")
        if let sound = options.sound {
            writer.appendRaw(",\"sound\":")
            writer.appendString(sound)
        }
        switch options.threadID {
        case .opaque:
            writer.appendRaw(",\"thread-id\":\"")
            appendOpaqueThreadID(of: key, to: &writer)
            writer.appendRaw("\"")
        case let .plain(threadID):
            writer.appendRaw(",\"thread-id\":")
            writer.appendString(threadID)
        case .omitted:
            break
        }
        if let category = options.category {
            writer.appendRaw(",\"category\":")
            writer.appendString(category)
        }
        if let level = options.interruptionLevel {
            writer.appendRaw(",\"interruption-level\":")
            writer.appendString(level.rawValue)
        }
        if let score = options.relevanceScore {
            writer.appendRaw(",\"relevance-score\":")
            writer.appendRaw(bytes: APNsOptions.relevanceScoreText(score).utf8)
        }
        writer.appendRaw("},\"pushseal\":\"")
        let prefix = writer.bytes
        let suffix: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: "}")]
        return PayloadFrame(
            prefix: prefix, suffix: suffix, limitedOverhead: prefix.count + suffix.count,
            limit: NotificationSealer.apnsPayloadLimit)
    }

    /// base64url(HKDF-Expand(K, "pushseal v1 thread id", 16)) (= `ConversationKey.opaqueThreadID`)
    /// without intermediate arrays or strings.
    private static func appendOpaqueThreadID(of key: ConversationKey, to writer: inout JSONWriter) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            let count = key.opaqueThreadIDBytes.withUnsafeBytes { Base64URL.encode($0, into: text.baseAddress!) }
            writer.appendRaw(bytes: UnsafeBufferPointer(rebasing: text[0..<count]))
        }
    }

    private static func appendArray(_ strings: [String], to writer: inout JSONWriter) {
        writer.appendRaw("[")
        for (offset, string) in strings.enumerated() {
            if offset > 0 { writer.appendRaw(",") }
            writer.appendString(string)
        }
        writer.appendRaw("]")
    }

    // MARK: FCM

    /// `{"message":{"token":"…","data":{"pushseal":"` … `"},"android":{"priority":"high","ttl":"…s"}}}`.
    /// The token needs no escaping (``FCMOptions/validate()`` admits no `"`, `\` or control bytes).
    static func fcm(options: FCMOptions) -> PayloadFrame {
        var writer = JSONWriter(capacity: 48 + options.token.utf8.count)
        writer.appendRaw("{\"message\":{\"token\":")
        writer.appendString(options.token)
        writer.appendRaw(",\"data\":{\"pushseal\":\"")
        let prefix = writer.bytes
        var tail = JSONWriter(capacity: 64)
        tail.appendRaw("\"},\"android\":{\"priority\":")
        tail.appendString(options.priority.rawValue)
        tail.appendRaw(",\"ttl\":\"")
        tail.appendInteger(options.timeToLive)
        tail.appendRaw("s\"}}}")
        return PayloadFrame(
            prefix: prefix, suffix: tail.bytes, limitedOverhead: NotificationSealer.fcmDataKey.utf8.count,
            limit: NotificationSealer.fcmDataLimit)
    }
}
