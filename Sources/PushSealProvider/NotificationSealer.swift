public import PushSealCore

public import PushSealKeyDirectory
/// Seals notification contents into APNs and FCM payloads that always fit.
///
/// ```swift
/// let sealer = try NotificationSealer()                       // pad block 256
/// let request = try sealer.seal(content, with: key, options: APNsOptions(topic: "com.example.chat"))
/// send(body: request.body, headers: try request.headers())
/// ```
///
/// Size policy (Docs/PROVIDER.md, SPEC §6.3 and §9): the payload never exceeds its limit. If
/// the whole content does not fit, `body` is shortened at a grapheme-cluster boundary with `…`
/// and `trunc: true`; if not even body `…` fits, only `cid`, `mid` and `ts` are sealed. The
/// padded length is the pad block's multiple, capped at the largest length that still fits.
///
/// Salts are fresh random bytes for every notification, hedged so that a virtual machine
/// snapshot restored twice does not repeat them (SPEC §7.4). A sealer is a small immutable
/// value: share it freely between threads.
public struct NotificationSealer: Sendable {
    /// Default pad block.
    public static let defaultPadBlock = 256
    /// Largest pad block. A block this large pads every payload to the largest size that fits.
    public static let maximumPadBlock = 4096

    enum SaltSource: Sendable {
        case random
        case derived(@Sendable (NotificationContent) -> [UInt8])
    }

    /// Padded lengths are multiples of this (before the fit cap).
    public let padBlock: Int
    let clock: SecondsClock
    private(set) var saltSource: SaltSource

    /// A sealer with random salts. `padBlock` must be in `1...4096`; `clock` is used only for
    /// relative APNs expirations.
    public init(padBlock: Int = NotificationSealer.defaultPadBlock, clock: @escaping SecondsClock = systemClock) throws(ProviderError) {
        try self.init(padBlock: padBlock, clock: clock, saltSource: .random)
    }

    /// A sealer whose salt for each content is `salt(content)` (for test vectors and tests only:
    /// a repeated salt under one key breaks confidentiality).
    @_spi(Vectors)
    public init(
        padBlock: Int = NotificationSealer.defaultPadBlock, clock: @escaping SecondsClock = systemClock,
        deterministicSalt salt: @escaping @Sendable (NotificationContent) -> [UInt8]
    ) throws(ProviderError) {
        try self.init(padBlock: padBlock, clock: clock, saltSource: .derived(salt))
    }

    private init(padBlock: Int, clock: @escaping SecondsClock, saltSource: SaltSource) throws(ProviderError) {
        guard padBlock >= 1, padBlock <= Self.maximumPadBlock else { throw .invalidPadBlock(padBlock) }
        self.padBlock = padBlock
        self.clock = clock
        self.saltSource = saltSource
    }

    // MARK: Sealing one notification

    /// Seals `content` under `key` for the transport of `options`: an ``APNsRequest`` for
    /// ``APNsOptions``, an ``FCMMessage`` for ``FCMOptions``.
    public func seal<Options: TransportOptions>(_ content: NotificationContent, with key: ConversationKey, options: Options) throws(ProviderError) -> Options.SealedRequest {
        try Options.sealing.sealOne(self, content, key, options)
    }

    /// Seals `content` under the current key of its conversation (`content.conversationID`) for
    /// the transport of `options`.
    public func seal<Options: TransportOptions>(_ content: NotificationContent, keyProvider: some CurrentKeyProvider, options: Options) throws(ProviderError) -> Options.SealedRequest {
        try SizePolicy.validate(content)
        try options.validate()
        return try Options.sealing.sealOne(self, content, Self.currentKey(for: content, from: keyProvider), options)
    }

    /// Seals with a caller-chosen 24-byte salt (test vectors and `pushseal seal --salt` only).
    @_spi(Vectors)
    public func seal<Options: TransportOptions>(_ content: NotificationContent, with key: ConversationKey, options: Options, salt: [UInt8]) throws(ProviderError) -> Options.SealedRequest {
        guard salt.count == Envelope.saltByteCount else { throw .invalidSalt(byteCount: salt.count) }
        var fixed = self
        fixed.saltSource = .derived { _ in salt }
        return try Options.sealing.sealOne(fixed, content, key, options)
    }

    // MARK: The transports

    func sealAPNs(_ content: NotificationContent, key: ConversationKey, options: APNsOptions) throws(ProviderError) -> APNsRequest {
        try SizePolicy.validate(content)
        try options.validate()
        try Self.check(options.keyBundle, key: key)
        let frame = PayloadFrame.apns(options: options, key: key)
        let sealed = try seal(content, key: key, frame: frame)
        let expiration = options.expirationTime(clock: clock)
        return APNsRequest(
            body: sealed.payload, path: sealed.path, sizes: sealed.sizes, keyID: key.id, topic: options.topic,
            priority: options.priority, expiration: expiration, collapseID: options.collapseID)
    }

