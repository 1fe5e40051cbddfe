public import PushSealCore
import PushSealJSON

/// What a payload shows to the push service, read without any key (`pushseal inspect`): its
/// transport form, its visible alert, the envelope found the one way ``Receiver`` finds it
/// (SPEC 10.1), the envelope's header, and its size against each transport's limit
/// (`TransportLimit`). Nothing is decrypted or authenticated: a valid envelope here can still
/// fail to open.
///
/// Accepted inputs: an APNs payload (`{"aps":…,"pushseal":"…"}`), an FCM HTTP v1 message
/// (`{"message":{…,"data":{"pushseal":"…"}}}`), an FCM data map (`{"pushseal":"…",…}`), or the
/// bare wire string (optionally as a JSON string), with JSON whitespace around it.
///
/// ```swift
/// let inspection = PayloadInspection(payloadBytes)
/// if let error = inspection.error { print(error.reason, error) }
/// else if inspection.apns?.fits == false { print("too large for APNs") }
/// ```
public struct PayloadInspection: Sendable, Equatable {
    /// The input's shape.
    public enum Form: String, Sendable, Equatable {
        /// An APNs payload: a top-level object with `aps` whose sealed member is at the top level.
        case apns
        /// An FCM HTTP v1 message: the sealed member is `message.data.pushseal` (or, when there
        /// is none, the top level has `message` and no `aps`).
        case fcmMessage = "fcm-message"
        /// An FCM data map: a top-level object without `aps` whose sealed member is at the top
        /// level (or, when there is none, without `aps` and `message`).
        case fcmData = "fcm-data"
        /// A bare wire string.
        case wire
    }

    /// A payload's size against one transport's limit.
    public struct TransportSize: Sendable, Equatable {
        /// Bytes counted the way the transport counts them.
        public let byteCount: Int
        /// The transport's limit (`TransportLimit`).
        public let limit: Int
        /// True when measured on the given payload; false for the smallest payload of that
        /// transport that could carry this envelope (the input was of another form).
        public let isMeasured: Bool
        /// Whether it is within the limit.
        public var fits: Bool { byteCount <= limit }
    }

    /// What the push service displays by itself (and a device that cannot open the envelope
    /// falls back to): everything here is visible to Apple or Google.
    public struct Visibility: Sendable, Equatable {
        /// The visible alert: APNs `aps.alert` (read as the receiver reads its placeholder), or
        /// an FCM message's `notification` title and body; nil when there is none.
        public let alert: FallbackText?
        /// APNs `aps.thread-id` (PushSeal's is opaque: derived from the key, SPEC §9.1).
        public let threadIdentifier: String?
        /// APNs `aps.mutable-content` is 1: the device runs the notification service
        /// extension, which opens the envelope.
        public let isMutableContent: Bool
        /// Nothing is displayed without the app: there is no visible alert.
        public var isDataOnly: Bool { alert == nil }
    }

    /// The envelope header's fields as far as the decoded bytes reach, valid envelope or not.
    public struct Header: Sendable, Equatable {
        /// The decoded envelope length.
        public let byteCount: Int
        /// The version byte (nil: no byte at all).
        public let version: UInt8?
        /// The key id, when the version is 1 and the bytes reach it.
        public let keyID: KeyID?
        /// The salt, when the version is 1 and the bytes reach it.
        public let salt: [UInt8]?
    }

    /// The recognised form; nil when the input is none of them.
    public let form: Form?
    /// The input's size in bytes, surrounding JSON whitespace excluded.
    public let payloadByteCount: Int
    /// What the push service shows; nil for a bare wire string or an input that is not an object.
    public let visibility: Visibility?
    /// The envelope's wire string, when one was found.
    public let wire: String?
    /// The envelope header, when the wire string is base64url.
    public let header: Header?
    /// The parsed envelope, when it is well-formed.
    public let envelope: Envelope?
    /// Why the payload would not open before any key is needed (nil: the envelope is valid).
    public let error: PayloadInspectionError?
    /// The input is a key bundle's text (`pushseal bundle seal`), not a payload: a bare wire
    /// string that is no envelope but a well-formed `KeyBundle`.
    public let isKeyBundle: Bool
    /// The APNs size: measured on an APNs payload, else the smallest APNs body carrying the
    /// envelope (`{"aps":{"mutable-content":1},"pushseal":"…"}`). Nil when no wire string was found.
    public let apns: TransportSize?
    /// The FCM size (data keys plus values): measured on an FCM message's data or a data map,
    /// else a data map holding only the sealed member. Nil when no wire string was found.
    public let fcm: TransportSize?

    /// Whether the envelope is well-formed (a key is still needed to authenticate it).
    public var isValid: Bool { envelope != nil }

    /// Inspects raw input bytes: a payload in any of its JSON forms, or a bare wire string.
    public init(_ input: some Collection<UInt8>) {
        let bytes = Array(input)
        let trimmed = Self.trimmingJSONWhitespace(bytes)
        payloadByteCount = trimmed.count
        var found = Found()
        switch trimmed.first {
        case nil:
            found.error = .onlyWhitespace
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""):
            Self.locate(json: trimmed, into: &found)
        default:
            // Not JSON: a bare wire string, when it is text.
            let text = String(decoding: trimmed, as: UTF8.self)
            if text.utf8.elementsEqual(trimmed) {
                found.form = .wire
                found.wire = text
            } else {
                found.error = .notText
            }
        }
        form = found.form
        visibility = found.visibility
        wire = found.wire

