import PushSealJSON
/// The plaintext of a notification (wire format v1, "Content"): what the sender seals and the
/// receiver displays.
///
/// Encoding is deterministic (same value, same bytes); decoding is strict about types and sizes
/// and ignores members it does not know.
public struct NotificationContent: Sendable, Equatable {
    /// Largest encoded content, in bytes.
    public static let maximumByteCount = 4000
    /// Largest `cid`, `mid`, `thread`, `category` and sender id, in UTF-8 bytes.
    public static let maximumIdentifierByteCount = 256
    /// Latest accepted `ts` (9999-12-31T23:59:59Z).
    public static let maximumTimestamp: Int64 = 253_402_300_799
    /// Largest accepted `badge`.
    public static let maximumBadge: Int64 = 2_147_483_647
    /// Deepest JSON nesting a receiver accepts (the top-level object is depth 1).
    public static let maximumNestingDepth = 16

    /// Who sent the message, for communication notifications.
    public struct Sender: Sendable, Equatable {
        /// Stable sender id (1–256 bytes).
        public var id: String
        /// Display name.
        public var name: Optional<String>
        /// A sender with an id and an optional display name.
        public init(id: String, name: String? = nil) {
            self.id = id
            self.name = name
        }
    }

    // Optional properties are spelled `Optional<T>`: a `T?` stored property is implicitly
    // initialized to nil, which made every initializer write it twice and copy the whole value.
    /// `cid`: the conversation id; must equal the conversation the key is stored for.
    public var conversationID: String
    /// `mid`: the message id; with `cid` it identifies duplicates.
    public var messageID: String
    /// `ts`: when the message was sent, seconds since 1970.
    public var sentAt: Int64
    /// `title`.
    public var title: Optional<String>
    /// `subtitle`.
    public var subtitle: Optional<String>
    /// `body`; nil only in a content-free wake-and-fetch content.
    public var body: Optional<String>
    /// `sender`.
    public var sender: Optional<Sender>
    /// `thread`: local thread identifier (receivers default it to `cid`).
    public var thread: Optional<String>
    /// `category`: action category, e.g. a reply action.
    public var category: Optional<String>
    /// `badge`.
    public var badge: Optional<Int64>
    /// `trunc`: the sender shortened `body` to fit the transport.
    public var isTruncated: Bool
    /// `x`: app extras; never trusted for authorization.
    public var extras: [String: String]

    /// A content; call ``validate()`` (or ``encoded()``, which validates) before sealing.
    public init(
        conversationID: String, messageID: String, sentAt: Int64, title: String? = nil, subtitle: String? = nil,
        body: String?, sender: Sender? = nil, thread: String? = nil, category: String? = nil, badge: Int64? = nil,
        isTruncated: Bool = false, extras: [String: String] = [:]
    ) {
        self.conversationID = conversationID
        self.messageID = messageID
        self.sentAt = sentAt
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sender = sender
        self.thread = thread
        self.category = category
        self.badge = badge
        self.isTruncated = isTruncated
        self.extras = extras
    }

    /// The content-free wake-and-fetch form of this content: only `cid`, `mid` and `ts`.
    public var contentFree: NotificationContent {
        NotificationContent(conversationID: conversationID, messageID: messageID, sentAt: sentAt, body: nil)
    }

    /// True for a content-free wake-and-fetch content: the app must fetch the message itself.
    public var requiresFetch: Bool { body == nil }
}

// MARK: - Validation

extension NotificationContent {
    /// Checks every field against the v1 schema (sizes, ranges); does not check the total size.
    public func validate() throws(ContentError) {
        try Self.validate(
            conversationID: conversationID, messageID: messageID, sentAt: sentAt, sender: sender, thread: thread, category: category,
            badge: badge)
    }

    /// ``validate()`` on the fields it checks (for a decoder that has them before the content).
    static func validate(
        conversationID: String, messageID: String, sentAt: Int64, sender: Sender?, thread: String?, category: String?, badge: Int64?
    ) throws(ContentError) {
        try checkIdentifier(conversationID, field: "cid")
        try checkIdentifier(messageID, field: "mid")
        guard sentAt >= 0, sentAt <= maximumTimestamp else {
            throw .outOfRange(field: "ts", detail: "must be between 0 and \(maximumTimestamp)\(timestampUnitNote)")
        }
        if let sender { try checkIdentifier(sender.id, field: "sender.id") }
        if let thread { try checkIdentifier(thread, field: "thread") }
        if let category { try checkIdentifier(category, field: "category") }
        if let badge, badge < 0 || badge > maximumBadge {
            throw .outOfRange(field: "badge", detail: "must be between 0 and \(maximumBadge)")
        }
    }