    func sealFCM(_ content: NotificationContent, key: ConversationKey, options: FCMOptions) throws(ProviderError) -> FCMMessage {
        try SizePolicy.validate(content)
        try options.validate()
        try Self.check(options.keyBundle ?? options.apns?.keyBundle, key: key)
        let frame = PayloadFrame.fcm(options: options, key: key, clock: clock)
        let sealed = try seal(content, key: key, frame: frame)
        return FCMMessage(body: sealed.payload, path: sealed.path, sizes: sealed.sizes, keyID: key.id)
    }

    /// An in-band bundle must carry the key the notification is sealed under (known for a bundle
    /// sealed in this process; the kid of a parsed bundle is sealed, and the device refuses a
    /// mismatch with `envelope_mismatch`).
    static func check(_ bundle: KeyBundle?, key: ConversationKey) throws(ProviderError) {
        if let bundle, let carried = bundle.sealedKeyID, carried != key.id {
            throw .invalidOption(field: "keyBundle", detail: "the bundle carries key \(carried), the notification is sealed under \(key.id)")
        }
    }

    // MARK: Sizes without sealing

    /// The exact APNs body size for a content that is sealed whole, with this sealer's padding,
    /// or nil when it would not fit whole (it would be truncated or content-free).
    public func apnsBodyByteCount(ofComplete content: NotificationContent, key: ConversationKey, options: APNsOptions) -> Int? {
        completeSize(content, frame: PayloadFrame.apns(options: options, key: key))
    }

    /// The exact FCM data size (keys plus values) for an Android message whose content is
    /// sealed whole, or nil when it would not fit whole. For the iOS form (``FCMOptions/apns``)
    /// it is nil: the limit applies to the APNs payload, which
    /// ``apnsBodyByteCount(ofComplete:key:options:)`` measures with the same ``APNsOptions``.
    public func fcmDataByteCount(ofComplete content: NotificationContent, options: FCMOptions) -> Int? {
        guard options.apns == nil else { return nil }
        return completeSize(content, frame: PayloadFrame.fcmAndroid(options: options))
    }

    private func completeSize(_ content: NotificationContent, frame: PayloadFrame) -> Int? {
        guard let maximumPadded = frame.maximumPaddedByteCount else { return nil }
        let count = content.encodedByteCount
        guard count <= min(NotificationContent.maximumByteCount, maximumPadded - 1) else { return nil }
        let padded = min(Padding.paddedLength(contentLength: count, blockSize: padBlock), maximumPadded)
        return frame.limitedByteCount(envelopeByteCount: padded + Envelope.overheadByteCount)
    }

    // MARK: The sealing path

    struct Sealed {
        let payload: [UInt8]
        let path: SealPath
        let sizes: SealSizes
    }

    /// Plans sizes arithmetically (content and options already validated), then writes `prefix || base64url(E) || suffix`
    /// into one exactly sized buffer: the content is encoded straight into the envelope buffer
    /// (on the stack), padded, sealed in place, and base64url-encoded straight into the output.
    /// The salt comes from the sealer's salt source: a fresh hedged salt
    /// (``RandomPool/drawSalt(into:)``) unless the source is deterministic (vectors).
    func seal(_ content: NotificationContent, key: ConversationKey, frame: PayloadFrame) throws(ProviderError) -> Sealed {
        guard let maximumPadded = frame.maximumPaddedByteCount else {
            throw Self.doesNotFit(content, frame: frame)
        }
        let budget = min(NotificationContent.maximumByteCount, maximumPadded - 1)
        // The whole envelope E on the stack: header, plaintext (then ciphertext), tag.
        return try withUnsafeTemporaryAllocation(byteCount: Envelope.maximumByteCount, alignment: 16) { buffer in
            Result { () throws(ProviderError) -> Sealed in
                try sealInto(buffer, content, key: key, frame: frame, budget: budget, maximumPadded: maximumPadded)
            }
        }.get()
    }

