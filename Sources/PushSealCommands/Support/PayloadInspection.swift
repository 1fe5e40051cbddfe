import PushSealCore
import PushSealJSON

/// What `pushseal inspect` finds in a payload, without any key: which transport form it is,
/// where the envelope is, its header fields and sizes, whether the payload fits APNs and FCM,
/// and, when the envelope is not valid, the receiver's reason code and why.
///
/// Accepted inputs: an APNs payload (`{"aps":…,"pushseal":"…"}`), an FCM HTTP v1 message
/// (`{"message":{…,"data":{"pushseal":"…"}}}`), an FCM data map (`{"pushseal":"…",…}`), or the
/// bare wire string (optionally as a JSON string).
struct PayloadInspection {
    /// The input's shape.
    enum Form: String {
        case apns
        case fcmMessage = "fcm-message"
        case fcmData = "fcm-data"
        case wire

        /// For people.
        var label: String {
            switch self {
            case .apns: "APNs payload"
            case .fcmMessage: "FCM v1 message"
            case .fcmData: "FCM data map"
            case .wire: "bare wire string"
            }
        }
    }

    /// A payload size against a transport limit.
    struct TransportSize {
        /// Bytes counted the way the transport counts them.
        let byteCount: Int
        /// The transport's limit (4096 for both).
        let limit: Int
        /// True when measured on the given payload; false for the smallest payload of that
        /// transport that could carry this envelope (the input was another form).
        let isMeasured: Bool
        /// Whether it is within the limit.
        var fits: Bool { byteCount <= limit }
    }

    /// The smallest APNs body around a wire string: `{"aps":{"mutable-content":1},"pushseal":"…"}`.
    static let apnsMinimumOverhead = #"{"aps":{"mutable-content":1},"":""}"#.utf8.count + memberName.utf8.count
    /// The data map key.
    static var memberName: String { PayloadMember.sealed }
    /// Nesting accepted when parsing payloads for inspection (payloads are shallow; this only
    /// bounds work).
    static let maximumPayloadDepth = 64

    /// The recognised form; nil when the input is not recognisable as any of them.
    var form: Form?
    /// Payload size in bytes, surrounding whitespace excluded.
    var payloadByteCount = 0
    /// The envelope's wire string, when one was found.
    var wire: String?
    /// The parsed envelope when it is valid.
    var envelope: Envelope?
    /// The receiver's reason code when the payload would not open (before any key is needed).
    var reason: ReasonCode?
    /// Why, for people.
    var problem: String?
    /// What to do about it.
    var hints: [String] = []
    /// Decoded envelope length, when the wire string is base64url (valid or not).
    var decodedByteCount: Int?
    /// The version byte, when there is a decoded byte.
    var version: UInt8?
    /// The key id from the header, when the bytes are long enough (even if the envelope is invalid).
    var keyID: KeyID?
    /// The salt from the header, when the bytes are long enough.
    var salt: [UInt8]?
    /// APNs size against its limit.
    var apns: TransportSize?
    /// FCM data size against its limit.
    var fcm: TransportSize?

    /// True when the input is a key bundle's text (`pushseal bundle seal`), not a payload: a bare
    /// wire string that is no envelope but a well-formed bundle (`inspect --bundle` describes it).
    var isKeyBundle = false

    /// Whether the envelope is well-formed (a key would still be needed to authenticate it).
    var isValid: Bool { envelope != nil }

    /// Inspects raw payload bytes.
    static func inspect(_ input: [UInt8]) -> PayloadInspection {
        var result = PayloadInspection()
        let trimmed = trimmingJSONWhitespace(input)
        result.payloadByteCount = trimmed.count
        var dataMap: JSONObject?

        switch trimmed.first {
        case nil:
            result.fail(.notSealed, "not a PushSeal payload: the input is only whitespace", hint: acceptedInputsHint)
            return result
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""):
            let value: JSONValue
            do throws(JSONParser.Error) {
                value = try JSONParser.parse(trimmed, maximumDepth: maximumPayloadDepth)
            } catch {
                if error.message == "duplicate member name \"\(memberName)\"" {
                    result.fail(.malformedEnvelope, "the \"pushseal\" member appears more than once (at byte \(error.offset))",
                                hint: "a payload carries exactly one envelope; receivers reject duplicates so two parsers cannot disagree")
                } else {
                    result.fail(.notSealed, "not a PushSeal payload: not strict JSON: \(error)", hint: acceptedInputsHint)
                }
                return result
            }
            switch value {
            case let .string(text):
                result.form = .wire
                result.wire = text
            case let .object(object):
                let container: JSONObject?
                if object["aps"] != nil {
                    result.form = .apns
                    container = object
                } else if let message = object["message"] {
                    result.form = .fcmMessage
                    container = message.objectValue?["data"]?.objectValue
                    dataMap = container
                } else {
                    result.form = .fcmData
                    container = object
                    dataMap = object
                }
                guard let member = container?[memberName] else {
                    result.fail(.notSealed, result.form == .fcmMessage
                                ? "not a PushSeal payload: no message.data.pushseal member"
                                : "not a PushSeal payload: no top-level \"pushseal\" member",
                                hint: "the envelope travels as the \"pushseal\" string: top level for APNs and FCM data maps, message.data.pushseal in an FCM v1 message")
                    return result
                }
                guard let text = member.stringValue else {
                    result.fail(.malformedEnvelope, "the \"pushseal\" member is not a string",
                                hint: "\"pushseal\" must be a JSON string holding the base64url envelope")
                    return result
                }
                result.wire = text
            default:
                result.fail(.notSealed, "not a PushSeal payload: the JSON value is not an object", hint: acceptedInputsHint)
                return result
            }
        default:
            let text = String(decoding: trimmed, as: UTF8.self)
            guard text.utf8.elementsEqual(trimmed) else {
                result.fail(.notSealed, "not a PushSeal payload: the input is neither JSON nor text", hint: acceptedInputsHint)
                return result
            }
            result.form = .wire
            result.wire = text
        }

