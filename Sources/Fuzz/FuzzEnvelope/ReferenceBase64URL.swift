import PushSealCore

/// A deliberately naive strict base64url decoder (RFC 4648 §5 without padding, Docs/SPEC.md §8),
/// one character and one bit group at a time, used as the oracle for `Base64URL.decode`.
///
/// Error precedence mirrors the documented order: the first character outside the alphabet
/// (`=` reported as padding), then an impossible length, then non-zero trailing bits.
enum ReferenceBase64URL {
    static func value(of character: UInt8) -> UInt32? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(character - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(character - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(character - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }

    static func decode(_ input: [UInt8]) -> Result<[UInt8], Base64URL.DecodingError> {
        for (offset, character) in input.enumerated() where value(of: character) == nil {
            return .failure(character == UInt8(ascii: "=") ? .paddingCharacter(offset: offset) : .invalidCharacter(offset: offset))
        }
        if input.count % 4 == 1 { return .failure(.impossibleLength(input.count)) }
        // Concatenate 6-bit groups; emit every complete byte; the leftover bits must be zero.
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bitCount = 0
        for character in input {
            accumulator = (accumulator << 6) | value(of: character)!
            bitCount += 6
            if bitCount >= 8 {
                bitCount -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bitCount)))
                accumulator &= (1 << UInt32(bitCount)) - 1
            }
        }
        if accumulator != 0 { return .failure(.nonZeroTrailingBits) }
        return .success(output)
    }
}