    private func sealInto(
        _ buffer: UnsafeMutableRawBufferPointer, _ content: NotificationContent, key: ConversationKey, frame: PayloadFrame,
        budget: Int, maximumPadded: Int
    ) throws(ProviderError) -> Sealed {
        let header = Envelope.headerByteCount
        let contentArea = UnsafeMutableRawBufferPointer(rebasing: buffer[header..<header + budget])
        // Fast path: when the content may fit, encode it once, straight into the envelope
        // buffer; it fits when it does not overflow the budget. Only a content that does not fit
        // goes through the size arithmetic of the size policy.
        var path = SealPath.complete
        var encoded: Int?
        if SizePolicy.rawByteCountLowerBound(content) <= budget {
            encoded = content.writeJSON(into: contentArea)
        }
        if encoded == nil {
            SecureMemory.wipe(contentArea)
            guard let plan = SizePolicy.plan(content, budget: budget) else { throw Self.doesNotFit(content, frame: frame) }
            encoded = plan.content.writeJSON(into: contentArea)
            path = plan.path
        }
        guard let contentCount = encoded else {
            SecureMemory.wipe(contentArea)
            let planned = SizePolicy.plan(content, budget: budget)?.content.encodedByteCount ?? 0
            throw .internalInconsistency("planned content of \(planned) bytes exceeds the \(budget)-byte budget")
        }

        // Padding: the block multiple, capped at the largest length that fits (>= count + 1).
        let padded = min(Padding.paddedLength(contentLength: contentCount, blockSize: padBlock), maximumPadded)
        let envelopeCount = Envelope.overheadByteCount + padded
        let wireLength = Base64URL.encodedLength(of: envelopeCount)
        let limited = frame.limitedByteCount(envelopeByteCount: envelopeCount)
        guard limited <= frame.limit else {
            SecureMemory.wipe(contentArea)
            throw .internalInconsistency("payload would count \(limited) bytes against the \(frame.limit)-byte limit")
        }
        let total = frame.prefix.count + wireLength + frame.suffix.count
        var derivedSalt: [UInt8] = []
        if case let .derived(derive) = saltSource {
            derivedSalt = derive(content)
            guard derivedSalt.count == Envelope.saltByteCount else {
                SecureMemory.wipe(contentArea)
                throw .invalidSalt(byteCount: derivedSalt.count)
            }
        }

        let e = buffer.baseAddress!
        Padding.pad(UnsafeMutableRawBufferPointer(start: e + header, count: padded), contentLength: contentCount)
        let plaintext = UnsafeRawBufferPointer(start: e + header, count: padded)
        let envelope = UnsafeMutableRawBufferPointer(start: e, count: envelopeCount)
        withUnsafeTemporaryAllocation(byteCount: Envelope.saltByteCount, alignment: 8) { saltBuffer in
            if !derivedSalt.isEmpty {
                derivedSalt.withUnsafeBytes { saltBuffer.copyMemory(from: $0) }
            } else {
                // Buffered CSPRNG output (one getrandom per ~170 salts; fork-safe), hedged
                // against a replayed snapshot by a counter and the clock (SPEC §7.4).
                RandomPool.drawSalt(into: saltBuffer)
            }
            // Seals in place: the plaintext is overwritten by the ciphertext.
            Envelope.sealInto(envelope, plaintext: plaintext, key: key, salt: UnsafeRawBufferPointer(saltBuffer))
        }

        let payload = [UInt8](unsafeUninitializedCapacity: total) { output, initialized in
            let out = output.baseAddress!
            frame.prefix.withUnsafeBufferPointer { out.update(from: $0.baseAddress!, count: $0.count) }
            Base64URL.encode(UnsafeRawBufferPointer(envelope), into: out + frame.prefix.count)
            frame.suffix.withUnsafeBufferPointer {
                (out + frame.prefix.count + wireLength).update(from: $0.baseAddress!, count: $0.count)
            }
            initialized = total
        }
        let sizes = SealSizes(
            contentByteCount: contentCount, paddedByteCount: padded, envelopeByteCount: envelopeCount,
            wireLength: wireLength, payloadByteCount: total, limitedByteCount: limited, limit: frame.limit)
        return Sealed(payload: payload, path: path, sizes: sizes)
    }

    /// The error for a frame too large for even the content-free payload.
    static func doesNotFit(_ content: NotificationContent, frame: PayloadFrame) -> ProviderError {
        let smallest = content.contentFree.encodedByteCount + 1 + Envelope.overheadByteCount
        return .doesNotFit(byteCount: frame.limitedByteCount(envelopeByteCount: smallest), limit: frame.limit)
    }

    static func currentKey(for content: NotificationContent, from provider: some CurrentKeyProvider) throws(ProviderError) -> ConversationKey {
        do {
            return try provider.currentKey(conversation: content.conversationID)
        } catch let error as ProviderError {
            throw error
        } catch {
            throw .keyUnavailable(conversation: content.conversationID, detail: String(describing: error))
        }
    }
}

// MARK: - Framing an existing wire string (vectors)

extension NotificationSealer {
    /// The exact APNs body around an existing wire string, with the same layout as sealing
    /// (for test vectors, including deliberately malformed wires). Options are validated; sizes
    /// are not checked.
    @_spi(Vectors)
    public static func apnsBody(wrapping wire: String, key: ConversationKey, options: APNsOptions) throws(ProviderError) -> [UInt8] {
        try options.validate()
        return PayloadFrame.apns(options: options, key: key).wrap(wire)
    }

    /// The exact FCM v1 Android message around an existing wire string (for test vectors).
    @_spi(Vectors)
    public static func fcmBody(wrapping wire: String, options: FCMOptions) throws(ProviderError) -> [UInt8] {
        try options.validate()
        guard options.apns == nil else { throw .invalidOption(field: "apns", detail: "the iOS form is made by sealing") }
        return PayloadFrame.fcmAndroid(options: options).wrap(wire)
    }
}
