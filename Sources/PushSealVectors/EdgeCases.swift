@_spi(Vectors) import PushSealCore

/// Edge cases of payload parsing, UTF-8 and field boundaries, added after the independent ports
/// probed them (see Docs/SPEC.md Appendix A).
extension VectorCaseBuilder {
    mutating func defineEdgeCases() {
        defineValidEdges()
        definePayloadEdges()
        defineContentEncodingEdges()
        defineFieldBoundaries()
    }

    private mutating func defineValidEdges() {
        padded("The full FCM v1 message is the payload (message.data.pushseal)", flags: ["Valid", "PayloadShape"],
               content: basic(mid: "m-fcm"), label: "valid fcm message") { $0.payload = $0.fcm! }
        padded("A bare FCM data map is the payload", flags: ["Valid", "PayloadShape"],
               content: basic(mid: "m-data-map"), label: "valid data map") { $0.payload = #"{"pushseal":"\#($0.wire!)"}"# }
        padded("The pushseal string uses JSON escapes (\\u0041 and \\/ are plain characters after unescaping)",
               flags: ["Valid", "PayloadShape"], content: basic(mid: "m-escaped"), label: "valid escaped wire") { vector in
            let wire = vector.wire!
            let first = wire.unicodeScalars.first!
            let escaped = "\\u00" + Hex.encode([UInt8(first.value)]) + wire.dropFirst()
            vector.payload = #"{"aps":{"alert":{"title":"New message"},"mutable-content":1},"pushseal":"\#(escaped)","link":"a\/b"}"#
        }
        let head = #""cid":"conv-alice-bob","mid":"m-deep","ts":\#(sentAt),"body":"x""#
        padded("Nesting of exactly 16 (the top-level object is depth 1)", flags: ["Valid", "UnknownMembers"],
               content: content("{\(head),\"deep\":\(String(repeating: "[", count: 15))\(String(repeating: "]", count: 15))}"),
               label: "valid depth 16")
        padded("ts = 0 with a receiver whose maxAge reaches back to 1970", flags: ["Valid", "FreshnessBoundary"],
               content: basic(mid: "m-epoch", ts: 0), label: "valid ts zero") { $0.maxAge = VectorSuite.now }
        let longID = String(repeating: "c", count: 256)
        padded("cid of exactly 256 bytes", flags: ["Valid"], content: basic(mid: "m-long-cid", cid: longID),
               label: "valid cid 256") { $0.conversation = longID }
    }

    private mutating func definePayloadEdges() {
        let wire = Envelope.seal(content: basic(), with: alice, paddedLength: 256, salt: VectorSuite.salt("payload edges")).wire
        let aps = #""aps":{"alert":{"title":"New message"},"mutable-content":1}"#
        crafted("aps appears twice: the payload is not strict JSON", flags: ["NotSealed", "PayloadShape"], wire: nil,
                payload: "{\(aps),\(aps),\"pushseal\":\"\(wire)\"}", reason: .notSealed)
        crafted("NaN in the payload", flags: ["NotSealed"], wire: nil,
                payload: "{\(aps),\"score\":NaN,\"pushseal\":\"\(wire)\"}", reason: .notSealed)
        crafted("A UTF-8 byte order mark before the payload", flags: ["NotSealed"], wire: nil,
                payload: "\u{FEFF}{\(aps),\"pushseal\":\"\(wire)\"}", reason: .notSealed)
        crafted("Payload nesting of 17", flags: ["NotSealed"], wire: nil,
                payload: "{\(aps),\"n\":\(String(repeating: "[", count: 16))\(String(repeating: "]", count: 16)),\"pushseal\":\"\(wire)\"}",
                reason: .notSealed)
        crafted("A lone surrogate escape elsewhere in the payload", flags: ["NotSealed"], wire: nil,
                payload: "{\(aps),\"s\":\"\\udc00\",\"pushseal\":\"\(wire)\"}", reason: .notSealed)
        crafted("message.data.pushseal appears twice", flags: ["PayloadShape"], wire: wire,
                payload: #"{"message":{"data":{"pushseal":"\#(wire)","pushseal":"\#(wire)"}}}"#, reason: .malformedEnvelope)
        crafted("A newline (JSON-escaped) inside the envelope string", flags: ["Base64"], wire: nil,
                payload: "{\(aps),\"pushseal\":\"\(wire.prefix(76))\\n\(wire.dropFirst(76))\"}", reason: .malformedEnvelope)
        crafted("A non-ASCII character inside the envelope string", flags: ["Base64"], wire: nil,
                payload: "{\(aps),\"pushseal\":\"\u{e9}\(wire.dropFirst())\"}", reason: .malformedEnvelope)
    }

    private mutating func defineContentEncodingEdges() {
        let head = #""cid":"conv-alice-bob","mid":"m-0300","ts":\#(sentAt)"#
        func badBytes(_ comment: String, _ bytes: [UInt8], _ label: String) {
            padded(comment, flags: ["InvalidJSON"], content: bytes, label: label, reason: .malformedContent)
        }
        badBytes("A UTF-8 byte order mark before the content", [0xEF, 0xBB, 0xBF] + Array("{\(head),\"body\":\"x\"}".utf8), "bom")
        badBytes("An encoded surrogate (ED A0 80) in the body",
                 Array("{\(head),\"body\":\"".utf8) + [0xED, 0xA0, 0x80] + Array("\"}".utf8), "utf8 surrogate")
        badBytes("A code point above U+10FFFF (F4 90 80 80)",
                 Array("{\(head),\"body\":\"".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array("\"}".utf8), "utf8 above max")
        badBytes("A truncated UTF-8 sequence (E2 82) before the closing quote",
                 Array("{\(head),\"body\":\"".utf8) + [0xE2, 0x82] + Array("\"}".utf8), "utf8 truncated")
        badBytes("NaN as the value of an unknown member", Array("{\(head),\"body\":\"x\",\"n\":NaN}".utf8), "nan")
        badBytes("A duplicate name spelled with an escape (\\u0063id = cid)",
                 Array("{\(head),\"body\":\"x\",\"\\u0063id\":\"conv-alice-bob\"}".utf8), "escaped duplicate")
    }

    private mutating func defineFieldBoundaries() {
        let prefix = #""cid":"conv-alice-bob","mid":"m-0400""#
        func bad(_ comment: String, _ json: String, _ label: String) {
            padded(comment, flags: ["WrongTypes"], content: content(json), label: label, reason: .malformedContent)
        }
        bad("ts is -0", "{\(prefix),\"ts\":-0,\"body\":\"x\"}", "ts minus zero")
        bad("ts has an exponent", "{\(prefix),\"ts\":1764399e3,\"body\":\"x\"}", "ts exponent")
        bad("ts is one above the maximum (253402300800)", "{\(prefix),\"ts\":253402300800,\"body\":\"x\"}", "ts above max")
        bad("ts has 40 digits", "{\(prefix),\"ts\":\(String(repeating: "9", count: 40)),\"body\":\"x\"}", "ts huge")
        bad("cid of 257 bytes", #"{"cid":"\#(String(repeating: "c", count: 257))","mid":"m-0400","ts":\#(sentAt),"body":"x"}"#, "cid 257")
        bad("thread is empty", "{\(prefix),\"ts\":\(sentAt),\"body\":\"x\",\"thread\":\"\"}", "thread empty")
        bad("category of 257 bytes", "{\(prefix),\"ts\":\(sentAt),\"body\":\"x\",\"category\":\"\(String(repeating: "k", count: 257))\"}",
            "category 257")
        bad("badge is 2147483648", "{\(prefix),\"ts\":\(sentAt),\"body\":\"x\",\"badge\":2147483648}", "badge above max")
        bad("trunc is the string \"true\"", "{\(prefix),\"ts\":\(sentAt),\"body\":\"x\",\"trunc\":\"true\"}", "trunc string")
        bad("trunc is 1", "{\(prefix),\"ts\":\(sentAt),\"body\":\"x\",\"trunc\":1}", "trunc one")
    }
}
