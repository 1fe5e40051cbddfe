@_spi(Vectors) import PushSealCore
import PushSealReceiver
import Testing

/// One crafted raw-JSON payload and the reason it must produce.
struct Case: CustomTestStringConvertible, Sendable {
    let name: String
    let payload: [UInt8]
    let reason: ReasonCode?
    var testDescription: String { name }

    init(_ name: String, _ text: String, _ reason: ReasonCode?) {
        self.init(name, Array(text.utf8), reason)
    }

    init(_ name: String, _ bytes: [UInt8], _ reason: ReasonCode?) {
        self.name = name
        payload = bytes
        self.reason = reason
    }
}

/// A valid wire string for conversation A.
let validWire = seal(contentA())

/// `validWire` with one decoded byte changed.
func tampered(at offset: Int, wire: String = validWire) -> String {
    var bytes = try! Base64URL.decode(wire)
    bytes[offset] ^= 0x01
    return Base64URL.encode(bytes)
}

let notSealedCases: [Case] = [
    Case("not JSON", "hello", .notSealed),
    Case("empty input", "", .notSealed),
    Case("top level array", #"[{"pushseal":"\#(validWire)"}]"#, .notSealed),
    Case("top level string", #""\#(validWire)""#, .notSealed),
    Case("no pushseal member", #"{"aps":{"alert":"hi","mutable-content":1}}"#, .notSealed),
    Case("pushseal only nested under aps", #"{"aps":{"alert":"hi","pushseal":"\#(validWire)"}}"#, .notSealed),
    Case("name differs by case", #"{"PushSeal":"\#(validWire)"}"#, .notSealed),
    Case("trailing data", #"{"pushseal":"\#(validWire)"} x"#, .notSealed),
    Case("trailing comma", #"{"pushseal":"\#(validWire)",}"#, .notSealed),
    Case("byte order mark", [0xEF, 0xBB, 0xBF] + Array(#"{"pushseal":"\#(validWire)"}"#.utf8), .notSealed),
    Case("invalid UTF-8 in another member", Array(#"{"pushseal":"\#(validWire)","a":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8), .notSealed),
    Case("lone surrogate escape elsewhere", #"{"pushseal":"\#(validWire)","a":"\ud800"}"#, .notSealed),
    Case("NaN elsewhere", #"{"pushseal":"\#(validWire)","a":NaN}"#, .notSealed),
    Case("leading zero elsewhere", #"{"pushseal":"\#(validWire)","a":01}"#, .notSealed),
    Case("depth 17", #"{"pushseal":"\#(validWire)","a":"# + String(repeating: "[", count: 16) + String(repeating: "]", count: 16) + "}", .notSealed),
    Case("duplicate aps", #"{"aps":{},"aps":{},"pushseal":"\#(validWire)"}"#, .notSealed),
    Case("duplicate deep inside aps", #"{"aps":{"alert":{"body":"a","body":"b"}},"pushseal":"\#(validWire)"}"#, .notSealed),
    Case("duplicate name inside an array", #"{"pushseal":"\#(validWire)","a":[{"k":1,"k":2}]}"#, .notSealed),
    Case("duplicate elsewhere wins over duplicate pushseal", #"{"pushseal":"a","pushseal":"b","x":{"k":1,"k":2}}"#, .notSealed),
    Case("FCM message with duplicate message", #"{"message":{"data":{"pushseal":"\#(validWire)"}},"message":{}}"#, .notSealed),
    Case("FCM message with two data members", #"{"message":{"data":{"pushseal":"\#(validWire)"},"data":{}}}"#, .notSealed),
    Case("FCM data not an object", #"{"message":{"data":"\#(validWire)"}}"#, .notSealed),
    Case("FCM data without pushseal", #"{"message":{"data":{"other":"x"}}}"#, .notSealed),
    Case("pushseal nested deeper than message.data", #"{"message":{"data":{"inner":{"pushseal":"\#(validWire)"}}}}"#, .notSealed),
]

let malformedEnvelopeCases: [Case] = [
    Case("pushseal twice at top level", #"{"aps":{"alert":"x"},"pushseal":"\#(validWire)","pushseal":"\#(validWire)"}"#, .malformedEnvelope),
    Case("pushseal twice, same value, escaped name", #"{"pushseal":"\#(validWire)","push\u0073eal":"\#(validWire)"}"#, .malformedEnvelope),
    Case("pushseal twice in FCM data", #"{"message":{"data":{"pushseal":"\#(validWire)","pushseal":"x"}}}"#, .malformedEnvelope),
    Case("pushseal is a number", #"{"pushseal":12345}"#, .malformedEnvelope),
    Case("pushseal is null", #"{"pushseal":null}"#, .malformedEnvelope),
    Case("pushseal is true", #"{"pushseal":true}"#, .malformedEnvelope),
    Case("pushseal is an array", #"{"pushseal":["\#(validWire)"]}"#, .malformedEnvelope),
    Case("pushseal is an object", #"{"pushseal":{"v":"\#(validWire)"}}"#, .malformedEnvelope),
    Case("empty string", #"{"pushseal":""}"#, .malformedEnvelope),
    Case("padding character", #"{"pushseal":"\#(validWire)="}"#, .malformedEnvelope),
    Case("standard base64 alphabet", #"{"pushseal":"\#(validWire.replacingFirstDash())"}"#, .malformedEnvelope),
    Case("whitespace inside", #"{"pushseal":"\#(validWire.prefix(40)) \#(validWire.dropFirst(40))"}"#, .malformedEnvelope),
    Case("length % 4 == 1", #"{"pushseal":"\#(lengthOneModFour())"}"#, .malformedEnvelope),
    Case("non-zero trailing bits", #"{"pushseal":"\#(nonZeroTrailingBits())"}"#, .malformedEnvelope),
    Case("5463 characters", #"{"pushseal":"\#(String(repeating: "A", count: 5463))"}"#, .malformedEnvelope),
    Case("huge string", #"{"pushseal":"\#(String(repeating: "A", count: 200_000))"}"#, .malformedEnvelope),
    Case("57 bytes, version 1", #"{"pushseal":"\#(Base64URL.encode([1] + [UInt8](repeating: 0, count: 56)))"}"#, .malformedEnvelope),
    Case("version byte only", #"{"pushseal":"\#(Base64URL.encode([1]))"}"#, .malformedEnvelope),
]

let versionCases: [Case] = [
    Case("version 2, valid length", #"{"pushseal":"\#(Base64URL.encode([2] + [UInt8](repeating: 0, count: 100)))"}"#, .unsupportedVersion),
    Case("version 0, one byte (version before length)", #"{"pushseal":"\#(Base64URL.encode([0]))"}"#, .unsupportedVersion),
    Case("version 0xFF, 4096+ bytes worth", #"{"pushseal":"\#(Base64URL.encode([0xFF] + [UInt8](repeating: 0, count: 4095)))"}"#, .unsupportedVersion),
]

let cryptoCases: [Case] = [
    Case("sealed under another key", apns(wire: seal(contentA(), key: keyB)), .unknownKey),
    Case("key id changed", apns(wire: tampered(at: 3)), .unknownKey),
    Case("salt changed", apns(wire: tampered(at: 20)), .authenticationFailed),
    Case("ciphertext changed", apns(wire: tampered(at: 45)), .authenticationFailed),
    Case("tag changed", apns(wire: tampered(at: (try! Base64URL.decode(validWire)).count - 1)), .authenticationFailed),
    Case("truncated by one byte", apns(wire: Base64URL.encode((try! Base64URL.decode(validWire)).dropLast())), .authenticationFailed),
]

func contentCase(_ name: String, _ json: String) -> Case {
    Case(name, apns(wire: sealBytes(Array(json.utf8))), .malformedContent)
}

let malformedContentCases: [Case] = [
    Case("no 0x80 marker", apns(wire: sealPlaintext(Array(#"{"cid":"conversation-A","mid":"m","ts":1}"#.utf8) + [0, 0])), .malformedContent),
    Case("non-zero byte after marker", apns(wire: sealPlaintext(Array(#"{"cid":"conversation-A","mid":"m","ts":1}"#.utf8) + [0x80, 0, 1])), .malformedContent),
    Case("all-zero plaintext", apns(wire: sealPlaintext([UInt8](repeating: 0, count: 32))), .malformedContent),
    Case("content of 4001 bytes", apns(wire: sealBytes(oversizedContent(4001), padBlock: 1)), .malformedContent),
    contentCase("not JSON", "hello"),
    contentCase("array", #"["conversation-A"]"#),
    contentCase("duplicate cid", #"{"cid":"conversation-A","cid":"conversation-A","mid":"m","ts":1699999940,"body":""}"#),
    contentCase("duplicate inside x", #"{"cid":"conversation-A","mid":"m","ts":1699999940,"body":"","x":{"k":"1","k":"2"}}"#),
    contentCase("depth 17", #"{"cid":"conversation-A","mid":"m","ts":1699999940,"body":"","u":"# + String(repeating: "[", count: 16) + String(repeating: "]", count: 16) + "}"),
    contentCase("missing cid", #"{"mid":"m","ts":1699999940,"body":""}"#),
    contentCase("missing ts", #"{"cid":"conversation-A","mid":"m","body":""}"#),
    contentCase("cid is a number", #"{"cid":1,"mid":"m","ts":1699999940,"body":""}"#),
    contentCase("cid empty", #"{"cid":"","mid":"m","ts":1699999940,"body":""}"#),
    contentCase("ts is a string", #"{"cid":"conversation-A","mid":"m","ts":"1699999940","body":""}"#),
    contentCase("ts negative", #"{"cid":"conversation-A","mid":"m","ts":-1,"body":""}"#),
    contentCase("ts with fraction", #"{"cid":"conversation-A","mid":"m","ts":1699999940.0,"body":""}"#),
    contentCase("ts with exponent", #"{"cid":"conversation-A","mid":"m","ts":1.69e9,"body":""}"#),
    contentCase("ts beyond 9999", #"{"cid":"conversation-A","mid":"m","ts":253402300800,"body":""}"#),
    contentCase("body is null", #"{"cid":"conversation-A","mid":"m","ts":1699999940,"body":null}"#),
    contentCase("title is an object", #"{"cid":"conversation-A","mid":"m","ts":1699999940,"title":{},"body":""}"#),
    contentCase("badge negative", #"{"cid":"conversation-A","mid":"m","ts":1699999940,"body":"","badge":-1}"#),
    contentCase("badge too large", #"{"cid":"conversation-A","mid":"m","ts":1699999940,"body":"","badge":2147483648}"#),
    contentCase("trunc false", #"{"cid":"conversation-A","mid":"m","ts":1699999940,"body":"","trunc":false}"#),
    contentCase("sender without id", #"{"cid":"conversation-A","mid":"m","ts":1699999940,"body":"","sender":{"name":"n"}}"#),
    contentCase("x value not a string", #"{"cid":"conversation-A","mid":"m","ts":1699999940,"body":"","x":{"k":1}}"#),
    contentCase("thread over 256 bytes", #"{"cid":"conversation-A","mid":"m","ts":1699999940,"body":"","thread":"\#(String(repeating: "t", count: 257))"}"#),
    Case("invalid UTF-8", apns(wire: sealBytes(Array(#"{"cid":"conversation-A","mid":"m","ts":1699999940,"body":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8))), .malformedContent),
    contentCase("lone surrogate escape", #"{"cid":"conversation-A","mid":"m","ts":1699999940,"body":"\udc00"}"#),
    contentCase("unescaped control character", "{\"cid\":\"conversation-A\",\"mid\":\"m\",\"ts\":1699999940,\"body\":\"a\u{01}\"}"),
]

let laterCases: [Case] = [
    Case("content claims conversation B", apns(wire: seal(NotificationContent(conversationID: "conversation-B", messageID: "m", sentAt: now, body: "hi"))), .conversationMismatch),
    Case("cid canonically equivalent but other bytes", apns(wire: seal(NotificationContent(conversationID: "conversation-A\u{301}", messageID: "m", sentAt: now, body: "hi"))), .conversationMismatch),
    Case("one second too old", apns(wire: seal(contentA(ts: now - 2_678_401))), .stale),
    Case("one second too far ahead", apns(wire: seal(contentA(ts: now + 601))), .stale),
    Case("ts 0", apns(wire: seal(contentA(ts: 0))), .stale),
    Case("exactly max age (inclusive)", apns(wire: seal(contentA(ts: now - 2_678_400))), nil),
    Case("exactly max skew (inclusive)", apns(wire: seal(contentA(ts: now + 600))), nil),
    Case("valid APNs payload", apns(wire: validWire), nil),
    Case("valid FCM v1 message", fcmMessage(wire: validWire), nil),
    Case("valid FCM data map as JSON", #"{"pushseal":"\#(validWire)"}"#, nil),
    Case("unknown members of any kind ignored", #"{"z":[1,2.5e3,{"q":null}],"pushseal":"\#(validWire)","aps":{"alert":7}}"#, nil),
    Case("top-level pushseal wins over message.data", #"{"message":{"data":{"pushseal":"garbage"}},"pushseal":"\#(validWire)"}"#, nil),
    Case("whitespace around tokens", " {\n\t\"pushseal\" :\r\n\"\(validWire)\" } ", nil),
    Case("escaped solidus and unicode in other members", #"{"a":"\/\u00e9\ud83d\ude00","pushseal":"\#(validWire)"}"#, nil),
]

extension String {
    /// Replaces the first base64url-only character with a standard-alphabet one (or appends '+').
    func replacingFirstDash() -> String {
        if let index = firstIndex(where: { $0 == "-" || $0 == "_" }) {
            var copy = self
            copy.replaceSubrange(index...index, with: self[index] == "-" ? "+" : "/")
            return copy
        }
        return String(dropLast()) + "+"
    }
}

/// A syntactically valid content of exactly `count` bytes.
func oversizedContent(_ count: Int) -> [UInt8] {
    let prefix = Array(#"{"cid":"conversation-A","mid":"m","ts":1699999940,"body":""#.utf8)
    let bytes = prefix + [UInt8](repeating: 0x61, count: count - prefix.count - 2) + Array(#""}"#.utf8)
    #expect(bytes.count == count)
    return bytes
}

/// `validWire` extended to a length no byte string encodes to.
func lengthOneModFour() -> String {
    var wire = validWire
    while wire.utf8.count % 4 != 1 { wire += "A" }
    return wire
}

/// A wire string whose last character carries non-zero unused bits.
func nonZeroTrailingBits() -> String {
    // Pick a length whose encoding ends in a partial group.
    var wire = Base64URL.encode([1] + [UInt8](repeating: 0, count: 99))   // 100 bytes -> 134 chars, 2 spare bits
    let last = wire.removeLast()
    #expect(last == "A")
    return wire + "B"
}

@Suite("Every reason code from crafted raw JSON payloads")
struct ReasonCodeTests {
    @Test("not_sealed", arguments: notSealedCases)
    func notSealed(_ c: Case) { check(c) }

    @Test("malformed_envelope", arguments: malformedEnvelopeCases)
    func malformedEnvelope(_ c: Case) { check(c) }

    @Test("unsupported_version", arguments: versionCases)
    func unsupportedVersion(_ c: Case) { check(c) }

    @Test("unknown_key and authentication_failed", arguments: cryptoCases)
    func crypto(_ c: Case) { check(c) }

    @Test("malformed_content", arguments: malformedContentCases)
    func malformedContent(_ c: Case) { check(c) }

    @Test("conversation_mismatch, stale and success", arguments: laterCases)
    func later(_ c: Case) { check(c) }

    @Test("store_locked when the key source cannot read the key")
    func storeLocked() {
        let source = sourceA()
        source.setLocked("device not unlocked since boot")
        let result = makeReceiver(source).open(.json(apns(wire: validWire)))
        #expect(result.reason == .storeLocked)
        #expect(result.outcome == .fallback)
        #expect(result.diagnostic?.contains("device not unlocked since boot") == true)
        // A kid the locked source knows it does not hold is still unknown_key (SPEC A.2).
        let other = makeReceiver(source).open(.json(apns(wire: seal(contentA(), key: keyB))))
        #expect(other.reason == .unknownKey)
        // Unlocked again: decrypts.
        source.setLocked(nil)
        #expect(makeReceiver(source).open(.json(apns(wire: validWire))).outcome == .decrypted)
    }

    @Test("unknown_key after the key is wiped (logout)")
    func wiped() {
        let source = sourceA()
        let receiver = makeReceiver(source)
        #expect(receiver.open(.json(apns(wire: validWire))).outcome == .decrypted)
        source.wipe()
        #expect(!source.holdsKey)
        let result = receiver.open(.json(apns(wire: validWire)))
        #expect(result.reason == .unknownKey)
        #expect(result.keyID == keyA.id)
    }

    func check(_ c: Case, sourceLocation: SourceLocation = #_sourceLocation) {
        let result = makeReceiver(sourceA()).open(.json(c.payload))
        #expect(result.reason == c.reason, "\(c.name): \(result.diagnostic ?? "-")", sourceLocation: sourceLocation)
        #expect(result.outcome == (c.reason == nil ? .decrypted : .fallback), sourceLocation: sourceLocation)
        if c.reason != nil {
            #expect(!result.isDuplicate && result.content == nil && result.messageID == nil, sourceLocation: sourceLocation)
        } else {
            #expect(result.content?.conversationID == conversationA, sourceLocation: sourceLocation)
        }
    }
}