    /// Identifiers (`cid`, `mid`, `sender.id`, `thread`, `category`): 1–256 UTF-8 bytes and no C0
    /// control character (U+0000–U+001F: a hazard for C-string ports, logs and display; SPEC §5.1).
    ///
    /// The one identifier rule: the sealer, the receiver, key bundles and `pushseal store add`
    /// all check with it, so a key is never filed under a conversation id no content can carry.
    /// Throws ``ContentError/outOfRange(field:detail:)`` naming `field`.
    public static func checkIdentifier(_ value: String, field: String) throws(ContentError) {
        // One pass over the contiguous UTF-8 of a native string (the seal and open paths call
        // this for every cid and mid); the generic view only for bridged strings.
        let (count, hasControl) = value.utf8.withContiguousStorageIfAvailable { bytes in
            (bytes.count, bytes.reduce(0xFF as UInt8) { min($0, $1) } < 0x20)
        } ?? (value.utf8.count, value.utf8.contains { $0 < 0x20 })
        guard count >= 1, count <= maximumIdentifierByteCount else {
            throw .outOfRange(field: field, detail: "must be 1 to \(maximumIdentifierByteCount) UTF-8 bytes, is \(count)")
        }
        if hasControl {
            throw .outOfRange(field: field, detail: "must not contain a control character U+0000–U+001F")
        }
    }
}

// MARK: - Deterministic encoding

extension NotificationContent {
    /// The compact, deterministic JSON encoding (member order cid, mid, ts, title, subtitle, body,
    /// sender, thread, category, badge, trunc, x; x sorted by UTF-8 bytes of its keys).
    /// Validates first, and rejects a result over ``maximumByteCount``.
    public func encoded() throws(ContentError) -> [UInt8] {
        try validate()
        var writer = JSONWriter(capacity: 64 + (body?.utf8.count ?? 0))
        writeJSON(to: &writer)
        guard writer.bytes.count <= Self.maximumByteCount else { throw .tooLarge(byteCount: writer.bytes.count) }
        return writer.bytes
    }

    /// Writes the deterministic encoding without validating.
    package func writeJSON(to writer: inout JSONWriter) {
        write(to: &writer)
    }

    /// Writes the deterministic encoding into `buffer` without validating; returns its length,
    /// or nil when it is longer than `buffer` (then the buffer holds a partial encoding, which
    /// the caller must wipe: it is plaintext).
    package func writeJSON(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        var writer = BoundedJSONWriter(buffer)
        write(to: &writer)
        return writer.overflowed ? nil : writer.count
    }

    /// The encoding, into any sink (specialized for each).
    private func write<Sink: JSONSink>(to writer: inout Sink) {
        writer.appendLiteral("{\"cid\":")
        writer.appendEscapedString(conversationID)
        writer.appendLiteral(",\"mid\":")
        writer.appendEscapedString(messageID)
        writer.appendLiteral(",\"ts\":")
        writer.appendDecimal(sentAt)
        if let title {
            writer.appendLiteral(",\"title\":")
            writer.appendEscapedString(title)
        }
        if let subtitle {
            writer.appendLiteral(",\"subtitle\":")
            writer.appendEscapedString(subtitle)
        }
        if let body {
            writer.appendLiteral(",\"body\":")
            writer.appendEscapedString(body)
        }
        if let sender {
            writer.appendLiteral(",\"sender\":{\"id\":")
            writer.appendEscapedString(sender.id)
            if let name = sender.name {
                writer.appendLiteral(",\"name\":")
                writer.appendEscapedString(name)
            }
            writer.appendLiteral("}")
        }
        if let thread {
            writer.appendLiteral(",\"thread\":")
            writer.appendEscapedString(thread)
        }
        if let category {
            writer.appendLiteral(",\"category\":")
            writer.appendEscapedString(category)
        }
        if let badge {
            writer.appendLiteral(",\"badge\":")
            writer.appendDecimal(badge)
        }
        if isTruncated {
            writer.appendLiteral(",\"trunc\":true")
        }
        if !extras.isEmpty {
            writer.appendLiteral(",\"x\":{")
            let sorted = extras.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (offset, entry) in sorted.enumerated() {
                if offset > 0 { writer.appendLiteral(",") }
                writer.appendEscapedString(entry.key)
                writer.appendLiteral(":")
                writer.appendEscapedString(entry.value)
            }
            writer.appendLiteral("}")
        }
        writer.appendLiteral("}")
    }

    /// Exact length of ``encoded()`` without building it.
    public var encodedByteCount: Int {
        var length = 2 + 6 + JSONWriter.encodedLength(ofString: conversationID) + 7 + JSONWriter.encodedLength(ofString: messageID)
        length += 6 + String(sentAt).utf8.count
        if let title { length += 9 + JSONWriter.encodedLength(ofString: title) }
        if let subtitle { length += 12 + JSONWriter.encodedLength(ofString: subtitle) }
        if let body { length += 8 + JSONWriter.encodedLength(ofString: body) }
        if let sender {
            length += 16 + JSONWriter.encodedLength(ofString: sender.id) + 1
            if let name = sender.name { length += 8 + JSONWriter.encodedLength(ofString: name) }
        }
        if let thread { length += 10 + JSONWriter.encodedLength(ofString: thread) }
        if let category { length += 12 + JSONWriter.encodedLength(ofString: category) }
        if let badge { length += 9 + String(badge).utf8.count }
        if isTruncated { length += 13 }
        if !extras.isEmpty {
            length += 7 + extras.count - 1
            for (key, value) in extras {
                length += JSONWriter.encodedLength(ofString: key) + 1 + JSONWriter.encodedLength(ofString: value)
            }
        }
        return length
    }
}

