/// The bundle header B (SPEC §16.3): which provider key sealed the bundle, to which device key,
/// and which key (kid, epoch, not-after) it carries. Not secret; it is the HPKE associated data,
/// so every field is authenticated. The conversation id is not in it: it is sealed with the key,
/// so a push service carrying the bundle in band does not learn it.
public struct KeyBundleHeader: Sendable, Equatable {
    /// The only bundle version this implementation reads and writes.
    public static let version: UInt8 = 0x01
    /// Length of the header: version, two ids, epoch, not-after, kid.
    package static let byteCount = 1 + 16 + 16 + 8 + 8 + 16
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

    /// A header from its fields; throws when one is out of range.
    public init(providerKeyID: KeyID, deviceKeyID: KeyID, epoch: Int64, notAfter: Int64?, keyID: KeyID) throws(KeyBundleSealingError) {
        guard epoch >= 1 else { throw .invalidField("epoch must be 1 or more, is \(epoch)") }
        if let notAfter, notAfter < 0 { throw .invalidField("notAfter must not be negative, is \(notAfter)") }
        self.init(unchecked: providerKeyID, deviceKeyID, epoch, notAfter, keyID)
    }

    private init(unchecked providerKeyID: KeyID, _ deviceKeyID: KeyID, _ epoch: Int64, _ notAfter: Int64?, _ keyID: KeyID) {
        self.providerKeyID = providerKeyID
        self.deviceKeyID = deviceKeyID
        self.epoch = epoch
        self.notAfter = notAfter
        self.keyID = keyID
    }

    /// The header's bytes B (big-endian integers), the HPKE associated data.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.byteCount)
        out.append(Self.version)
        out += providerKeyID.bytes
        out += deviceKeyID.bytes
        Self.appendBigEndian(UInt64(epoch), to: &out)
        Self.appendBigEndian(notAfter.map { UInt64($0) } ?? Self.noLimit, to: &out)
        out += keyID.bytes
        return out
    }

    private static func appendBigEndian(_ value: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func readBigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Parses the header at the start of a decoded bundle `bytes` (SPEC §16.5 steps 2 and 3) and
    /// checks the bundle's length, `145 + n` with `n` (the sealed conversation id's length) in
    /// 1...256. Returns the header and `n`.
    static func parse(bundle bytes: [UInt8]) throws(KeyBundleError) -> (header: KeyBundleHeader, conversationByteCount: Int) {
        guard let version = bytes.first else { throw .malformedBundle("empty") }
        guard version == Self.version else { throw .unsupportedBundleVersion(version) }
        let n = bytes.count - byteCount - KeyBundle.overheadByteCount
        guard n >= 1, n <= NotificationContent.maximumIdentifierByteCount else {
            throw .malformedBundle("\(bytes.count) bytes: a bundle is 146 to 401 bytes (145 + a 1 to 256-byte conversation id)")
        }
        let epoch = readBigEndian(bytes[33..<41])
        guard epoch >= 1, epoch <= UInt64(Int64.max) else { throw .malformedBundle("epoch \(epoch) is not 1 to 2^63 - 1") }
        let rawNotAfter = readBigEndian(bytes[41..<49])
        guard rawNotAfter == noLimit || rawNotAfter <= UInt64(Int64.max) else {
            throw .malformedBundle("notAfter \(rawNotAfter) is neither 2^64 - 1 (no limit) nor at most 2^63 - 1")
        }
        let header = KeyBundleHeader(
            unchecked: KeyID(bytes: bytes[1..<17])!, KeyID(bytes: bytes[17..<33])!, Int64(epoch),
            rawNotAfter == noLimit ? nil : Int64(rawNotAfter), KeyID(bytes: bytes[49..<65])!)
        return (header, n)
    }
}
