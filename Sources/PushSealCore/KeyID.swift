/// The 16-byte key identifier: HKDF-Expand(K, "pushseal v1 key id", 16).
///
/// Not secret. It lets a receiver find the one key an envelope was sealed under with an indexed
/// lookup, and commits the envelope to that key.
public struct KeyID: Hashable, Sendable, CustomStringConvertible {
    /// Length in bytes.
    public static let byteCount = 16

    /// The identifier's bytes.
    public let bytes: [UInt8]

    /// Wraps exactly 16 bytes; nil for any other length.
    public init?(bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        guard array.count == KeyID.byteCount else { return nil }
        self.bytes = array
    }

    /// Parses the base64url form (22 characters); nil when it is not a 16-byte base64url string.
    public init?(base64URL: String) {
        guard let bytes = try? Base64URL.decode(base64URL) else { return nil }
        self.init(bytes: bytes)
    }

    /// Base64url without padding, as printed by the CLI.
    public var base64URL: String { Base64URL.encode(bytes) }

    /// Lowercase hexadecimal, as in the vector files.
    public var hex: String { Hex.encode(bytes) }

    /// The key id as base64url (the form the CLI and logs print).
    public var description: String { base64URL }
}

/// Lowercase hexadecimal, for vectors and diagnostics.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Lowercase hex of `bytes`.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes of a hex string (either case); nil if it is not hex of whole bytes.
    public static func decode(_ string: String) -> [UInt8]? {
        let utf8 = Array(string.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
