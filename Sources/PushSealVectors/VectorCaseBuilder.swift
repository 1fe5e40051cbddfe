@_spi(Vectors) import PushSealCore

/// Defines every case of the vector file. Each `define…` method appends cases of one kind.
struct VectorCaseBuilder {
    let transports: VectorTransports
    private(set) var cases: [VectorCase] = []

    let alice = VectorSuite.key("conversation alice-bob epoch 1")
    let other = VectorSuite.key("conversation carol-dave epoch 1")
    let conversation = "conv-alice-bob"
    let sentAt = VectorSuite.now - 60

    init(transports: VectorTransports) {
        self.transports = transports
    }

    mutating func defineAll() {
        defineValid()
        defineNotSealed()
        defineMalformedEnvelope()
        defineUnsupportedVersion()
        defineKeyLookup()
        defineAuthenticationFailed()
        defineMalformedContent()
        defineConversationMismatch()
        defineStale()
        defineEdgeCases()
        defineRetiredKey()
        defineHandedKid()
        defineLargeIntegers()
    }

    // MARK: Building blocks

    func content(_ json: String) -> [UInt8] { Array(json.utf8) }

    func basic(body: String = "See you at 8?", mid: String = "m-0001", ts: Int64? = nil, cid: String? = nil) -> [UInt8] {
        let value = NotificationContent(
            conversationID: cid ?? conversation, messageID: mid, sentAt: ts ?? sentAt, title: "Alice", body: body)
        return try! value.encoded()
    }

    /// A case whose envelope is the v1 sealing of `plaintext`, in a standard payload.
    mutating func sealed(
        _ comment: String, flags: [String], content: [UInt8]?, plaintext: [UInt8], padBlock: Int?,
        sealKey: ConversationKey? = nil, label: String, reason: ReasonCode?, configure: (inout VectorCase) -> Void = { _ in }
    ) {
        let key = sealKey ?? alice
        let salt = VectorSuite.salt(label)
        let wire = Envelope.seal(plaintext: plaintext, with: key, salt: salt).wire
        var vector = VectorCase(
            comment: comment, flags: flags, conversation: conversation, receiverKey: alice, sealKey: key, salt: salt,
            padBlock: padBlock, content: content, plaintext: plaintext, resealable: true, wire: wire,
            payload: transports.apnsPayload(wire, key), reason: reason)
        if reason == nil { vector.fcm = transports.fcmMessage(wire, key) }
        configure(&vector)
        cases.append(vector)
    }

    /// A case sealing `content` with ISO 7816-4 padding to `padBlock`.
    mutating func padded(
        _ comment: String, flags: [String], content: [UInt8], padBlock: Int = 256, sealKey: ConversationKey? = nil,
        label: String, reason: ReasonCode? = nil, configure: (inout VectorCase) -> Void = { _ in }
    ) {
        let length = Padding.paddedLength(contentLength: content.count, blockSize: padBlock)
        sealed(comment, flags: flags, content: content, plaintext: Padding.pad(content, toLength: length), padBlock: padBlock,
               sealKey: sealKey, label: label, reason: reason, configure: configure)
    }

    /// A case whose payload holds `wire` verbatim (not a v1 sealing).
    mutating func crafted(_ comment: String, flags: [String], wire: String?, payload: String? = nil, reason: ReasonCode) {
        cases.append(VectorCase(
            comment: comment, flags: flags, conversation: conversation, receiverKey: alice, wire: wire,
            payload: payload ?? transports.apnsPayload(wire ?? "", alice), reason: reason))
    }

    /// A valid envelope whose bytes were changed by `tamper` after sealing.
    mutating func tampered(_ comment: String, flags: [String], label: String, reason: ReasonCode, tamper: (inout [UInt8]) -> Void) {
        let original = basic()
        let salt = VectorSuite.salt(label)
        let plaintext = Padding.pad(original, toLength: Padding.paddedLength(contentLength: original.count, blockSize: 256))
        var bytes = Envelope.seal(plaintext: plaintext, with: alice, salt: salt).bytes
        tamper(&bytes)
        let wire = Base64URL.encode(bytes)
        cases.append(VectorCase(
            comment: comment, flags: flags, conversation: conversation, receiverKey: alice, sealKey: alice, salt: salt,
            padBlock: 256, content: original, plaintext: plaintext, resealable: false, wire: wire,
            payload: transports.apnsPayload(wire, alice), reason: reason))
    }

    /// Raw envelope bytes built by hand (header and AEAD output given explicitly).
    mutating func handBuilt(_ comment: String, flags: [String], bytes: [UInt8], reason: ReasonCode) {
        crafted(comment, flags: flags, wire: Base64URL.encode(bytes), reason: reason)
    }
}