        let wire = result.wire!
        let wireLength = wire.utf8.count
        result.apns = result.form == .apns
            ? TransportSize(byteCount: result.payloadByteCount, limit: TransportLimit.apnsPayload, isMeasured: true)
            : TransportSize(byteCount: apnsMinimumOverhead + wireLength, limit: TransportLimit.apnsPayload, isMeasured: false)
        result.fcm = dataMap.map { TransportSize(byteCount: fcmDataByteCount($0), limit: TransportLimit.fcmData, isMeasured: true) }
            ?? TransportSize(byteCount: memberName.utf8.count + wireLength, limit: TransportLimit.fcmData, isMeasured: false)

        if let bytes = try? Base64URL.decode(wire) {
            result.decodedByteCount = bytes.count
            result.version = bytes.first
            if bytes.first == Envelope.version {
                if bytes.count >= 1 + KeyID.byteCount { result.keyID = KeyID(bytes: bytes[1..<(1 + KeyID.byteCount)]) }
                if bytes.count >= Envelope.headerByteCount { result.salt = Array(bytes[(1 + KeyID.byteCount)..<Envelope.headerByteCount]) }
            }
        }
        do throws(OpenError) {
            result.envelope = try Envelope(wire: wire)
        } catch {
            result.fail(error.reason, error.description, hint: hint(for: error, wire: wire))
            // A bundle's version byte (2) is no envelope version: name what it is instead.
            if result.form == .wire, (try? KeyBundle(text: wire)) != nil {
                result.isKeyBundle = true
                result.problem = "this is a key bundle's text ('pushseal bundle seal'), not a notification payload"
                result.hints = ["inspect it with: pushseal inspect --bundle"]
            }
        }
        return result
    }

    private mutating func fail(_ reason: ReasonCode, _ problem: String, hint: String) {
        self.reason = reason
        self.problem = problem
        hints = [hint]
    }

    static let acceptedInputsHint =
        "inspect reads an APNs payload, an FCM v1 message, an FCM data map, or a bare wire string"

    private static func hint(for error: OpenError, wire: String) -> String {
        switch error {
        case .unsupportedVersion:
            return "this build reads envelope version 1 only; was it sealed by a newer PushSeal?"
        case .malformedEnvelope where wire.utf8.count > Envelope.maximumWireLength:
            return "a wire string is at most \(Envelope.maximumWireLength) characters (a \(Envelope.maximumByteCount)-byte envelope)"
        case .malformedEnvelope where (try? Base64URL.decode(wire)) == nil:
            return "wire strings are base64url without padding (RFC 4648 §5): A-Z a-z 0-9 - _ only, never '='"
        default:
            return "a version 1 envelope is \(Envelope.minimumByteCount) to \(Envelope.maximumByteCount) bytes: header \(Envelope.headerByteCount), padded content, tag 16; was the string cut short?"
        }
    }

    /// FCM's data size: the UTF-8 bytes of every key and value of the data map (non-string
    /// values, which FCM rejects anyway, count as their compact JSON).
    static func fcmDataByteCount(_ data: JSONObject) -> Int {
        data.members.reduce(0) { total, member in
            let valueCount = member.value.stringValue?.utf8.count ?? member.value.compactText.utf8.count
            return total + member.name.utf8.count + valueCount
        }
    }

    /// `bytes` without leading and trailing JSON whitespace (space, tab, LF, CR).
    static func trimmingJSONWhitespace(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }) else { return [] }
        let end = bytes.lastIndex(where: { !isSpace($0) })!
        return bytes[start...end]
    }
}
