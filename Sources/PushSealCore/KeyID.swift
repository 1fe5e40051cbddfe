/// The 16-byte key identifier: HKDF-Expand(K, "pushseal v1 key id", 16).
///
/// Not secret. It lets a receiver find the one key an envelope was sealed under with an indexed
/// lookup, and commits the envelope to that key.
public struct KeyID: Hashable, Sendable, CustomStringConvertible {
    /// Length in bytes.
    public static let byteCount = 16

    // The 16 bytes in memory order, inline: a key id is made for every envelope opened and
    // travels with every result, so it holds no reference (no allocation, no reference counting).
    private let first: UInt64
    private let second: UInt64

    /// The identifier's bytes.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Wraps exactly 16 bytes; nil for any other length.
    public init?(bytes: some Sequence<UInt8>) {
        let contiguous = bytes.withContiguousStorageIfAvailable { KeyID(exactly: UnsafeRawBufferPointer($0)) }
        if let contiguous {
            guard let contiguous else { return nil }
            self = contiguous
            return
        }
        guard let copied = Array(bytes).withUnsafeBytes({ KeyID(exactly: $0) }) else { return nil }
        self = copied
    }

    /// Copies exactly 16 bytes from memory; nil for any other length.
    package init?(exactly buffer: UnsafeRawBufferPointer) {
        guard buffer.count == KeyID.byteCount, let base = buffer.baseAddress else { return nil }
        first = base.loadUnaligned(as: UInt64.self)
        second = base.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
    }

    /// Gives `body` the 16 bytes; the pointer must not escape the closure.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var words = (first, second)
        return try Swift.withUnsafeBytes(of: &words) { try body($0) }
    }

    /// Parses the base64url form (22 characters); nil when it is not a 16-byte base64url string.
    public init?(base64URL: String) {
        guard let bytes = try? Base64URL.decode(base64URL) else { return nil }
        self.init(bytes: bytes)
    }

    /// Base64url without padding, as printed by the CLI.
    public var base64URL: String { withUnsafeBytes { Base64URL.encode($0) } }

    /// Lowercase hexadecimal, as in the vector files.
    public var hex: String { withUnsafeBytes { Hex.encode($0) } }

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
