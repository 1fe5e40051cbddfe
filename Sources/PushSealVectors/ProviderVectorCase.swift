@_spi(Vectors) import PushSealCore
@_spi(Vectors) import PushSealProvider
import PushSealJSON

/// One provider-side test vector: a content, transport options, a key and a salt, and the exact
/// payload the size policy produces (or the error it reports), with every intermediate value.
/// Field meanings are documented in Vectors/README.md.
package struct ProviderVectorCase: Sendable {
    /// The transport a case seals for.
    package enum Transport: Sendable, Equatable {
        /// An APNs body with these options.
        case apns(APNsOptions)
        /// An FCM HTTP v1 message with these options.
        case fcm(FCMOptions)
    }

    /// Stable case id (assigned in order of definition).
    package var tcId = 0
    /// What the case shows.
    package var comment: String
    /// Flags naming the property exercised (see ``ProviderVectorSuite/flagNotes``).
    package var flags: [String]
    /// The sealing key: the device's key K_d.
    package var key: ConversationKey
    /// The provider's conversation key K and the device key id that `key` is derived from
    /// (``ConversationKey/deviceKey(for:)``); nil for a case sealed with a bare key.
    package var perDevice: (conversationKey: ConversationKey, deviceKeyID: KeyID)?
    /// The 24-byte salt.
    package var salt: [UInt8]
    /// The sealer's pad block.
    package var padBlock: Int
    /// The content handed to the sealer (before the size policy).
    package var input: NotificationContent
    /// The transport and its options.
    package var transport: Transport

    /// Seals the case with the Swift provider: the payload bytes and path, or the provider error.
    package func seal() -> Result<(payload: [UInt8], path: SealPath, sizes: SealSizes), ProviderError> {
        Result { () throws(ProviderError) in
            let sealer = try NotificationSealer(padBlock: padBlock)
            switch transport {
            case let .apns(options):
                let request = try sealer.seal(input, with: key, options: options, salt: salt)
                return (request.body, request.path, request.sizes)
            case let .fcm(options):
                let message = try sealer.seal(input, with: key, options: options, salt: salt)
                return (message.body, message.path, message.sizes)
            }
        }
    }
}

// MARK: - The file form

extension ProviderVectorCase {
    /// The case as it appears in the file, with the intermediates recomputed from the payload.
    var jsonValue: JSONValue {
        var members: [JSONObject.Member] = [
            .init(name: "tcId", value: .number(String(tcId))),
            .init(name: "comment", value: .string(comment)),
            .init(name: "flags", value: .array(flags.map { .string($0) })),
            .init(name: "conversationKey", value: perDevice.map { .string($0.conversationKey.withUnsafeBytes { Hex.encode($0) }) } ?? .null),
            .init(name: "deviceKeyId", value: perDevice.map { .string($0.deviceKeyID.hex) } ?? .null),
            .init(name: "key", value: .string(key.withUnsafeBytes { Hex.encode($0) })),
            .init(name: "kid", value: .string(key.id.hex)),
            .init(name: "threadId", value: .string(key.opaqueThreadID)),
            .init(name: "salt", value: .string(Hex.encode(salt))),
            .init(name: "padBlock", value: .number(String(padBlock))),
            .init(name: "transport", value: .string(transportName)),
            .init(name: "options", value: optionsJSON),
            .init(name: "input", value: Self.contentJSON(input)),
        ]
        switch seal() {
        case let .failure(error):
            members += [
                .init(name: "result", value: .string("error")),
                .init(name: "error", value: .string(error.code)),
            ]
        case let .success(sealed):
            let intermediates = Self.intermediates(payload: sealed.payload, key: key)
            members += [
                .init(name: "result", value: .string("sealed")),
                .init(name: "path", value: .string(Self.pathName(sealed.path))),
                .init(name: "contentHex", value: .string(Hex.encode(intermediates.content))),
                .init(name: "content", value: .string(String(decoding: intermediates.content, as: UTF8.self))),
                .init(name: "plaintextHex", value: .string(Hex.encode(intermediates.plaintext))),
                .init(name: "messageKey", value: .string(Hex.encode(Envelope.messageKey(for: key, salt: salt)))),
                .init(name: "headerHex", value: .string(Hex.encode(Array(intermediates.envelope[0..<Envelope.headerByteCount])))),
                .init(name: "envelopeHex", value: .string(Hex.encode(intermediates.envelope))),
                .init(name: "tagHex", value: .string(Hex.encode(Array(intermediates.envelope.suffix(ChaCha20Poly1305.tagByteCount))))),
                .init(name: "wire", value: .string(intermediates.wire)),
                .init(name: "payload", value: .string(String(decoding: sealed.payload, as: UTF8.self))),
                .init(name: "sizes", value: .object(JSONObject(members: [
                    .init(name: "content", value: .number(String(sealed.sizes.contentByteCount))),
                    .init(name: "padded", value: .number(String(sealed.sizes.paddedByteCount))),
                    .init(name: "envelope", value: .number(String(sealed.sizes.envelopeByteCount))),
                    .init(name: "wire", value: .number(String(sealed.sizes.wireLength))),
                    .init(name: "payload", value: .number(String(sealed.sizes.payloadByteCount))),
                    .init(name: "limited", value: .number(String(sealed.sizes.limitedByteCount))),
                    .init(name: "limit", value: .number(String(sealed.sizes.limit))),
                ]))),
            ]
        }
        return .object(JSONObject(members: members))
    }

