@testable import PushSealCore
import PushSealTestSupport
import Testing
@testable import PushSealJSON

/// The writer's fast paths (eight-byte escape scan, bounded buffer, digit formatting) against
/// simple references.
@Suite struct JSONWriterTests {
    /// One byte at a time, straight from the escaping rules in Docs/PROVIDER.md §3.
    static func referenceEscaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x22]
        for c in bytes {
            switch c {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x08: out += Array("\\b".utf8)
            case 0x0C: out += Array("\\f".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0..<0x20: out += Array("\\u00".utf8) + [Array("0123456789abcdef".utf8)[Int(c >> 4)], Array("0123456789abcdef".utf8)[Int(c & 0xF)]]
            default: out.append(c)
            }
        }
        return out + [0x22]
    }

    @Test func escapesEveryByteValueAtEveryPosition() {
        for byte in UInt8(0)...UInt8(0x7F) {
            for length in [1, 7, 8, 9, 17] {
                for position in 0..<length {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = byte
                    var writer = JSONWriter()
                    bytes.withUnsafeBytes { writer.appendString(utf8: $0) }
                    #expect(writer.bytes == Self.referenceEscaped(bytes), "byte \(byte) at \(position) of \(length)")
                }
            }
        }
    }

    @Test func randomStringsMatchTheReference() {
        var generator = TestSeed.generator()
        let alphabet: [UInt8] = [0x00, 0x01, 0x09, 0x0A, 0x1F, 0x20, 0x22, 0x2F, 0x5C, 0x61, 0x7F, 0xC3, 0xA9]
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0...70, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            var writer = JSONWriter()
            bytes.withUnsafeBytes { writer.appendString(utf8: $0) }
            #expect(writer.bytes == Self.referenceEscaped(bytes))
        }
    }

    @Test func integersAreWrittenAsStringDoes() {
        var values: [Int64] = [0, 1, 9, 10, 99, 100, -1, -9, -10, 1_700_000_000, 253_402_300_799, .max, .min, .max - 1, .min + 1]
        var generator = TestSeed.generator()
        for _ in 0..<1_000 { values.append(Int64.random(in: .min ... .max, using: &generator)) }
        for value in values {
            var writer = JSONWriter()
            writer.appendInteger(value)
            #expect(writer.text == String(value))
        }
    }

    @Test func boundedWriterProducesTheSameBytesOrReportsOverflow() {
        let content = NotificationContent(
            conversationID: "c\"1", messageID: "m\n1", sentAt: -5, title: "T\u{1}", subtitle: "s", body: "héllo \\ wörld",
            sender: .init(id: "u", name: "N"), thread: "t", category: "c", badge: 3, isTruncated: true, extras: ["b": "2", "a": "1"])
        var writer = JSONWriter()
        content.writeJSON(to: &writer)
        let expected = writer.bytes
        #expect(expected.count == content.encodedByteCount)
        for capacity in [0, 1, expected.count - 1, expected.count, expected.count + 10] {
            var buffer = [UInt8](repeating: 0xEE, count: capacity)
            let count = buffer.withUnsafeMutableBytes { content.writeJSON(into: $0) }
            if capacity >= expected.count {
                #expect(count == expected.count)
                #expect(Array(buffer[0..<expected.count]) == expected)
                #expect(buffer[expected.count...].allSatisfy { $0 == 0xEE }, "nothing written past the encoding")
            } else {
                #expect(count == nil, "capacity \(capacity)")
            }
        }
    }
}
