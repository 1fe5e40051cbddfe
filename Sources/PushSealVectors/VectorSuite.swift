import PushSealJSON
@_spi(Vectors) import PushSealCore

/// The PushSeal v1 cross-implementation test vectors, generated from fixed seeds so that the
/// file regenerates byte for byte.
package enum VectorSuite {
    /// Schema name written into the file.
    package static let schema = "pushseal_v1_test_schema"
    /// Schema version written into the file.
    package static let schemaVersion = 2
    /// The receiver clock of every case unless a case says otherwise (2025-11-29T07:06:40Z).
    package static let now: Int64 = 1_764_400_000
    /// The receiver's default maximum age (31 days).
    package static let defaultMaxAge: Int64 = 2_678_400
    /// The receiver's default tolerance for clocks ahead of its own (10 minutes).
    package static let defaultMaxFutureSkew: Int64 = 600

    /// Seed for every key and salt in the file; changing it changes every byte.
    static let seed = SecretKey(bytes: Array("PushSeal v1 test vectors".utf8))

    /// A conversation key derived from the seed: HMAC-SHA256(seed, "key " || label).
    static func key(_ label: String) -> ConversationKey {
        try! ConversationKey(rawBytes: HMACSHA256.authenticationCode(for: Array("key \(label)".utf8), using: seed))
    }

    /// A 24-byte salt derived from the seed: HMAC-SHA256(seed, "salt " || label)[0..<24].
    static func salt(_ label: String) -> [UInt8] {
        Array(HMACSHA256.authenticationCode(for: Array("salt \(label)".utf8), using: seed).prefix(Envelope.saltByteCount))
    }

    /// Every case, numbered from 1.
    package static func cases(transports: VectorTransports = .standard) -> [VectorCase] {
        var builder = VectorCaseBuilder(transports: transports)
        builder.defineAll()
        return builder.cases.enumerated().map { offset, element in
            var numbered = element
            numbered.tcId = offset + 1
            return numbered
        }
    }

    /// Descriptions of the flags used in the file.
    package static let flagNotes: [(String, String)] = [
        ("Valid", "A well-formed notification that decrypts."),
        ("EmptyBody", "The body is the empty string."),
        ("Unicode", "Multi-byte UTF-8: CJK, RTL, emoji with ZWJ sequences and skin tones, combining marks."),
        ("Escapes", "Strings with characters that JSON must escape."),
        ("AllFields", "Every optional content field is present."),
        ("PadBlock", "A pad block other than the default 256."),
        ("MaxSize", "The largest content that fits the transport limit."),
        ("ContentFree", "A content-free wake-and-fetch content (cid, mid, ts only): the app fetches the message."),
        ("UnknownMembers", "Members a v1 receiver does not know; they are ignored."),
        ("MemberOrder", "Insignificant whitespace and a member order other than the sender's canonical one."),
        ("Duplicate", "(cid, mid) was seen before: still delivered, flagged duplicate."),
        ("FreshnessBoundary", "ts exactly at the edge of the freshness window."),
        ("NotSealed", "The payload carries no PushSeal envelope."),
        ("Base64", "The envelope string is not strict base64url."),
        ("EnvelopeLength", "The decoded envelope length is outside [58, 4096]."),
        ("PayloadShape", "The `pushseal` member has the wrong type or appears twice."),
        ("Version", "An envelope version other than 0x01."),
        ("UnknownKey", "No key with the envelope's key id is available."),
        ("OtherConversationKey", "A valid envelope sealed under another conversation's key."),
        ("StoreLocked", "The receiver's key store is locked."),
        ("Tampered", "Bytes of a valid envelope were changed after sealing."),
        ("WrongConstruction", "Sealed with a construction that is not v1 (other nonce, AAD or derivation)."),
        ("Padding", "The plaintext padding is malformed."),
        ("InvalidJSON", "The content is not strict JSON or not UTF-8."),
        ("WrongTypes", "The content is valid JSON but violates the content schema."),
        ("ContentSize", "The content exceeds 4000 bytes."),
        ("ConversationMismatch", "A valid ciphertext whose content names another conversation than the key's."),
        ("Stale", "The content is older than the maximum age or too far in the future."),
        ("RetiredKey", "The receiver's key is retired (keyRetireBy): it opens notifications sent up to keyRetireBy + maxFutureSkew, not later ones."),
        ("RemovedMember", "A holder of a retired key (a member removed by the rotation) forges a notification with a fresh ts."),
        ("Truncated", "The content carries trunc: true (a shortened body): displayed, not a fetch request."),
        ("KeySourceKid", "The key source files the key under a kid it was handed (keySourceKid): another key's id (unknown_key unless the store is locked) or the key's own derived kid; locked, keyRetireBy and previouslySeen apply to it either way."),
        ("Conflict", "(cid, mid) was seen before with a different envelope: delivered, flagged duplicate and conflict."),
        ("ControlInIdentifier", "An identifier (cid, mid, sender.id, thread, category) contains a C0 control character U+0000-U+001F."),
        ("LargeInteger", "now, maxAge, maxFutureSkew or keyRetireBy above 2^53 (up to 2^63 - 1): integers are read exactly, sums do not wrap."),
    ]

    /// The vector file's text (pretty-printed JSON, trailing newline).
    package static func render(transports: VectorTransports = .standard) -> String {
        let all = cases(transports: transports)
        var writer = JSONWriter(capacity: 1 << 18)
        writer.appendPretty(.object(JSONObject(members: [
            .init(name: "schema", value: .string(schema)),
            .init(name: "schemaVersion", value: .number(String(schemaVersion))),
            .init(name: "algorithm", value: .string("PushSeal-v1")),
            .init(name: "generator", value: .string("pushseal vectors generate")),
            .init(name: "numberOfTests", value: .number(String(all.count))),
            .init(name: "header", value: .array([
                .string("PushSeal wire format v1 test vectors (see Docs/SPEC.md and Vectors/README.md)."),
                .string("Byte strings are lowercase hex; `wire`, `payload`, `content` and `fcm` are exact strings."),
                .string("Keys and salts are derived from a fixed seed: the file regenerates byte for byte."),
            ])),
            .init(name: "notes", value: .object(JSONObject(members: flagNotes.map { .init(name: $0.0, value: .string($0.1)) }))),
            .init(name: "tests", value: .array(all.map(\.jsonValue))),
        ])))
        writer.appendRaw("\n")
        return writer.text
    }
}