    var transportName: String {
        if case .fcm = transport { return "fcm" }
        return "apns"
    }

    /// The file's name of a size-policy path: `complete`, `truncated` or `content_free`.
    package static func pathName(_ path: SealPath) -> String {
        switch path {
        case .complete: "complete"
        case .truncated: "truncated"
        case .contentFree: "content_free"
        }
    }

    /// The wire string, envelope, content and padded plaintext recovered from a sealed payload.
    static func intermediates(payload: [UInt8], key: ConversationKey) -> (wire: String, envelope: [UInt8], content: [UInt8], plaintext: [UInt8]) {
        let marker = Array("\"\(PayloadMember.sealed)\":\"".utf8)
        let start = (0...(payload.count - marker.count)).first { Array(payload[$0..<$0 + marker.count]) == marker }! + marker.count
        let wire = String(decoding: payload[start...].prefix { $0 != UInt8(ascii: "\"") }, as: UTF8.self)
        let envelope = try! Envelope(wire: wire)
        let content = try! envelope.open(with: key)
        let plaintext = Padding.pad(content, toLength: envelope.paddedContentByteCount)
        return (wire, envelope.bytes, content, plaintext)
    }

    /// A content as a JSON object with the content schema's member names (the sealer's input:
    /// it may be larger than 4000 bytes, and `body` may be absent).
    static func contentJSON(_ content: NotificationContent) -> JSONValue {
        var members: [JSONObject.Member] = [
            .init(name: "cid", value: .string(content.conversationID)),
            .init(name: "mid", value: .string(content.messageID)),
            .init(name: "ts", value: .number(String(content.sentAt))),
        ]
        func add(_ name: String, _ value: String?) { if let value { members.append(.init(name: name, value: .string(value))) } }
        add("title", content.title)
        add("subtitle", content.subtitle)
        add("body", content.body)
        if let sender = content.sender {
            var inner: [JSONObject.Member] = [.init(name: "id", value: .string(sender.id))]
            if let name = sender.name { inner.append(.init(name: "name", value: .string(name))) }
            members.append(.init(name: "sender", value: .object(JSONObject(members: inner))))
        }
        add("thread", content.thread)
        add("category", content.category)
        if let badge = content.badge { members.append(.init(name: "badge", value: .number(String(badge)))) }
        if content.isTruncated { members.append(.init(name: "trunc", value: .bool(true))) }
        if !content.extras.isEmpty {
            let sorted = content.extras.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            members.append(.init(name: "x", value: .object(JSONObject(members: sorted.map { .init(name: $0.key, value: .string($0.value)) }))))
        }
        return .object(JSONObject(members: members))
    }

    var optionsJSON: JSONValue {
        var members: [JSONObject.Member] = []
        switch transport {
        case let .apns(options):
            switch options.placeholder {
            case let .text(title, body):
                var inner: [JSONObject.Member] = []
                if let title { inner.append(.init(name: "title", value: .string(title))) }
                inner.append(.init(name: "body", value: .string(body)))
                members.append(.init(name: "placeholder", value: .object(JSONObject(members: inner))))
            case let .localized(titleKey, titleArguments, bodyKey, bodyArguments):
                var inner: [JSONObject.Member] = []
                if let titleKey { inner.append(.init(name: "titleLocKey", value: .string(titleKey))) }
                inner.append(.init(name: "titleLocArgs", value: .array(titleArguments.map { .string($0) })))
                inner.append(.init(name: "locKey", value: .string(bodyKey)))
                inner.append(.init(name: "locArgs", value: .array(bodyArguments.map { .string($0) })))
                members.append(.init(name: "placeholder", value: .object(JSONObject(members: inner))))
            }
            if let sound = options.sound { members.append(.init(name: "sound", value: .string(sound))) }
            switch options.threadID {
            case .opaque: members.append(.init(name: "threadId", value: .string("opaque")))
            case .omitted: members.append(.init(name: "threadId", value: .string("omitted")))
            case let .plain(text):
                members.append(.init(name: "threadId", value: .string("plain")))
                members.append(.init(name: "plainThreadId", value: .string(text)))
            }
            if let category = options.category { members.append(.init(name: "category", value: .string(category))) }
            if let level = options.interruptionLevel {
                members.append(.init(name: "interruptionLevel", value: .string(level.rawValue)))
            }
            if let score = options.relevanceScore {
                members.append(.init(name: "relevanceScore", value: .number(String(score))))
            }
            if let bundle = options.keyBundle { members.append(.init(name: "keyBundle", value: .string(bundle.text))) }
        case let .fcm(options):
            members.append(.init(name: "token", value: .string(options.token)))
            members.append(.init(name: "priority", value: .string(options.priority.rawValue)))
            members.append(.init(name: "ttl", value: .number(String(options.timeToLive))))
            if let bundle = options.keyBundle { members.append(.init(name: "keyBundle", value: .string(bundle.text))) }
        }
        return .object(JSONObject(members: members))
    }
}
