/// The 16-byte key identifier: HKDF-Expand(K, "pushseal v1 key id", 16).
///
/// Not secret. It lets a receiver find the one key an envelope was sealed under with an indexed
/// lookup, and commits the envelope to that key.
public struct KeyID: Hashable, Sendable, CustomStringConvertible {
    /// Length in bytes.
    public static let byteCount = 16

    /// The 16 bytes, held inline (in memory order): a key id is copied into every envelope,
    /// request and result, and inline storage makes those copies free of allocations and of
    /// reference counting, which threads sealing with the same key would otherwise contend on.
    private var storage: (UInt64, UInt64)

    /// The identifier's bytes.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Wraps exactly 16 bytes; nil for any other length.
    public init?(bytes: some Sequence<UInt8>) {
        var storage: (UInt64, UInt64) = (0, 0)
        let copied: Bool? = bytes.withContiguousStorageIfAvailable { source in
            guard source.count == KeyID.byteCount else { return false }
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(source)) }
            return true
        }
        if let copied {
            guard copied else { return nil }
        } else {
            let array = Array(bytes)
            guard array.count == KeyID.byteCount else { return nil }
            withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: array) }
        }
        self.storage = storage
    }

    /// Reads exactly 16 bytes at `source` (the caller guarantees the length).
    package init(unsafeBytesAt source: UnsafeRawPointer) {
        storage = (0, 0)
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: source, count: KeyID.byteCount)) }
    }

    /// Gives `body` the 16 bytes; the pointer must not escape the closure.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: storage, body)
    }

    /// Byte-for-byte equality (key ids are not secret).
    public static func == (lhs: KeyID, rhs: KeyID) -> Bool {
        lhs.storage.0 == rhs.storage.0 && lhs.storage.1 == rhs.storage.1
    }

    /// Hashes the 16 bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.0)
        hasher.combine(storage.1)
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
