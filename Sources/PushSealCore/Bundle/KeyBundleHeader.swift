/// The clear header B of a key bundle (SPEC §16.3, format 2): the version and the id of the
/// provider key that sealed it — only what a device needs to pick the pinned provider key. It is
/// the HPKE associated data. Nothing per-device or per-conversation is in it: the device key id,
/// epoch, kid, times and conversation id are all sealed (``KeyBundleContents``).
public struct KeyBundleHeader: Sendable, Equatable {
    /// The only bundle version this implementation reads and writes (format 2).
    public static let version: UInt8 = 0x02
    /// Length of the header: version and provider key id.
    public static let byteCount = 1 + KeyID.byteCount

    /// The id of the provider key that sealed the bundle.
    public let providerKeyID: KeyID

    /// The header naming `providerKeyID`.
    public init(providerKeyID: KeyID) {
        self.providerKeyID = providerKeyID
    }

    /// The header's bytes B, the HPKE associated data.
    public func encoded() -> [UInt8] {
        [Self.version] + providerKeyID.bytes
    }

    /// Parses the header of decoded bundle `bytes` (SPEC §16.5 steps 2 and 3): the version is
    /// checked before the length, so a bundle of another version is `unsupported_bundle_version`
    /// whatever its length.
    static func parse(bundle bytes: [UInt8]) throws(KeyBundleError) -> KeyBundleHeader {
        guard let version = bytes.first else { throw .malformedBundle("empty") }
        guard version == Self.version else { throw .unsupportedBundleVersion(version) }
        guard bytes.count == KeyBundle.byteCount else {
            throw .malformedBundle("\(bytes.count) bytes: every format-2 bundle is \(KeyBundle.byteCount) bytes")
        }
        return KeyBundleHeader(providerKeyID: KeyID(bytes: bytes[1..<byteCount])!)
    }
}