// MARK: - Strict decoding

extension NotificationContent {
    /// Decodes and validates content bytes (after unpadding). Unknown members are ignored.
    public init(decoding bytes: some Collection<UInt8>) throws(ContentError) {
        if let decoded = bytes.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(ContentError) in try NotificationContent(decodingContiguous: UnsafeRawBufferPointer(buffer)) }
        }) {
            self = try decoded.get()
            return
        }
        try self.init(decodingGeneral: bytes)
    }

    /// ``init(decoding:)`` on bytes in memory (not generic: the receiver's hot path).
    package init(decodingContiguous bytes: UnsafeRawBufferPointer) throws(ContentError) {
        guard bytes.count <= Self.maximumByteCount else { throw .tooLarge(byteCount: bytes.count) }
        // The usual shape in one pass (NotificationContent+FastDecoding.swift); anything else,
        // and every error, is decided by the general path.
        if let usual = Self.decodeUsualShape(bytes) {
            self = usual
            return
        }
        try self.init(decodingGeneral: bytes)
    }

    /// The general decoder: a JSON tree, then the schema; decides every case and reports errors.
    private init(decodingGeneral bytes: some Collection<UInt8>) throws(ContentError) {
        guard bytes.count <= Self.maximumByteCount else { throw .tooLarge(byteCount: bytes.count) }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: Self.maximumNestingDepth)
        } catch {
            throw .invalidJSON(error)
        }
        guard case let .object(object) = value else { throw .notAnObject }
        try self.init(object: object)
    }

    /// Validates a parsed content object.
    package init(object: JSONObject) throws(ContentError) {
        conversationID = try Self.requiredString(object, "cid")
        messageID = try Self.requiredString(object, "mid")
        guard let tsValue = object["ts"] else { throw .missingField("ts") }
        sentAt = try Self.integer(tsValue, field: "ts", maximum: Self.maximumTimestamp)
        title = try Self.optionalString(object, "title")
        subtitle = try Self.optionalString(object, "subtitle")
        body = try Self.optionalString(object, "body")
        if let senderValue = object["sender"] {
            guard case let .object(senderObject) = senderValue else { throw .wrongType(field: "sender", expected: "an object") }
            let id = try Self.requiredString(senderObject, "id", path: "sender.id")
            let name = try Self.optionalString(senderObject, "name", path: "sender.name")
            sender = Sender(id: id, name: name)
        } else {
            sender = nil
        }
        thread = try Self.optionalString(object, "thread")
        category = try Self.optionalString(object, "category")
        badge = try object["badge"].map { (value) throws(ContentError) -> Int64 in
            try Self.integer(value, field: "badge", maximum: Self.maximumBadge)
        }
        switch object["trunc"] {
        case nil: isTruncated = false
        case .bool(true)?: isTruncated = true
        default: throw .wrongType(field: "trunc", expected: "true when present")
        }
        var extras: [String: String] = [:]
        if let extrasValue = object["x"] {
            guard case let .object(extrasObject) = extrasValue else { throw .wrongType(field: "x", expected: "an object of strings") }
            for member in extrasObject.members {
                guard case let .string(text) = member.value else {
                    throw .wrongType(field: "x.\(member.name)", expected: "a string")
                }
                extras[member.name] = text
            }
        }
        self.extras = extras
        try validate()
    }

    private static func requiredString(_ object: JSONObject, _ name: String, path: String? = nil) throws(ContentError) -> String {
        guard let value = object[name] else { throw .missingField(path ?? name) }
        guard case let .string(text) = value else { throw .wrongType(field: path ?? name, expected: "a string") }
        return text
    }

    private static func optionalString(_ object: JSONObject, _ name: String, path: String? = nil) throws(ContentError) -> String? {
        guard let value = object[name] else { return nil }
        guard case let .string(text) = value else { throw .wrongType(field: path ?? name, expected: "a string") }
        return text
    }

    /// Said after the range of `ts`: the unit, since a millisecond time is the usual mistake.
    static let timestampUnitNote = " (seconds since 1970, not milliseconds)"

    private static func integer(_ value: JSONValue, field: String, maximum: Int64) throws(ContentError) -> Int64 {
        let unit = field == "ts" ? timestampUnitNote : ""
        guard case let .number(literal) = value else { throw .wrongType(field: field, expected: "an integer") }
        guard literal.utf8.first != UInt8(ascii: "-") else {
            throw .outOfRange(field: field, detail: "must not be negative")
        }
        guard let integer = JSONValue.integer(fromLiteral: literal) else {
            // Valid JSON number, but with a fraction or exponent, or beyond Int64.
            if literal.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                throw .outOfRange(field: field, detail: "must be at most \(maximum)\(unit)")
            }
            throw .wrongType(field: field, expected: "an integer without fraction or exponent")
        }
        guard integer <= maximum else { throw .outOfRange(field: field, detail: "must be at most \(maximum)\(unit)") }
        return integer
    }
}
