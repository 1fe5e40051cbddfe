import PushSealTestSupport
import Testing
import PushSealCore
import PushSealJSON

/// The provider's hot path relies on three core leaf functions that were made faster for it
/// (two-character base64 table, eight-byte escape scan, thread id derived once per key). These
/// tests pin them to straightforward reference implementations.
@Suite("Core fast paths give the reference bytes")
struct CoreFastPathTests {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func referenceBase64URL(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var bits = 0
        var buffer = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[(buffer >> bits) & 0x3F])
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (6 - bits)) & 0x3F]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func referenceJSONString(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = Array("0123456789abcdef")
                out += "\\u00" + String(hex[Int(scalar.value >> 4)]) + String(hex[Int(scalar.value & 0xF)])
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test("Base64URL.encode equals a bit-by-bit reference for every length 0...300 and random bytes")
    func base64() throws {
        var rng = SeededGenerator(seed: 77)
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == Self.referenceBase64URL(bytes))
            #expect(encoded.utf8.count == Base64URL.encodedLength(of: length))
            #expect(try Base64URL.decode(encoded) == bytes)
        }
        #expect(Base64URL.encode((0...255).map { UInt8($0) }) == Self.referenceBase64URL((0...255).map { UInt8($0) }))
    }

    @Test("JSONWriter.appendString equals the reference escaping, around every 8-byte boundary")
    func escaping() {
        var rng = SeededGenerator(seed: 78)
        let specials: [Character] = ["\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1F}", "\u{7F}", "é", "🙂", "/", "\u{2028}", " "]
        for length in 0...40 {
            for _ in 0..<40 {
                var text = ""
                for _ in 0..<length {
                    text.append(Int.random(in: 0..<4, using: &rng) == 0
                        ? specials.randomElement(using: &rng)!
                        : Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &rng))))
                }
                var writer = JSONWriter()
                writer.appendString(text)
                #expect(writer.text == Self.referenceJSONString(text))
                #expect(writer.bytes.count == JSONWriter.encodedLength(ofString: text))
            }
        }
    }

    @Test("opaqueThreadID is base64url(HMAC-SHA256(K, \"pushseal v1 thread id\" || 0x01)[0..<16])")
    func threadID() throws {
        let key = testKey(1)
        let mac = key.withUnsafeBytes { k in
            HMACSHA256.authenticationCode(for: Array("pushseal v1 thread id".utf8) + [1], using: SecretKey(bytes: Array(k)))
        }
        #expect(key.opaqueThreadID == Base64URL.encode(mac.prefix(16)))
        let expanded = try HKDFSHA256.expand(pseudoRandomKey: key.secretKey, info: Array("pushseal v1 thread id".utf8), outputByteCount: 16)
        #expect(key.opaqueThreadID == expanded.withUnsafeBytes { Base64URL.encode(Array($0)) })
    }
}
