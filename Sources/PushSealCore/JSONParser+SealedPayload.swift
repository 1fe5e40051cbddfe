/// The receiver's fast path for locating the sealed member (SPEC 10.1) in the usual APNs payload.
extension JSONParser {
    /// Where the sealed member is in a payload of the usual APNs shape, and what its `aps` says.
    package struct SealedPayloadLayout: Sendable {
        /// The raw bytes of the top-level `pushseal` string, between its quotes (no escapes).
        package let wire: Range<Int>
        /// The top-level `aps` member.
        package let aps: APS
    }

    /// The top-level `aps` member as the fast path read it.
    package enum APS: Sendable, Equatable {
        /// No `aps` member.
        case absent
        /// The members a fallback uses, read directly (`aps` was not an object: all nil). Values
        /// of another type than expected are nil; `badge` is the number literal.
        case fields(threadID: String?, category: String?, badgeLiteral: String?, alert: Alert)
        /// Something the direct reading does not cover (localization keys in the alert): the
        /// `aps` value's bytes, for the general reader.
        case general(Range<Int>)
    }

    /// `aps.alert`.
    package enum Alert: Sendable, Equatable {
        /// Absent, or neither a string nor an object.
        case none
        /// A string.
        case text(String)
        /// An object: its string `title`, `subtitle` and `body` (nil when absent or not strings).
        case parts(title: String?, subtitle: String?, body: String?)
    }

    /// The fast path of SPEC 10.1 for the usual payload: `bytes` is strict JSON within
    /// `maximumDepth`, an object whose top level has a `pushseal` string without escapes, and no
    /// object anywhere repeats a name or has an escaped name or more than 16 members. Returns
    /// nil for anything else (invalid, FCM forms, duplicates, …): the caller then takes the
    /// general path, which decides. When this returns a layout, the general path would find no
    /// duplicate and the same sealed string.
    package static func scanSealedPayload(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int) -> SealedPayloadLayout? {
        var reader = Reader(bytes: bytes, maximumDepth: maximumDepth)
        var wire: Range<Int>?
        var aps = APS.absent
        do {
            reader.skipWhitespace()
            guard reader.current == UInt8(ascii: "{") else { return nil }
            try reader.scanObject(depth: 1) { (name, reader) throws(JSONParser.Error) -> Bool in
                if reader.bytes(name, equal: "pushseal") {
                    guard reader.current == UInt8(ascii: "\"") else { throw reader.error("sealed member is not a string") }
                    let (range, escaped) = try reader.scanString()
                    guard !escaped else { throw reader.error("escaped sealed member") }
                    wire = range
                    return true
                }
                if reader.bytes(name, equal: "aps") {
                    aps = try reader.scanAPS()
                    return true
                }
                return false
            }
            reader.skipWhitespace()
            guard reader.index == bytes.count else { return nil }
        } catch {
            return nil
        }
        guard let wire else { return nil }
        return SealedPayloadLayout(wire: wire, aps: aps)
    }
}

extension Reader {
    /// The `aps` value (at depth 2), read for the fallback fields while validating it.
    mutating func scanAPS() throws(JSONParser.Error) -> JSONParser.APS {
        let start = index
        guard current == UInt8(ascii: "{") else {
            try skipValue(depth: 1)
            return .fields(threadID: nil, category: nil, badgeLiteral: nil, alert: .none)
        }
        var threadID: String?, category: String?, badge: String?
        var alert = JSONParser.Alert.none
        var general = false
        try scanObject(depth: 2) { (name, reader) throws(JSONParser.Error) -> Bool in
            if reader.bytes(name, equal: "thread-id") {
                guard reader.current == UInt8(ascii: "\"") else { return false }
                threadID = try reader.parseString()
            } else if reader.bytes(name, equal: "category") {
                guard reader.current == UInt8(ascii: "\"") else { return false }
                category = try reader.parseString()
            } else if reader.bytes(name, equal: "badge") {
                guard let first = reader.current, first == UInt8(ascii: "-") || reader.isDigit(first) else { return false }
                badge = try reader.parseNumber()
            } else if reader.bytes(name, equal: "alert") {
                switch reader.current {
                case UInt8(ascii: "\""):
                    alert = .text(try reader.parseString())
                case UInt8(ascii: "{"):
                    var title: String?, subtitle: String?, body: String?
                    try reader.scanObject(depth: 3) { (name, reader) throws(JSONParser.Error) -> Bool in
                        let isString = reader.current == UInt8(ascii: "\"")
                        if reader.bytes(name, equal: "title") {
                            if isString { title = try reader.parseString(); return true }
                        } else if reader.bytes(name, equal: "subtitle") {
                            if isString { subtitle = try reader.parseString(); return true }
                        } else if reader.bytes(name, equal: "body") {
                            if isString { body = try reader.parseString(); return true }
                        } else if name.count >= 7, reader.bytes(name.suffix(7), equal: "loc-key") || reader.bytes(name.suffix(8), equal: "loc-args") {
                            // Localization keys: read by the general reader.
                            general = true
                        }
                        return false
                    }
                    alert = .parts(title: title, subtitle: subtitle, body: body)
                default:
                    return false
                }
            } else {
                return false
            }
            return true
        }
        if general { return .general(start..<index) }
        return .fields(threadID: threadID, category: category, badgeLiteral: badge, alert: alert)
    }
}
