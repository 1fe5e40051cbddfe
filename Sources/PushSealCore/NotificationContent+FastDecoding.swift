import PushSealJSON
/// A fast path for ``NotificationContent/init(decoding:)``: one pass over the bytes with the
/// parser's own primitives, straight into the fields, without building a JSON tree. It accepts
/// only what the general decoder accepts with the same result, and only the usual shape: the
/// known members (no unknown ones), unescaped pairwise distinct names, values of the right
/// types, a content that validates. Anything else returns nil and the general decoder decides
/// (and reports the error).
///
/// Kept because `pushseal bench` shows it is worth it on a target figure: `open.key.512` was
/// 0.264× raw decrypt with this path and 0.220× without (CPU time per open 3.71 µs against
/// 4.53 µs, +22 %; medians of 6 interleaved runs, 2026-12-02), below the 0.25× target without it.
/// `ContentFastPathTests` and the FuzzContent target check that it agrees with the general
/// decoder on every input.
extension NotificationContent {
    private enum Field: Int {
        case cid, mid, ts, title, subtitle, body, sender, thread, category, badge, trunc, x
    }

    private static func field(_ reader: JSONReader, _ name: Range<Int>) -> Field? {
        switch name.count {
        case 1: return reader.bytes(name, equal: "x") ? .x : nil
        case 2: return reader.bytes(name, equal: "ts") ? .ts : nil
        case 3: return reader.bytes(name, equal: "cid") ? .cid : reader.bytes(name, equal: "mid") ? .mid : nil
        case 4: return reader.bytes(name, equal: "body") ? .body : nil
        case 5:
            if reader.bytes(name, equal: "title") { return .title }
            if reader.bytes(name, equal: "badge") { return .badge }
            return reader.bytes(name, equal: "trunc") ? .trunc : nil
        case 6:
            if reader.bytes(name, equal: "sender") { return .sender }
            return reader.bytes(name, equal: "thread") ? .thread : nil
        case 8:
            if reader.bytes(name, equal: "subtitle") { return .subtitle }
            return reader.bytes(name, equal: "category") ? .category : nil
        default: return nil
        }
    }

    /// A string value (the reader is at its first byte), or a throw to give up.
    private static func string(_ reader: inout JSONReader) throws(JSONParser.Error) -> String {
        guard reader.current == UInt8(ascii: "\"") else { throw reader.error("not a string") }
        return try reader.parseString()
    }

    /// A non-negative integer in integer form up to `maximum`, exactly as `integer(_:field:maximum:)`
    /// accepts it, or a throw to give up.
    private static func integer(_ reader: inout JSONReader, maximum: Int64) throws(JSONParser.Error) -> Int64 {
        guard let first = reader.current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
            throw reader.error("not a non-negative number")
        }
        // Read in one pass: only plain digits without a leading zero (the number grammar), then no
        // fraction or exponent, within Int64 — exactly the literals that JSONValue.integer(fromLiteral:)
        // reads; anything else gives up (a fraction or exponent would be a valid number, but not an
        // integer, and the general decoder reports it).
        var value: Int64 = 0
        if first == UInt8(ascii: "0") {
            reader.index += 1
            if let next = reader.current, reader.isDigit(next) { throw reader.error("leading zero in number") }
        } else {
            while let digit = reader.current, reader.isDigit(digit) {
                let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = shifted.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { throw reader.error("out of range") }
                value = sum
                reader.index += 1
            }
        }
        if let next = reader.current, next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            throw reader.error("not an integer")
        }
        guard value <= maximum else { throw reader.error("out of range") }
        return value
    }

    /// The content, or nil to take the general path.
    static func decodeUsualShape(_ bytes: UnsafeRawBufferPointer) -> NotificationContent? {
        var reader = JSONReader(bytes: bytes, maximumDepth: maximumNestingDepth)
        // Fields in locals, the content built once at the end (a content built first and filled
        // in from the closure was copied twice on the way out).
        var cid: String?, mid: String?, ts: Int64?
        var title: String?, subtitle: String?, body: String?, sender: Sender?, thread: String?, category: String?
        var badge: Int64?, isTruncated = false, extras: [String: String] = [:]
        do {
            reader.skipWhitespace()
            guard reader.current == UInt8(ascii: "{") else { return nil }
            try reader.scanObject(depth: 1) { (name, reader) throws(JSONParser.Error) -> Bool in
                // Unknown members are for the general path; repeated names were rejected by the scan.
                guard let field = Self.field(reader, name) else { throw reader.error("not a known member") }
                switch field {
                case .cid: cid = try Self.string(&reader)
                case .mid: mid = try Self.string(&reader)
                case .ts: ts = try Self.integer(&reader, maximum: maximumTimestamp)
                case .title: title = try Self.string(&reader)
                case .subtitle: subtitle = try Self.string(&reader)
                case .body: body = try Self.string(&reader)
                case .thread: thread = try Self.string(&reader)
                case .category: category = try Self.string(&reader)
                case .badge: badge = try Self.integer(&reader, maximum: maximumBadge)
                case .trunc:
                    try reader.expectLiteral("true")
                    isTruncated = true
                case .sender:
                    guard reader.current == UInt8(ascii: "{") else { throw reader.error("not an object") }
                    var id: String?
                    var displayName: String?
                    try reader.scanObject(depth: 2) { (name, reader) throws(JSONParser.Error) -> Bool in
                        if reader.bytes(name, equal: "id") {
                            id = try Self.string(&reader)
                        } else if reader.bytes(name, equal: "name") {
                            displayName = try Self.string(&reader)
                        } else {
                            throw reader.error("not a known member")
                        }
                        return true
                    }
                    guard let id else { throw reader.error("sender without id") }
                    sender = Sender(id: id, name: displayName)
                case .x:
                    guard reader.current == UInt8(ascii: "{") else { throw reader.error("not an object") }
                    try reader.scanObject(depth: 2) { (name, reader) throws(JSONParser.Error) -> Bool in
                        let key = String(decoding: UnsafeRawBufferPointer(rebasing: reader.bytes[name]), as: UTF8.self)
                        extras[key] = try Self.string(&reader)
                        return true
                    }
                }
                return true
            }
            reader.skipWhitespace()
            guard reader.index == bytes.count else { return nil }
        } catch {
            return nil
        }
        guard let cid, let mid, let ts else { return nil }
        // Validated before the content is built (the same checks as validate()).
        guard (try? validate(
            conversationID: cid, messageID: mid, sentAt: ts, sender: sender, thread: thread, category: category, badge: badge)) != nil
        else { return nil }
        return NotificationContent(
            conversationID: cid, messageID: mid, sentAt: ts, title: consume title, subtitle: consume subtitle, body: consume body,
            sender: consume sender, thread: consume thread, category: consume category, badge: badge, isTruncated: isTruncated,
            extras: consume extras)
    }
}