        guard let wire = found.wire, found.error == nil else {
            header = nil
            envelope = nil
            error = found.error
            isKeyBundle = false
            apns = nil
            fcm = nil
            return
        }
        let wireLength = wire.utf8.count
        apns = found.form == .apns
            ? TransportSize(byteCount: payloadByteCount, limit: TransportLimit.apnsPayload, isMeasured: true)
            : TransportSize(byteCount: Self.apnsMinimumOverhead + wireLength, limit: TransportLimit.apnsPayload, isMeasured: false)
        fcm = found.dataMap.map { TransportSize(byteCount: Self.fcmDataByteCount($0), limit: TransportLimit.fcmData, isMeasured: true) }
            ?? TransportSize(byteCount: PayloadMember.sealed.utf8.count + wireLength, limit: TransportLimit.fcmData, isMeasured: false)
        header = (try? Base64URL.decode(wire)).map(Self.header)
        do throws(OpenError) {
            envelope = try Envelope(wire: wire)
            error = nil
            isKeyBundle = false
        } catch {
            envelope = nil
            self.error = .envelope(error)
            // A bundle's version byte (2) is no envelope version: say what it is instead.
            isKeyBundle = found.form == .wire && (try? KeyBundle(text: wire)) != nil
        }
    }

    /// What the first steps found.
    private struct Found {
        var form: Form?
        var visibility: Visibility?
        var wire: String?
        var dataMap: JSONObject?
        var error: PayloadInspectionError?
    }

    /// Parses JSON input exactly as the receiver's general path does (strict, its nesting
    /// limit, duplicate names kept) and locates the sealed member with it.
    private static func locate(json bytes: ArraySlice<UInt8>, into found: inout Found) {
        let value: JSONValue
        let repeats: [Int]
        do throws(JSONParser.Error) {
            (value, repeats) = try JSONParser.parseRecordingDuplicateNames(bytes, maximumDepth: NotificationContent.maximumNestingDepth)
        } catch {
            found.error = .notJSON(error.description)
            return
        }
        switch value {
        case let .string(text):
            found.form = .wire
            found.wire = text
            return
        case let .object(top):
            let message = top["message"]
            if top["aps"] != nil {
                found.form = .apns
            } else if message != nil {
                found.form = .fcmMessage
            } else {
                found.form = .fcmData
            }
            found.visibility = visibility(top, form: found.form!)
            switch ParsedPayload.locate(in: top) {
            case let .repeatedName(name, ordinal):
                // The parser met the repeats in the order the receiver's walk did: offset `ordinal`.
                found.error = .repeatedMemberName(name, offset: repeats[ordinal])
            case .absent:
                found.error = .noSealedMember(inMessageData: found.form == .fcmMessage)
            case let .found(container, inMessageData):
                if inMessageData {
                    found.form = .fcmMessage
                    found.dataMap = container
                } else if found.form != .apns {
                    found.form = .fcmData
                    found.dataMap = container
                }
                switch ParsedPayload.members(of: container).0 {
                // Every repeat is the sealed member's (any other was found first): the first is its second occurrence.
                case .duplicated: found.error = .duplicatedSealedMember(offset: repeats[0])
                case let .notString(kind): found.error = .sealedMemberNotString(kind)
                case let .wire(wire): found.wire = wire
                case .absent, .envelope: preconditionFailure("a located sealed member")
                }
            }
        default:
            found.error = .notAnObject
        }
    }

    /// What the push service shows for a payload object of `form`.
    private static func visibility(_ top: JSONObject, form: Form) -> Visibility {
        switch form {
        case .apns:
            let aps = top["aps"]
            let mutable = aps?.objectValue?["mutable-content"]
            let outer = OuterFields(apsJSON: aps)
            return Visibility(alert: outer.placeholder, threadIdentifier: outer.threadIdentifier, isMutableContent: mutable == .number("1"))
        case .fcmMessage:
            let notification = top["message"]?.objectValue?["notification"]?.objectValue
            let title = notification?["title"]?.stringValue
            let body = notification?["body"]?.stringValue
            let alert = title == nil && body == nil ? nil : FallbackText(title: title, body: body ?? "")
            return Visibility(alert: alert, threadIdentifier: nil, isMutableContent: false)
        case .fcmData, .wire:
            return Visibility(alert: nil, threadIdentifier: nil, isMutableContent: false)
        }
    }

    /// The header fields the decoded bytes reach.
    private static func header(_ bytes: [UInt8]) -> Header {
        let isVersion1 = bytes.first == Envelope.version
        let keyEnd = 1 + KeyID.byteCount
        return Header(
            byteCount: bytes.count, version: bytes.first,
            keyID: isVersion1 && bytes.count >= keyEnd ? KeyID(bytes: bytes[1..<keyEnd]) : nil,
            salt: isVersion1 && bytes.count >= Envelope.headerByteCount ? Array(bytes[keyEnd..<Envelope.headerByteCount]) : nil)
    }

    /// The smallest APNs body around a wire string: `{"aps":{"mutable-content":1},"pushseal":"…"}`.
    static let apnsMinimumOverhead = #"{"aps":{"mutable-content":1},"":""}"#.utf8.count + PayloadMember.sealed.utf8.count

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
