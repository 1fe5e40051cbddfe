@_spi(Vectors) import PushSealCore

extension VectorCaseBuilder {
    mutating func defineNotSealed() {
        crafted("A plain APNs payload without a pushseal member", flags: ["NotSealed"], wire: nil,
                payload: #"{"aps":{"alert":{"title":"Hello","body":"Plain text"}}}"#, reason: .notSealed)
        let wire = Envelope.seal(content: basic(), with: alice, paddedLength: 256, salt: VectorSuite.salt("not sealed")).wire
        crafted("The envelope is under aps, not at the top level", flags: ["NotSealed"], wire: nil,
                payload: #"{"aps":{"alert":{"title":"New message"},"mutable-content":1,"pushseal":"\#(wire)"}}"#, reason: .notSealed)
        crafted("The payload is not JSON", flags: ["NotSealed"], wire: nil, payload: "pushseal", reason: .notSealed)
        crafted("The payload is a JSON array", flags: ["NotSealed"], wire: nil, payload: #"["pushseal"]"#, reason: .notSealed)
    }

    mutating func defineMalformedEnvelope() {
        let valid = Envelope.seal(content: basic(), with: alice, paddedLength: 256, salt: VectorSuite.salt("malformed")).wire
        crafted("Padded base64url ('=' appended)", flags: ["Base64"], wire: String(valid.dropLast(2)) + "==", reason: .malformedEnvelope)
        crafted("Standard base64 alphabet ('+' and '/') instead of base64url",
                flags: ["Base64"], wire: "+/" + valid.dropFirst(2), reason: .malformedEnvelope)
        crafted("A space inside the string", flags: ["Base64"], wire: String(valid.prefix(10)) + " " + valid.dropFirst(11), reason: .malformedEnvelope)
        let short = Array(Envelope.seal(content: basic(), with: alice, paddedLength: 256, salt: VectorSuite.salt("bits")).bytes.prefix(100))
        var bitsWire = Array(Base64URL.encode(short).utf8)  // 100 bytes → 134 chars, last char carries 4 unused bits
        bitsWire[bitsWire.count - 1] = UInt8(ascii: "B")
        crafted("Non-zero unused bits in the last character", flags: ["Base64"], wire: String(decoding: bitsWire, as: UTF8.self),
                reason: .malformedEnvelope)
        var oneOver = valid
        while oneOver.utf8.count % 4 != 1 { oneOver += "A" }
        crafted("Length % 4 == 1 (no byte string encodes to it)", flags: ["Base64"], wire: oneOver, reason: .malformedEnvelope)
        crafted("Empty string", flags: ["Base64", "EnvelopeLength"], wire: "", reason: .malformedEnvelope)
        handBuilt("57 bytes with version 0x01: one byte shorter than the smallest envelope", flags: ["EnvelopeLength"],
                  bytes: Array(Base64URL.decodeForVectors(valid).prefix(57)), reason: .malformedEnvelope)
        handBuilt("4097 bytes with version 0x01: longer than the largest envelope", flags: ["EnvelopeLength"],
                  bytes: [0x01] + [UInt8](repeating: 0x41, count: 4096), reason: .malformedEnvelope)
        crafted("A string longer than any 4096-byte envelope encodes to", flags: ["EnvelopeLength"],
                wire: String(repeating: "A", count: Envelope.maximumWireLength + 1), reason: .malformedEnvelope)
        crafted("pushseal is a number", flags: ["PayloadShape"], wire: nil,
                payload: #"{"aps":{"alert":{"title":"New message"},"mutable-content":1},"pushseal":42}"#, reason: .malformedEnvelope)
        crafted("pushseal is an object", flags: ["PayloadShape"], wire: nil,
                payload: #"{"aps":{"alert":{"title":"New message"},"mutable-content":1},"pushseal":{"wire":"\#(valid)"}}"#,
                reason: .malformedEnvelope)
        crafted("pushseal appears twice", flags: ["PayloadShape"], wire: valid,
                payload: #"{"aps":{"alert":{"title":"New message"},"mutable-content":1},"pushseal":"\#(valid)","pushseal":"\#(valid)"}"#,
                reason: .malformedEnvelope)
    }

    mutating func defineUnsupportedVersion() {
        let valid = Envelope.seal(content: basic(), with: alice, paddedLength: 256, salt: VectorSuite.salt("version")).bytes
        handBuilt("Version byte 0x02 on an otherwise valid envelope", flags: ["Version"], bytes: [0x02] + valid.dropFirst(),
                  reason: .unsupportedVersion)
        handBuilt("Version byte 0x00", flags: ["Version"], bytes: [0x00] + valid.dropFirst(), reason: .unsupportedVersion)
        handBuilt("A short future-version envelope is reported as unsupported, not malformed", flags: ["Version", "EnvelopeLength"],
                  bytes: [0x02, 0x00, 0x01], reason: .unsupportedVersion)
    }

    mutating func defineKeyLookup() {
        padded("A valid envelope sealed under another conversation's key: its kid is unknown here",
               flags: ["UnknownKey", "OtherConversationKey"], content: basic(cid: "conv-carol-dave"), sealKey: other,
               label: "unknown other", reason: .unknownKey)
        tampered("One bit of the kid flipped: no such key", flags: ["UnknownKey", "Tampered"], label: "unknown kid flip",
                 reason: .unknownKey) { $0[1] ^= 0x01 }
        padded("The key store is locked (checked when the key is looked up)", flags: ["StoreLocked"], content: basic(),
               label: "store locked", reason: .storeLocked) { $0.keyStoreLocked = true }
    }

    mutating func defineAuthenticationFailed() {
        tampered("One bit of the salt flipped", flags: ["Tampered"], label: "tamper salt", reason: .authenticationFailed) { $0[20] ^= 0x01 }
        tampered("One bit of the first ciphertext byte flipped", flags: ["Tampered"], label: "tamper ct", reason: .authenticationFailed) {
            $0[41] ^= 0x01
        }
        tampered("One bit of the tag flipped", flags: ["Tampered"], label: "tamper tag", reason: .authenticationFailed) {
            $0[$0.count - 1] ^= 0x80
        }
        tampered("Last byte removed (still a valid length)", flags: ["Tampered"], label: "tamper truncate", reason: .authenticationFailed) {
            $0.removeLast()
        }
        tampered("A zero byte inserted before the tag", flags: ["Tampered"], label: "tamper extend", reason: .authenticationFailed) {
            $0.insert(0, at: $0.count - 16)
        }
        let plaintext = Padding.pad(basic(), toLength: 256)
        let salt = VectorSuite.salt("wrong construction")
        let header = [Envelope.version] + alice.id.bytes + salt
        let mk = SecretKey(bytes: Envelope.messageKey(for: alice, salt: salt))
        let zeroNonce = [UInt8](repeating: 0, count: 12)
        handBuilt("Sealed without the header as associated data", flags: ["WrongConstruction"],
                  bytes: header + (try! ChaCha20Poly1305.seal(plaintext, using: mk, nonce: zeroNonce)), reason: .authenticationFailed)
        handBuilt("Sealed with the salt's first 12 bytes as nonce instead of zeros", flags: ["WrongConstruction"],
                  bytes: header + (try! ChaCha20Poly1305.seal(plaintext, using: mk, nonce: Array(salt.prefix(12)), authenticating: header)),
                  reason: .authenticationFailed)
        let extracted = HKDFSHA256.extract(salt: [], inputKeyMaterial: alice.secretKey)
        let wrongKey = try! HKDFSHA256.expand(pseudoRandomKey: extracted, info: Array("pushseal v1 message key".utf8) + salt, outputByteCount: 32)
        handBuilt("Message key derived with HKDF Extract-then-Expand instead of Expand only", flags: ["WrongConstruction"],
                  bytes: header + (try! ChaCha20Poly1305.seal(plaintext, using: wrongKey, nonce: zeroNonce, authenticating: header)),
                  reason: .authenticationFailed)
        handBuilt("Sealed directly under K instead of the derived message key", flags: ["WrongConstruction"],
                  bytes: header + (try! ChaCha20Poly1305.seal(plaintext, using: alice.secretKey, nonce: zeroNonce, authenticating: header)),
                  reason: .authenticationFailed)
    }

    mutating func defineMalformedContent() {
        func raw(_ comment: String, _ flags: [String], _ plaintext: [UInt8], _ label: String) {
            sealed(comment, flags: flags, content: nil, plaintext: plaintext, padBlock: nil, label: label, reason: .malformedContent)
        }
        raw("Plaintext of zero bytes only: no 0x80 marker", ["Padding"], [UInt8](repeating: 0, count: 64), "pad zeros")
        raw("A non-zero byte after the 0x80 marker", ["Padding"], basic() + [0x80, 0x00, 0x01, 0x00], "pad trailing")
        raw("Content without any padding", ["Padding"], basic(), "pad none")
        raw("The smallest envelope (58 bytes): P = 0x80, empty content is not JSON", ["Padding", "InvalidJSON"], [0x80], "pad only")
        func bad(_ comment: String, _ flags: [String], _ json: String, _ label: String) {
            padded(comment, flags: flags, content: content(json), label: label, reason: .malformedContent)
        }
        func badBytes(_ comment: String, _ flags: [String], _ bytes: [UInt8], _ label: String) {
            padded(comment, flags: flags, content: bytes, label: label, reason: .malformedContent)
        }
        let head = #""cid":"conv-alice-bob","mid":"m-0100","ts":\#(sentAt)"#
        bad("Not JSON", ["InvalidJSON"], "hello", "json text")
        bad("Trailing comma", ["InvalidJSON"], "{\(head),\"body\":\"x\",}", "json comma")
        bad("Duplicate member name (cid twice)", ["InvalidJSON"], "{\(head),\"cid\":\"conv-alice-bob\",\"body\":\"x\"}", "json duplicate")
        bad("Lone surrogate escape in the body", ["InvalidJSON"], "{\(head),\"body\":\"\\ud83d\"}", "json surrogate")
        badBytes("Invalid UTF-8 (overlong encoding of '/') in the body", ["InvalidJSON"],
                 Array("{\(head),\"body\":\"".utf8) + [0xC0, 0xAF] + Array("\"}".utf8), "json utf8")
        bad("Unescaped control character in a string", ["InvalidJSON"], "{\(head),\"body\":\"a\u{1}b\"}", "json control")
        bad("Nesting deeper than 16 in an unknown member", ["InvalidJSON"],
            "{\(head),\"body\":\"x\",\"deep\":\(String(repeating: "[", count: 16))\(String(repeating: "]", count: 16))}", "json deep")
        bad("Top-level array", ["WrongTypes"], "[\"conv-alice-bob\"]", "type array")
        bad("ts is a string", ["WrongTypes"], #"{"cid":"conv-alice-bob","mid":"m-0100","ts":"\#(sentAt)","body":"x"}"#, "type ts string")
        bad("ts has a fraction", ["WrongTypes"], #"{"cid":"conv-alice-bob","mid":"m-0100","ts":\#(sentAt).0,"body":"x"}"#, "type ts fraction")
        bad("ts is negative", ["WrongTypes"], #"{"cid":"conv-alice-bob","mid":"m-0100","ts":-1,"body":"x"}"#, "type ts negative")
        bad("cid is missing", ["WrongTypes"], #"{"mid":"m-0100","ts":\#(sentAt),"body":"x"}"#, "type no cid")
        bad("mid is empty", ["WrongTypes"], #"{"cid":"conv-alice-bob","mid":"","ts":\#(sentAt),"body":"x"}"#, "type empty mid")
        bad("body is null", ["WrongTypes"], "{\(head),\"body\":null}", "type body null")
        bad("title is a number", ["WrongTypes"], "{\(head),\"title\":1,\"body\":\"x\"}", "type title")
        bad("badge is negative", ["WrongTypes"], "{\(head),\"body\":\"x\",\"badge\":-1}", "type badge")
        bad("trunc is false (only true is allowed)", ["WrongTypes"], "{\(head),\"body\":\"x\",\"trunc\":false}", "type trunc")
        bad("An extras value is not a string", ["WrongTypes"], "{\(head),\"body\":\"x\",\"x\":{\"n\":1}}", "type extras")
        bad("sender without id", ["WrongTypes"], "{\(head),\"body\":\"x\",\"sender\":{\"name\":\"Alice\"}}", "type sender")
        let filler = String(repeating: "y", count: 4001 - "{\(head),\"body\":\"\"}".utf8.count)
        padded("Content of 4001 bytes (limit 4000), pad block 1", flags: ["ContentSize"],
               content: content("{\(head),\"body\":\"\(filler)\"}"), padBlock: 1, label: "size 4001", reason: .malformedContent)
    }

    mutating func defineConversationMismatch() {
        padded("Sealed under conversation A's key, but the content claims conversation B", flags: ["ConversationMismatch"],
               content: basic(cid: "conv-carol-dave"), label: "mismatch", reason: .conversationMismatch)
        padded("cid differs only by Unicode normalisation (NFC vs NFD): compared as bytes", flags: ["ConversationMismatch", "Unicode"],
               content: basic(cid: "conv-alice-bob-caf\u{65}\u{301}"), label: "mismatch nfd", reason: .conversationMismatch) {
            $0.conversation = "conv-alice-bob-caf\u{e9}"
        }
    }

    mutating func defineStale() {
        padded("One second older than maxAge", flags: ["Stale", "FreshnessBoundary"],
               content: basic(mid: "m-0200", ts: VectorSuite.now - VectorSuite.defaultMaxAge - 1), label: "stale old", reason: .stale)
        padded("One second further in the future than maxFutureSkew", flags: ["Stale", "FreshnessBoundary"],
               content: basic(mid: "m-0201", ts: VectorSuite.now + VectorSuite.defaultMaxFutureSkew + 1), label: "stale future",
               reason: .stale)
        padded("Stale takes precedence over the duplicate flag", flags: ["Stale", "Duplicate"],
               content: basic(mid: "m-0202", ts: 0), label: "stale duplicate", reason: .stale) { $0.previouslySeen = true }
    }

    /// Retirement (SPEC §10.2 step 11): the receiver's key was retired a day before `now`.
    mutating func defineRetiredKey() {
        let retireBy = VectorSuite.now - 86_400
        let skew = VectorSuite.defaultMaxFutureSkew
        padded("Removed-member forgery: sealed with a key retired a day ago, claiming a fresh ts", flags: ["RetiredKey", "RemovedMember"],
               content: basic(mid: "m-0300", ts: VectorSuite.now - 60), label: "retired forgery", reason: .retiredKey) {
            $0.keyRetireBy = retireBy
        }
        padded("ts one second later than keyRetireBy + maxFutureSkew", flags: ["RetiredKey", "FreshnessBoundary"],
               content: basic(mid: "m-0301", ts: retireBy + skew + 1), label: "retired late", reason: .retiredKey) {
            $0.keyRetireBy = retireBy
        }
        padded("ts exactly keyRetireBy + maxFutureSkew: still opens", flags: ["Valid", "RetiredKey", "FreshnessBoundary"],
               content: basic(mid: "m-0302", ts: retireBy + skew), label: "retired boundary") {
            $0.keyRetireBy = retireBy
        }
        padded("Sent before the retirement, delivered after it (in flight): opens until the key is purged",
               flags: ["Valid", "RetiredKey"], content: basic(mid: "m-0303", ts: retireBy - 3_600), label: "retired in flight") {
            $0.keyRetireBy = retireBy
        }
        padded("A retire-by time in the future does not affect a current notification", flags: ["Valid", "RetiredKey"],
               content: basic(mid: "m-0304"), label: "retired later") {
            $0.keyRetireBy = VectorSuite.now + 86_400
        }
        padded("Stale takes precedence over retired_key", flags: ["Stale", "RetiredKey"],
               content: basic(mid: "m-0305", ts: VectorSuite.now + skew + 1), label: "retired stale", reason: .stale) {
            $0.keyRetireBy = retireBy
        }
        padded("A duplicate forged with a retired key is retired_key, not a flagged duplicate", flags: ["RetiredKey", "Duplicate"],
               content: basic(mid: "m-0306", ts: VectorSuite.now), label: "retired duplicate", reason: .retiredKey) {
            $0.keyRetireBy = retireBy
            $0.previouslySeen = true
        }
        // The key source hands out the conversation's key under the id of another key (it stored
        // the kid it was handed): the receiver derives the kid from K and refuses (SPEC §11).
        let handedID = other.id.bytes
        padded("The key source returns a key whose derived kid is not the envelope's kid", flags: ["UnknownKey", "KeySourceKid"],
               content: basic(mid: "m-0307"), sealKey: other, label: "key source kid", reason: .unknownKey) {
            $0.keySourceKeyID = handedID
        }
        // SPEC 9.5 and A.3: only a missing body asks for a fetch; trunc marks a shortened body.
        padded(
            "Empty body with trunc: a shortened body to display, not a fetch request (requiresFetch false, truncated true)",
            flags: ["Valid", "EmptyBody", "Truncated"],
            content: try! NotificationContent(
                conversationID: conversation, messageID: "m-0013", sentAt: sentAt, body: "", isTruncated: true).encoded(),
            label: "valid truncated empty")
        // SPEC §5.1: identifiers carry no C0 control character (escaped or not, after unescaping).
        let head = #""ts":\#(sentAt),"body":"x""#
        padded("cid contains U+0000 (escaped)", flags: ["WrongTypes", "ControlInIdentifier"],
               content: content(#"{"cid":"conv-alice-bob\u0000","mid":"m-0400",\#(head)}"#), label: "control cid", reason: .malformedContent)
        padded("mid contains U+001F (escaped)", flags: ["WrongTypes", "ControlInIdentifier"],
               content: content(#"{"cid":"conv-alice-bob","mid":"m-0401\u001f",\#(head)}"#), label: "control mid", reason: .malformedContent)
        padded("thread contains a line feed (escaped)", flags: ["WrongTypes", "ControlInIdentifier"],
               content: content(#"{"cid":"conv-alice-bob","mid":"m-0402",\#(head),"thread":"a\nb"}"#), label: "control thread",
               reason: .malformedContent)
        // SPEC §10.4: the log keeps a digest of the first envelope of each (cid, mid).
        padded("Already seen (cid, mid) with another envelope: flagged duplicate and conflict", flags: ["Valid", "Duplicate", "Conflict"],
               content: basic(mid: "m-0500"), label: "conflict") {
            $0.previouslySeen = true
            $0.previousEnvelopeDiffers = true
            $0.duplicate = true
            $0.conflict = true
        }
        padded("A conflict with a retired key after its retirement is retired_key (nothing recorded)", flags: ["RetiredKey", "Conflict"],
               content: basic(mid: "m-0501", ts: VectorSuite.now), label: "conflict retired", reason: .retiredKey) {
            $0.keyRetireBy = VectorSuite.now - 86_400
            $0.previouslySeen = true
            $0.previousEnvelopeDiffers = true
        }
        padded("DEL (U+007F) and U+2028 in identifiers are allowed", flags: ["Valid", "Unicode"],
               content: content("{\"cid\":\"conv-alice-bob\",\"mid\":\"m-0403\u{7F}\u{2028}\",\(head),\"thread\":\"t\u{7F}\"}"),
               label: "identifier del")
    }

    /// A key filed under a kid it was handed (`keySourceKid`), with each of the store's states:
    /// locked, a retire-by time and a duplicate log. The state belongs to the key source the key
    /// is filed under (SPEC §12 step 1): locked is `store_locked` whatever the id (§10.2 step 6),
    /// a handed id that is not the key's derived kid is `unknown_key` before retirement or the
    /// log are looked at, and a handed id equal to the derived kid is an ordinary store.
    mutating func defineHandedKid() {
        let retired = VectorSuite.now - 86_400
        let foreign = other.id.bytes
        // Sealed under `other`: the store files alice's key under other's kid, the envelope's.
        padded("Filed under the envelope's kid (not the key's), store locked: store_locked, as for any lookup",
               flags: ["StoreLocked", "KeySourceKid"], content: basic(mid: "m-0600"), sealKey: other, label: "handed locked",
               reason: .storeLocked) {
            $0.keySourceKeyID = foreign
            $0.keyStoreLocked = true
        }
        padded("Filed under the envelope's kid (not the key's), key retired: unknown_key comes before retirement",
               flags: ["UnknownKey", "KeySourceKid", "RetiredKey"], content: basic(mid: "m-0601", ts: VectorSuite.now - 60),
               sealKey: other, label: "handed retired", reason: .unknownKey) {
            $0.keySourceKeyID = foreign
            $0.keyRetireBy = retired
        }
        padded("Filed under the envelope's kid (not the key's), (cid, mid) already seen: unknown_key, nothing flagged",
               flags: ["UnknownKey", "KeySourceKid", "Duplicate"], content: basic(mid: "m-0602"), sealKey: other,
               label: "handed seen", reason: .unknownKey) {
            $0.keySourceKeyID = foreign
            $0.previouslySeen = true
        }
        padded("Filed under the envelope's kid (not the key's), locked, retired and already seen: store_locked",
               flags: ["StoreLocked", "KeySourceKid", "RetiredKey", "Duplicate"], content: basic(mid: "m-0603"), sealKey: other,
               label: "handed all", reason: .storeLocked) {
            $0.keySourceKeyID = foreign
            $0.keyStoreLocked = true
            $0.keyRetireBy = retired
            $0.previouslySeen = true
        }
        // Sealed under alice: the handed id is the key's own derived kid (the handed kid was right).
        let own = alice.id.bytes
        padded("Filed under a handed kid equal to the derived one, store locked: store_locked",
               flags: ["StoreLocked", "KeySourceKid"], content: basic(mid: "m-0610"), label: "handed own locked",
               reason: .storeLocked) {
            $0.keySourceKeyID = own
            $0.keyStoreLocked = true
        }
        padded("Filed under a handed kid equal to the derived one, retired a day ago, fresh ts: retired_key",
               flags: ["RetiredKey", "KeySourceKid"], content: basic(mid: "m-0611", ts: VectorSuite.now - 60),
               label: "handed own retired", reason: .retiredKey) {
            $0.keySourceKeyID = own
            $0.keyRetireBy = retired
        }
        padded("Filed under a handed kid equal to the derived one, sent before its retire-by time: opens",
               flags: ["Valid", "RetiredKey", "KeySourceKid"], content: basic(mid: "m-0612", ts: retired - 3_600),
               label: "handed own in flight") {
            $0.keySourceKeyID = own
            $0.keyRetireBy = retired
        }
        padded("Filed under a handed kid equal to the derived one, the same envelope seen before: a flagged duplicate",
               flags: ["Valid", "Duplicate", "KeySourceKid"], content: basic(mid: "m-0613"), label: "handed own seen") {
            $0.keySourceKeyID = own
            $0.previouslySeen = true
            $0.duplicate = true
        }
        padded("Filed under a handed kid equal to the derived one, seen with another envelope: duplicate and conflict",
               flags: ["Valid", "Duplicate", "Conflict", "KeySourceKid"], content: basic(mid: "m-0614"), label: "handed own conflict") {
            $0.keySourceKeyID = own
            $0.previouslySeen = true
            $0.previousEnvelopeDiffers = true
            $0.duplicate = true
            $0.conflict = true
        }
        padded("Filed under a handed kid equal to the derived one, retired and already seen: retired_key (nothing recorded)",
               flags: ["RetiredKey", "Duplicate", "KeySourceKid"], content: basic(mid: "m-0615", ts: VectorSuite.now - 60),
               label: "handed own retired seen", reason: .retiredKey) {
            $0.keySourceKeyID = own
            $0.keyRetireBy = retired
            $0.previouslySeen = true
        }
    }

    /// Integers a double cannot hold (2^53 + 1) and the top of the 64-bit range (2^63 − 2,
    /// 2^63 − 1) in `now`, `maxAge`, `maxFutureSkew` and `keyRetireBy` (SPEC §1: read exactly).
    /// Each boundary is one second wide, so a runner that rounds or wraps gets the other result.
    mutating func defineLargeIntegers() {
        let above53 = Int64(1) << 53 + 1, belowMax = Int64.max - 1, max = Int64.max
        let ts = sentAt
        padded("now 2^53 + 1, exactly maxAge after ts: fresh", flags: ["Valid", "LargeInteger", "FreshnessBoundary"],
               content: basic(mid: "m-0700"), label: "large now fresh") {
            $0.now = above53
            $0.maxAge = above53 - ts
        }
        padded("now 2^53 + 1, one second more than maxAge after ts: stale (a double rounds now to 2^53)",
               flags: ["Stale", "LargeInteger", "FreshnessBoundary"], content: basic(mid: "m-0701"), label: "large now stale",
               reason: .stale) {
            $0.now = above53
            $0.maxAge = above53 - 1 - ts
        }
        padded("now 2^63 - 1 and maxAge 2^63 - 1 - ts: fresh", flags: ["Valid", "LargeInteger", "FreshnessBoundary"],
               content: basic(mid: "m-0702"), label: "max now fresh") {
            $0.now = max
            $0.maxAge = max - ts
        }
        padded("now 2^63 - 1 and maxAge 2^63 - 2 - ts: stale", flags: ["Stale", "LargeInteger", "FreshnessBoundary"],
               content: basic(mid: "m-0703"), label: "max now stale", reason: .stale) {
            $0.now = max
            $0.maxAge = belowMax - ts
        }
        padded("now 2^63 - 2 with the default maxAge: stale", flags: ["Stale", "LargeInteger"], content: basic(mid: "m-0704"),
               label: "below max now stale", reason: .stale) {
            $0.now = belowMax
        }
        padded("keyRetireBy 2^63 - 1: keyRetireBy + maxFutureSkew exceeds 64 bits, and ts is far below it (not retired)",
               flags: ["Valid", "LargeInteger", "RetiredKey"], content: basic(mid: "m-0705"), label: "max retire by") {
            $0.keyRetireBy = max
        }
        padded("keyRetireBy 2^63 - 2 and maxFutureSkew 2^63 - 1: opens", flags: ["Valid", "LargeInteger", "RetiredKey"],
               content: basic(mid: "m-0706"), label: "max skew") {
            $0.keyRetireBy = belowMax
            $0.maxFutureSkew = max
        }
        padded("keyRetireBy 2^53 + 1: opens", flags: ["Valid", "LargeInteger", "RetiredKey"], content: basic(mid: "m-0707"),
               label: "large retire by") {
            $0.keyRetireBy = above53
        }
        padded("maxAge and maxFutureSkew 2^63 - 1, keyRetireBy 2^63 - 1: opens", flags: ["Valid", "LargeInteger", "RetiredKey"],
               content: basic(mid: "m-0708"), label: "max everything") {
            $0.maxAge = max
            $0.maxFutureSkew = max
            $0.keyRetireBy = max
        }
    }
}

extension Base64URL {
    static func decodeForVectors(_ wire: String) -> [UInt8] { try! decode(wire) }
}