extension VectorCase {
    /// The case as it appears in the file.
    var jsonValue: JSONValue {
        func hexOrNull(_ bytes: [UInt8]?) -> JSONValue { bytes.map { .string(Hex.encode($0)) } ?? .null }
        func stringOrNull(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
        let contentText = content.flatMap { String(validating: $0, as: UTF8.self) }
        // The decoded wire string, when it is strict base64url (malformed wires have none).
        let envelope = wire.flatMap { try? Base64URL.decode($0) }.flatMap { $0.isEmpty ? nil : $0 }
        return .object(JSONObject(members: [
            .init(name: "tcId", value: .number(String(tcId))),
            .init(name: "comment", value: .string(comment)),
            .init(name: "flags", value: .array(flags.map { .string($0) })),
            .init(name: "conversation", value: .string(conversation)),
            .init(name: "key", value: .string(receiverKey.withUnsafeBytes { Hex.encode($0) })),
            .init(name: "kid", value: .string(receiverKey.id.hex)),
            .init(name: "keyRetireBy", value: keyRetireBy.map { .number(String($0)) } ?? .null),
            .init(name: "keySourceKid", value: hexOrNull(keySourceKeyID)),
            .init(name: "keyStore", value: .string(keyStoreLocked ? "locked" : "available")),
            .init(name: "previouslySeen", value: .bool(previouslySeen)),
            .init(name: "previousEnvelopeDiffers", value: .bool(previousEnvelopeDiffers)),
            .init(name: "now", value: .number(String(now))),
            .init(name: "maxAge", value: .number(String(maxAge))),
            .init(name: "maxFutureSkew", value: .number(String(maxFutureSkew))),
            .init(name: "sealKey", value: hexOrNull(sealKey?.withUnsafeBytes { Array($0) })),
            .init(name: "salt", value: hexOrNull(salt)),
            .init(name: "messageKey", value: hexOrNull(messageKey)),
            .init(name: "padBlock", value: padBlock.map { .number(String($0)) } ?? .null),
            .init(name: "contentHex", value: hexOrNull(content)),
            .init(name: "content", value: stringOrNull(contentText)),
            .init(name: "plaintextHex", value: hexOrNull(plaintext)),
            .init(name: "resealable", value: .bool(resealable)),
            .init(name: "wire", value: stringOrNull(wire)),
            .init(name: "envelopeHex", value: hexOrNull(envelope)),
            .init(name: "headerHex", value: hexOrNull(envelope.flatMap { $0.count >= Envelope.headerByteCount ? Array($0.prefix(Envelope.headerByteCount)) : nil })),
            .init(name: "tagHex", value: hexOrNull(envelope.flatMap { $0.count >= Envelope.minimumByteCount ? Array($0.suffix(ChaCha20Poly1305.tagByteCount)) : nil })),
            .init(name: "threadId", value: stringOrNull(sealKey?.opaqueThreadID)),
            .init(name: "payload", value: .string(payload)),
            .init(name: "fcm", value: stringOrNull(fcm)),
            .init(name: "result", value: .string(reason == nil ? "valid" : "invalid")),
            .init(name: "reason", value: reason.map { .string($0.rawValue) } ?? .null),
            .init(name: "duplicate", value: .bool(duplicate)),
            .init(name: "conflict", value: .bool(conflict)),
            .init(name: "requiresFetch", value: .bool(requiresFetch)),
            .init(name: "truncated", value: .bool(truncated)),
        ]))
    }

}
