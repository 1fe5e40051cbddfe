/// The sealed plaintext of a key bundle (SPEC §16.4, format 2): a fixed 338 bytes, so every
/// bundle has one length. Integers are big-endian unsigned.
///
/// | offset | length | field |
/// |---|---|---|
/// | 0 | 32 | the device key K_d |
/// | 32 | 16 | kid = HKDF-Expand(K_d, "pushseal v1 key id", 16) |
/// | 48 | 8 | epoch, 1 … 2^63 − 1 |
/// | 56 | 8 | since: when the epoch became current at the provider, ≤ 2^63 − 1 |
/// | 64 | 8 | retireBy: 0xffffffffffffffff while current, else since ≤ retireBy ≤ 2^63 − 1 |
/// | 72 | 8 | expires: the last second the bundle may be installed, ≤ 2^63 − 1 |
/// | 80 | 2 | n, the conversation id's length, 1 … 256 |
/// | 82 | 256 | the conversation id (n bytes, a §5.1 identifier), then zeros |
public struct KeyBundleContents: Sendable {
    /// Length of the plaintext.
    public static let byteCount = 338
    /// The encoding of "still current when sealed" in the retireBy field.
    static let stillCurrent = UInt64.max
    static let conversationOffset = 82

    /// The device key K_d.
    public let key: ConversationKey
    /// The epoch, 1 or more.
    public let epoch: Int64
    /// When the epoch became current at the provider, in seconds since 1970.
    public let since: Int64
    /// The epoch's last current second at the provider; nil when it was current when sealed.
    public let retireBy: Int64?
    /// The last second this bundle may be installed.
    public let expires: Int64
    /// The conversation id.
    public let conversation: String

    /// Contents from their fields; ``KeyBundleSealingError/invalidField(_:)`` when one is out of range.
    public init(
        key: ConversationKey, conversation: String, epoch: Int64, since: Int64, retireBy: Int64?, expires: Int64
    ) throws(KeyBundleSealingError) {
        guard epoch >= 1 else { throw .invalidField("epoch must be 1 to 2^63 - 1, is \(epoch)") }
        guard since >= 0 else { throw .invalidField("since must be 0 to 2^63 - 1, is \(since)") }
        if let retireBy, retireBy < since { throw .invalidField("retireBy \(retireBy) is before since \(since)") }
        guard expires >= 0 else { throw .invalidField("expires must be 0 to 2^63 - 1, is \(expires)") }
        do throws(ContentError) { try NotificationContent.checkIdentifier(conversation, field: "conversation") } catch {
            throw .invalidField("\(error)")
        }
        self.init(unchecked: key, conversation, epoch, since, retireBy, expires)
    }

    private init(unchecked key: ConversationKey, _ conversation: String, _ epoch: Int64, _ since: Int64, _ retireBy: Int64?, _ expires: Int64) {
        (self.key, self.conversation, self.epoch, self.since, self.retireBy, self.expires) = (key, conversation, epoch, since, retireBy, expires)
    }

    /// The kid the contents carry: the key's.
    public var keyID: KeyID { key.id }

    /// The 338 plaintext bytes (secret: the caller wipes them).
    package func encoded() -> [UInt8] {
        Self.encode(key: key, keyID: key.id, epoch: UInt64(epoch), since: UInt64(since), retireBy: retireBy.map { UInt64($0) } ?? Self.stillCurrent,
                    expires: UInt64(expires), conversationBytes: Array(conversation.utf8))
    }

    /// Any plaintext, out-of-range fields included (the vectors' hostile cases): the conversation
    /// bytes are truncated to 256 and zero-padded; `length` overrides n.
    package static func encode(
        key: ConversationKey, keyID: KeyID, epoch: UInt64, since: UInt64, retireBy: UInt64, expires: UInt64,
        conversationBytes: [UInt8], length: UInt16? = nil, padding: UInt8 = 0
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(byteCount)
        key.withUnsafeBytes { out += $0 }
        out += keyID.bytes
        for value in [epoch, since, retireBy, expires] { appendBigEndian(value, to: &out) }
        let n = length ?? UInt16(min(conversationBytes.count, NotificationContent.maximumIdentifierByteCount))
        out.append(UInt8(n >> 8))
        out.append(UInt8(n & 0xFF))
        out += conversationBytes.prefix(NotificationContent.maximumIdentifierByteCount)
        while out.count < byteCount { out.append(padding) }
        return out
    }

    static func appendBigEndian(_ value: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    static func readBigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Parses an opened plaintext (SPEC §16.5 steps 6 and 7): every field in range
    /// (`malformed_bundle`), then the kid field equal to the key's (`kid_mismatch`).
    static func parse(_ plaintext: [UInt8]) throws(KeyBundleError) -> KeyBundleContents {
        guard plaintext.count == byteCount else { throw .malformedBundle("the sealed contents are \(plaintext.count) bytes, not \(byteCount)") }
        let maximum = UInt64(Int64.max)
        let epoch = readBigEndian(plaintext[48..<56])
        guard epoch >= 1, epoch <= maximum else { throw .malformedBundle("epoch \(epoch) is not 1 to 2^63 - 1") }
        let since = readBigEndian(plaintext[56..<64])
        guard since <= maximum else { throw .malformedBundle("since \(since) is more than 2^63 - 1") }
        let rawRetireBy = readBigEndian(plaintext[64..<72])
        guard rawRetireBy == stillCurrent || (rawRetireBy <= maximum && rawRetireBy >= since) else {
            throw .malformedBundle("retireBy \(rawRetireBy) is neither 2^64 - 1 (current) nor since to 2^63 - 1")
        }
        let expires = readBigEndian(plaintext[72..<80])
        guard expires <= maximum else { throw .malformedBundle("expires \(expires) is more than 2^63 - 1") }
        let n = Int(plaintext[80]) << 8 | Int(plaintext[81])
        guard n >= 1, n <= NotificationContent.maximumIdentifierByteCount else {
            throw .malformedBundle("conversation id length \(n) is not 1 to \(NotificationContent.maximumIdentifierByteCount)")
        }
        let cid = plaintext[conversationOffset..<(conversationOffset + n)]
        guard plaintext[(conversationOffset + n)...].allSatisfy({ $0 == 0 }) else {
            throw .malformedBundle("the padding after the conversation id is not all zeros")
        }
        let conversation = String(decoding: cid, as: UTF8.self)
        guard conversation.utf8.elementsEqual(cid) else { throw .malformedBundle("the conversation id is not valid UTF-8") }
        do throws(ContentError) { try NotificationContent.checkIdentifier(conversation, field: "conversation") } catch {
            throw .malformedBundle("the conversation id is not an identifier: \(error)")
        }
        let key = try! ConversationKey(rawBytes: plaintext[0..<ConversationKey.byteCount])
        guard key.id.bytes.elementsEqual(plaintext[32..<48]) else { throw .kidMismatch }
        return KeyBundleContents(
            unchecked: key, conversation, Int64(epoch), Int64(since), rawRetireBy == stillCurrent ? nil : Int64(rawRetireBy), Int64(expires))
    }
}
