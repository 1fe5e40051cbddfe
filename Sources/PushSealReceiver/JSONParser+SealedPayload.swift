internal import PushSealPlatform
import PushSealCore
import PushSealJSON

/// The receiver's fast path for locating the sealed member (SPEC 10.1) in the usual APNs payload.
///
/// Kept because `pushseal bench` shows it is worth it on a target figure: `open.key.512` was
/// 0.264× raw decrypt with this scan and 0.213× with the general path alone (CPU time per open
/// 3.71 µs against 4.89 µs, +32 %; medians of 6 interleaved runs, 2026-12-02), below the 0.25×
/// target without it. `PayloadFastPathTests` and the FuzzOpen target check that
/// ``ParsedPayload`` reads every payload the same with and without it.
extension JSONParser {
    /// Where the sealed member is in a payload of the usual APNs shape, and what its `aps` says.
    package struct SealedPayloadLayout: Sendable {
        /// The top-level `pushseal` string, decoded: it was at most
        /// ``Envelope/maximumWireLength`` characters of strict base64url (so a JSON string without
        /// escapes, equal to its raw bytes).
        package let envelope: [UInt8]
        /// The top-level `aps` member.
        package let aps: APS

        /// Both parts, moved out of the layout (no copy of the strings and the envelope).
        package consuming func parts() -> (envelope: [UInt8], aps: APS) {
            (envelope, aps)
        }
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
    /// nil for anything else (invalid, FCM forms, duplicates, a sealed string that is not strict
    /// base64url of at most ``Envelope/maximumWireLength`` characters, …): the caller then takes
    /// the general path, which decides. When this returns a layout, the general path would find
    /// no duplicate and the sealed string whose strict decoding is `envelope`.
    package static func scanSealedPayload(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int) -> SealedPayloadLayout? {
        var reader = JSONReader(bytes: bytes, maximumDepth: maximumDepth)
        var envelope: [UInt8]?
        var aps = APS.absent
        do {
            reader.skipWhitespace()
            guard reader.current == UInt8(ascii: "{") else { return nil }
            try reader.scanObject(depth: 1) { (name, reader) throws(JSONParser.Error) -> Bool in
                if reader.bytes(name, equal: PayloadMember.sealedLiteral) {
                    // Decoded while scanning: the string ends at the next quote; strict base64url
                    // admits no escape, control, quote or non-ASCII byte, so a string that decodes
                    // is a valid JSON string of exactly these bytes. Anything else: general path.
                    guard reader.current == UInt8(ascii: "\""), let base = reader.bytes.baseAddress else {
                        throw reader.error("sealed member is not a string")
                    }
                    let start = reader.index + 1
                    guard start <= reader.bytes.count,
                          let quote = memchr(base + start, Int32(UInt8(ascii: "\"")), reader.bytes.count - start)
                    else { throw reader.error("unterminated string") }
                    let end = base.distance(to: UnsafeRawPointer(quote))
                    guard end - start <= Envelope.maximumWireLength,
                          let decoded = try? Base64URL.decode(ascii: UnsafeRawBufferPointer(rebasing: reader.bytes[start..<end]))
                    else { throw reader.error("sealed member is not strict base64url") }
                    envelope = decoded
                    reader.index = end + 1
                    return true
                }
                if reader.bytes(name, equal: "aps") {
                    aps = try reader.scanAPS()
                    return true
                }
                // An in-band key bundle (SPEC §16.7): the general path reads it.
                if reader.bytes(name, equal: PayloadMember.keyBundleLiteral) { throw reader.error("key bundle member") }
                return false
            }
            reader.skipWhitespace()
            guard reader.index == bytes.count else { return nil }
        } catch {
            return nil
        }
        guard let envelope = consume envelope else { return nil }
        return SealedPayloadLayout(envelope: envelope, aps: consume aps)
    }
}

extension JSONReader {
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
