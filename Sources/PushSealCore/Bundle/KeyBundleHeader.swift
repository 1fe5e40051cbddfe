/// The bundle header B (SPEC §16.3): which provider key sealed the bundle, to which device key,
/// and which conversation key it carries. Not secret; it is the HPKE associated data, so every
/// field is authenticated.
public struct KeyBundleHeader: Sendable, Equatable {
    /// The only bundle version this implementation reads and writes.
    public static let version: UInt8 = 0x01
    /// Bytes of the header before the conversation id: version, two ids, epoch, not-after, kid,
    /// the cid length.
    package static let fixedByteCount = 1 + 16 + 16 + 8 + 8 + 16 + 2
    /// The header's encoding of "no not-after time".
    static let noLimit = UInt64.max

    /// The id of the provider key that sealed the bundle.
    public let providerKeyID: KeyID
    /// The id of the device key the bundle is sealed to.
    public let deviceKeyID: KeyID
    /// The key's epoch within its conversation (1 or more).
    public let epoch: Int64
    /// The key's last live second, in seconds since 1970; nil for no limit.
    public let notAfter: Int64?
    /// The conversation key's id (HKDF-Expand(K, "pushseal v1 key id", 16)).
    public let keyID: KeyID
    /// The conversation the key belongs to (1 to 256 UTF-8 bytes).
    public let conversation: String

    /// A header from its fields; throws when one is out of range.
    public init(
        providerKeyID: KeyID, deviceKeyID: KeyID, epoch: Int64, notAfter: Int64?, keyID: KeyID, conversation: String
    ) throws(KeyBundleSealingError) {
        guard epoch >= 1 else { throw .invalidField("epoch must be 1 or more, is \(epoch)") }
        if let notAfter, notAfter < 0 { throw .invalidField("notAfter must not be negative, is \(notAfter)") }
        let cidLength = conversation.utf8.count
        guard cidLength >= 1, cidLength <= NotificationContent.maximumIdentifierByteCount else {
            throw .invalidField("conversation must be 1 to \(NotificationContent.maximumIdentifierByteCount) UTF-8 bytes, is \(cidLength)")
        }
        self.providerKeyID = providerKeyID
        self.deviceKeyID = deviceKeyID
        self.epoch = epoch
        self.notAfter = notAfter
        self.keyID = keyID
        self.conversation = conversation
    }

    private init(unchecked providerKeyID: KeyID, _ deviceKeyID: KeyID, _ epoch: Int64, _ notAfter: Int64?, _ keyID: KeyID, _ conversation: String) {
        self.providerKeyID = providerKeyID
        self.deviceKeyID = deviceKeyID
        self.epoch = epoch
        self.notAfter = notAfter
        self.keyID = keyID
        self.conversation = conversation
    }

    /// The header's bytes B (big-endian integers), the HPKE associated data.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.fixedByteCount + conversation.utf8.count)
        out.append(Self.version)
        out += providerKeyID.bytes
        out += deviceKeyID.bytes
        Self.appendBigEndian(UInt64(epoch), to: &out)
        Self.appendBigEndian(notAfter.map { UInt64($0) } ?? Self.noLimit, to: &out)
        out += keyID.bytes
        let cid = Array(conversation.utf8)
        out.append(UInt8(cid.count >> 8))
        out.append(UInt8(cid.count & 0xFF))
        out += cid
        return out
    }

    private static func appendBigEndian(_ value: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func readBigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Parses the header at the start of a decoded bundle `bytes` (SPEC §16.5 steps 2 and 3) and
    /// checks the bundle's exact length, `147 + n`. Returns the header and its length.
    static func parse(bundle bytes: [UInt8]) throws(KeyBundleError) -> (header: KeyBundleHeader, byteCount: Int) {
        guard let version = bytes.first else { throw .malformedBundle("empty") }
        guard version == Self.version else { throw .unsupportedBundleVersion(version) }
        guard bytes.count >= fixedByteCount else {
            throw .malformedBundle("\(bytes.count) bytes, shorter than the \(fixedByteCount)-byte fixed header")
        }
        let cidLength = Int(bytes[fixedByteCount - 2]) << 8 | Int(bytes[fixedByteCount - 1])
        guard cidLength >= 1, cidLength <= NotificationContent.maximumIdentifierByteCount else {
            throw .malformedBundle("conversation length \(cidLength) is not 1 to \(NotificationContent.maximumIdentifierByteCount)")
        }
        let expected = fixedByteCount + cidLength + KeyBundle.sealedKeyByteCount
        guard bytes.count == expected else { throw .malformedBundle("\(bytes.count) bytes, expected exactly \(expected)") }
        let epoch = readBigEndian(bytes[33..<41])
        guard epoch >= 1, epoch <= UInt64(Int64.max) else { throw .malformedBundle("epoch \(epoch) is not 1 to 2^63 - 1") }
        let rawNotAfter = readBigEndian(bytes[41..<49])
        guard rawNotAfter == noLimit || rawNotAfter <= UInt64(Int64.max) else {
            throw .malformedBundle("notAfter \(rawNotAfter) is neither 2^64 - 1 (no limit) nor at most 2^63 - 1")
        }
        let cidBytes = bytes[fixedByteCount..<(fixedByteCount + cidLength)]
        let conversation = String(decoding: cidBytes, as: UTF8.self)
        guard conversation.utf8.elementsEqual(cidBytes) else { throw .malformedBundle("the conversation is not valid UTF-8") }
        let header = KeyBundleHeader(
            unchecked: KeyID(bytes: bytes[1..<17])!, KeyID(bytes: bytes[17..<33])!, Int64(epoch),
            rawNotAfter == noLimit ? nil : Int64(rawNotAfter), KeyID(bytes: bytes[49..<65])!, conversation)
        return (header, fixedByteCount + cidLength)
    }
}
