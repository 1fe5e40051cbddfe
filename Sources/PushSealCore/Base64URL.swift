/// Strict base64url without padding (RFC 4648 §5), as used on the wire and for keys and salts.
///
/// Decoding rejects `=`, characters outside `A–Z a–z 0–9 - _`, a length that leaves one
/// character over (`count % 4 == 1`), and non-zero unused bits in the last character, so every
/// byte string has exactly one accepted encoding.
public enum Base64URL {
    /// Why a string is not strict base64url.
    public enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A padding character `=` at this offset (padding is never used).
        case paddingCharacter(offset: Int)
        /// A character outside the url-safe alphabet at this offset.
        case invalidCharacter(offset: Int)
        /// A length no byte string encodes to (`count % 4 == 1`).
        case impossibleLength(Int)
        /// The last character carries non-zero bits beyond the encoded bytes.
        case nonZeroTrailingBits

        /// A one-line explanation naming the offending offset or length, for error messages.
        public var description: String {
            switch self {
            case let .paddingCharacter(offset): "padding character '=' at offset \(offset) (base64url without padding expected)"
            case let .invalidCharacter(offset): "character at offset \(offset) is outside the base64url alphabet"
            case let .impossibleLength(count): "length \(count) is not a possible base64url length"
            case .nonZeroTrailingBits: "non-zero trailing bits in the last character"
            }
        }
    }

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0–63 for alphabet characters, 0xFF otherwise.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// For each position in a group of four characters, each character's six bits already shifted
    /// into place (by 18, 12, 6, 0), or 0xFF00_0000 for a character outside the alphabet: a
    /// group decodes with four lookups and three ORs, and one test finds any bad character.
    private static let groupTables: [UInt32] = {
        var tables = [UInt32](repeating: 0xFF00_0000, count: 4 * 256)
        for (index, character) in alphabet.enumerated() {
            for position in 0..<4 { tables[position * 256 + Int(character)] = UInt32(index) << (18 - 6 * position) }
        }
        return tables
    }()

    /// Encoded length of `byteCount` bytes.
    @inline(__always)
    public static func encodedLength(of byteCount: Int) -> Int {
        let rest = byteCount % 3
        return (byteCount / 3) * 4 + (rest == 0 ? 0 : rest + 1)
    }

    /// Largest number of bytes a string of `characterCount` characters can decode to.
    @inline(__always)
    public static func decodedLength(of characterCount: Int) -> Int {
        let rest = characterCount % 4
        return (characterCount / 4) * 3 + (rest <= 1 ? 0 : rest - 1)
    }

    /// Encodes `bytes`.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let array = Array(bytes)
        let length = encodedLength(of: array.count)
        return array.withUnsafeBytes { source in
            String(unsafeUninitializedCapacity: length) { destination in
                encode(source, into: destination.baseAddress!)
            }
        }
    }

    /// Two output characters for every 12-bit value: the first in the low byte (stored little-endian).
    private static let pairTable: [UInt16] = (0..<4096).map { value in
        UInt16(alphabet[value >> 6]) | UInt16(alphabet[value & 0x3F]) << 8
    }

    /// Encodes `source` into `destination`, which must have room for `encodedLength(of:)` bytes.
    /// Returns the number of bytes written.
    @discardableResult
    package static func encode(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutablePointer<UInt8>) -> Int {
        pairTable.withUnsafeBufferPointer { pairs in
            let p = pairs.baseAddress!
            let raw = UnsafeMutableRawPointer(destination)
            var out = 0
            var index = 0
            let count = source.count
            let fullEnd = count - count % 3
            // Six bytes → eight characters per step: one unaligned 64-bit load (two bytes past
            // the six are read but unused, so this runs while eight bytes remain), four lookups
            // of two characters each, one 64-bit store.
            while index + 8 <= count {
                let word = UInt64(bigEndian: source.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let first = UInt64(p[Int(truncatingIfNeeded: word >> 52)])
                let second = UInt64(p[Int(truncatingIfNeeded: (word >> 40) & 0xFFF)])
                let third = UInt64(p[Int(truncatingIfNeeded: (word >> 28) & 0xFFF)])
                let fourth = UInt64(p[Int(truncatingIfNeeded: (word >> 16) & 0xFFF)])
                raw.storeBytes(of: (first | second << 16 | third << 32 | fourth << 48).littleEndian, toByteOffset: out, as: UInt64.self)
                out += 8
                index += 6
            }
            // Three bytes → four characters, two characters per table lookup.
            while index < fullEnd {
                let word = (UInt32(source[index]) << 16) | (UInt32(source[index + 1]) << 8) | UInt32(source[index + 2])
                raw.storeBytes(of: p[Int(word >> 12)].littleEndian, toByteOffset: out, as: UInt16.self)
                raw.storeBytes(of: p[Int(word & 0xFFF)].littleEndian, toByteOffset: out + 2, as: UInt16.self)
                out += 4
                index += 3
            }
            switch count - fullEnd {
            case 1:
                let pair = p[Int(UInt32(source[index]) << 4)]
                destination[out] = UInt8(truncatingIfNeeded: pair)
                destination[out + 1] = UInt8(truncatingIfNeeded: pair >> 8)
                out += 2
            case 2:
                let word = (UInt32(source[index]) << 10) | (UInt32(source[index + 1]) << 2)
                let pair = p[Int(word >> 6)]
                destination[out] = UInt8(truncatingIfNeeded: pair)
                destination[out + 1] = UInt8(truncatingIfNeeded: pair >> 8)
                destination[out + 2] = alphabet[Int(word & 0x3F)]
                out += 3
            default:
                break
            }
            return out
        }
    }

    /// Decodes a strict base64url string.
    public static func decode(_ string: some StringProtocol) throws(DecodingError) -> [UInt8] {
        // Native strings are contiguous UTF-8: decode in place, without copying the characters.
        let contiguous = string.utf8.withContiguousStorageIfAvailable { buffer in
            Result { () throws(DecodingError) -> [UInt8] in try decode(ascii: UnsafeRawBufferPointer(buffer)) }
        }
        if let contiguous { return try contiguous.get() }
        let utf8 = Array(string.utf8)
        let result = utf8.withUnsafeBytes { bytes in
            Result { () throws(DecodingError) -> [UInt8] in try decode(ascii: bytes) }
        }
        return try result.get()
    }

    /// Decodes strict base64url from ASCII bytes.
    public static func decode(ascii input: UnsafeRawBufferPointer) throws(DecodingError) -> [UInt8] {
        let count = input.count
        guard count % 4 != 1 else {
            // Report a bad character first when there is one: it is the more useful message.
            try validateAlphabet(input)
            throw .impossibleLength(count)
        }
        let outputCount = decodedLength(of: count)
        var failure: DecodingError?
        let groups = groupTables
        var output = ByteArray.zeroed(count: outputCount)
        decodeTable.withUnsafeBufferPointer { tablePointer in
            output.withUnsafeMutableBufferPointer { out in
                let table = tablePointer.baseAddress!
                var i = 0
                var o = 0
                let fullEnd = count - count % 4
                groups.withUnsafeBufferPointer { groupPointer in
                    let g = groupPointer.baseAddress!
                    // Two groups (eight characters, six bytes) per step with one validity test and
                    // one eight-byte store, whose last two bytes the next step overwrites: so this
                    // runs while eight output bytes remain. A bad character ends it; the loop
                    // below then stops at the same group and reports it.
                    let raw = UnsafeMutableRawPointer(out.baseAddress!)
                    while i + 8 <= fullEnd && o + 8 <= outputCount {
                        let first = g[Int(input[i])] | g[256 + Int(input[i + 1])] | g[512 + Int(input[i + 2])] | g[768 + Int(input[i + 3])]
                        let second = g[Int(input[i + 4])] | g[256 + Int(input[i + 5])] | g[512 + Int(input[i + 6])] | g[768 + Int(input[i + 7])]
                        if (first | second) & 0xFF00_0000 != 0 { break }
                        let six = (UInt64(first) << 40) | (UInt64(second) << 16)
                        raw.storeBytes(of: six.bigEndian, toByteOffset: o, as: UInt64.self)
                        i += 8
                        o += 6
                    }
                    while i < fullEnd {
                        let word = g[Int(input[i])] | g[256 + Int(input[i + 1])] | g[512 + Int(input[i + 2])] | g[768 + Int(input[i + 3])]
                        if word & 0xFF00_0000 != 0 { return }   // reported below
                        out[o] = UInt8(truncatingIfNeeded: word >> 16)
                        out[o + 1] = UInt8(truncatingIfNeeded: word >> 8)
                        out[o + 2] = UInt8(truncatingIfNeeded: word)
                        i += 4
                        o += 3
                    }
                }
                if i < fullEnd {
                    failure = characterError(input, from: i)
                    return
                }
                let rest = count - fullEnd
                if rest >= 2 {
                    let c0 = table[Int(input[i])], c1 = table[Int(input[i + 1])]
                    let c2 = rest == 3 ? table[Int(input[i + 2])] : 0
                    if (c0 | c1 | c2) & 0xC0 != 0 {
                        failure = characterError(input, from: i)
                        return
                    }
                    let word = (UInt32(c0) << 18) | (UInt32(c1) << 12) | (UInt32(c2) << 6)
                    out[o] = UInt8(truncatingIfNeeded: word >> 16)
                    if rest == 3 {
                        out[o + 1] = UInt8(truncatingIfNeeded: word >> 8)
                        if word & 0xFF != 0 { failure = .nonZeroTrailingBits }
                    } else if word & 0xFFFF != 0 {
                        failure = .nonZeroTrailingBits
                    }
                }
            }
        }
        if let failure { throw failure }
        return output
    }

    private static func validateAlphabet(_ input: UnsafeRawBufferPointer) throws(DecodingError) {
        if let error = characterError(input, from: 0) { throw error }
    }

    /// The first non-alphabet character at or after `start`, as an error.
    private static func characterError(_ input: UnsafeRawBufferPointer, from start: Int) -> DecodingError? {
        for offset in start..<input.count where decodeTable[Int(input[offset])] == 0xFF {
            return input[offset] == UInt8(ascii: "=") ? .paddingCharacter(offset: offset) : .invalidCharacter(offset: offset)
        }
        return nil
    }
}
