import PushSealCore
import PushSealJSON

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
    /// Whether the limit counts the payload's JSON bytes (APNs) rather than the data map's keys
    /// and values (FCM data messages).
    var countsJSONBytes = true

    /// This frame with `bundle` as a `"pushseal-bundle"` member right after the wire string, in
    /// the object that holds `"pushseal"`: the suffix `"…` becomes `","pushseal-bundle":"<text>"…`.
    /// The limit counts it first: 21 + |text| JSON bytes, or 15 + |text| data-map bytes (FCM).
    func carrying(_ bundle: KeyBundle?) -> PayloadFrame {
        guard let bundle else { return self }
        let text = bundle.text
        var copy = self
        copy.suffix = Array("\",\"\(PayloadMember.keyBundle)\":\"\(text)".utf8) + suffix
        copy.limitedOverhead += countsJSONBytes ? 6 + PayloadMember.keyBundle.utf8.count + text.utf8.count : PayloadMember.keyBundle.utf8.count + text.utf8.count
        return copy
    }

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
        // Written with plain copies into a buffer large enough for any escaping (each option
        // byte takes at most 6), on the stack in the usual case, then copied into one exactly
        // sized array.
        let bound = apnsPrefixUpperBound(options)
        let prefix = withUnsafeTemporaryAllocation(byteCount: bound, alignment: 8) { buffer -> [UInt8] in
            var writer = BoundedJSONWriter(buffer)
            writeAPNsPrefix(options: options, key: key, to: &writer)
            precondition(!writer.overflowed, "APNs prefix upper bound")
            return Array(UnsafeRawBufferPointer(rebasing: buffer[0..<writer.count]))
        }
        return PayloadFrame(
            prefix: prefix, suffix: apnsSuffix, limitedOverhead: prefix.count + apnsSuffix.count,
            limit: TransportLimit.apnsPayload).carrying(options.keyBundle)
    }

    /// `"}`: the APNs body after the wire string.
    static let apnsSuffix: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: "}")]

    /// More bytes than the APNs prefix can take: the fixed text, plus six per option byte (the
    /// longest escape, `\u00xx`), plus the array punctuation.
    static func apnsPrefixUpperBound(_ options: APNsOptions) -> Int {
        var bytes = 0
        switch options.placeholder {
        case let .text(title, body):
            bytes += (title?.utf8.count ?? 0) + body.utf8.count
        case let .localized(titleKey, titleArguments, bodyKey, bodyArguments):
            bytes += (titleKey?.utf8.count ?? 0) + bodyKey.utf8.count
            for argument in titleArguments + bodyArguments { bytes += argument.utf8.count + 3 }
        }
        bytes += (options.sound?.utf8.count ?? 0) + (options.category?.utf8.count ?? 0)
        if case let .plain(threadID) = options.threadID { bytes += threadID.utf8.count }
        return 6 * bytes + 512
    }

    private static func writeAPNsPrefix(options: APNsOptions, key: ConversationKey, to writer: inout BoundedJSONWriter) {
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
            writer.appendRaw(text: APNsOptions.relevanceScoreText(score))
        }
        writer.appendRaw("},\"")
        writer.appendRaw(PayloadMember.sealedLiteral)
        writer.appendRaw("\":\"")
    }

    /// base64url(HKDF-Expand(K, "pushseal v1 thread id", 16)) (= `ConversationKey.opaqueThreadID`)
    /// without intermediate arrays or strings.
    private static func appendOpaqueThreadID(of key: ConversationKey, to writer: inout BoundedJSONWriter) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            let count = key.opaqueThreadIDBytes.withUnsafeBytes { Base64URL.encode($0, into: text.baseAddress!) }
            writer.appendRaw(bytes: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(text)[0..<count]))
        }
    }

    private static func appendArray(_ strings: [String], to writer: inout BoundedJSONWriter) {
        writer.appendRaw("[")
        for (offset, string) in strings.enumerated() {
            if offset > 0 { writer.appendRaw(",") }
            writer.appendString(string)
        }
        writer.appendRaw("]")
    }

    // MARK: FCM

    /// The FCM message for `options`: the Android data message, or with ``FCMOptions/apns`` the
    /// iOS form.
    static func fcm(options: FCMOptions, key: ConversationKey, clock: SecondsClock) -> PayloadFrame {
        guard var apns = options.apns else { return fcmAndroid(options: options) }
        if apns.keyBundle == nil { apns.keyBundle = options.keyBundle }
        return fcmApple(token: options.token, apns: apns, key: key, expiration: apns.expirationTime(clock: clock))
    }

    /// `{"message":{"token":"…","apns":{"headers":{"apns-push-type":"alert","apns-priority":"10",`
    /// `"apns-expiration":"…"[,"apns-topic":…][,"apns-collapse-id":…]},"payload":` + the APNs
    /// payload + `}}}`. The 4096-byte limit applies to the APNs payload, as for direct APNs.
    static func fcmApple(token: String, apns: APNsOptions, key: ConversationKey, expiration: Int64) -> PayloadFrame {
        let payload = PayloadFrame.apns(options: apns, key: key)
        var writer = JSONWriter(capacity: 160 + token.utf8.count + payload.prefix.count)
        writer.appendRaw("{\"message\":{\"token\":")
        writer.appendString(token)
        writer.appendRaw(",\"apns\":{\"headers\":{\"apns-push-type\":\"alert\",\"apns-priority\":")
        writer.appendString(String(apns.priority.rawValue))
        writer.appendRaw(",\"apns-expiration\":")
        writer.appendString(String(expiration))
        if let topic = apns.topic {
            writer.appendRaw(",\"apns-topic\":")
            writer.appendString(topic)
        }
        if let collapseID = apns.collapseID {
            writer.appendRaw(",\"apns-collapse-id\":")
            writer.appendString(collapseID)
        }
        writer.appendRaw("},\"payload\":")
        writer.appendRaw(bytes: payload.prefix)
        return PayloadFrame(
            prefix: writer.bytes, suffix: payload.suffix + Array("}}}".utf8), limitedOverhead: payload.limitedOverhead,
            limit: payload.limit)
    }

    /// `{"message":{"token":"…","data":{"pushseal":"` … `"},"android":{"priority":"high","ttl":"…s"}}}`.
    /// The token needs no escaping (``FCMOptions/validate()`` admits no `"`, `\` or control bytes).
    static func fcmAndroid(options: FCMOptions) -> PayloadFrame {
        var writer = JSONWriter(capacity: 48 + options.token.utf8.count)
        writer.appendRaw("{\"message\":{\"token\":")
        writer.appendString(options.token)
        writer.appendRaw(",\"data\":{\"")
        writer.appendRaw(PayloadMember.sealedLiteral)
        writer.appendRaw("\":\"")
        let prefix = writer.bytes
        var tail = JSONWriter(capacity: 64)
        tail.appendRaw("\"},\"android\":{\"priority\":")
        tail.appendString(options.priority.rawValue)
        tail.appendRaw(",\"ttl\":\"")
        tail.appendInteger(options.timeToLive)
        tail.appendRaw("s\"}}}")
        return PayloadFrame(
            prefix: prefix, suffix: tail.bytes, limitedOverhead: PayloadMember.sealed.utf8.count,
            limit: TransportLimit.fcmData, countsJSONBytes: false).carrying(options.keyBundle)
    }
}
