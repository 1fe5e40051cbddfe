/// A wire-format v1 envelope: `E = 0x01 || kid || salt || ChaCha20-Poly1305(mk, 0^12, E[0..<41], P)`,
/// carried as base64url without padding.
///
/// Parsing checks only the framing (strict base64url, version, length); ``open(with:)``
/// authenticates and removes the padding.
public struct Envelope: Sendable, Equatable {
    /// The only version this implementation reads and writes.
    public static let version: UInt8 = 0x01
    /// Salt length in bytes.
    public static let saltByteCount = 24
    /// Header length: version, key id, salt.
    public static let headerByteCount = 1 + KeyID.byteCount + saltByteCount
    /// Smallest envelope: header, one padded byte, tag.
    public static let minimumByteCount = headerByteCount + 1 + ChaCha20Poly1305.tagByteCount
    /// Largest envelope.
    public static let maximumByteCount = 4096
    /// Longest wire string that can decode to ``maximumByteCount`` bytes.
    public static let maximumWireLength = Base64URL.encodedLength(of: maximumByteCount)
    /// Envelope bytes besides the padded plaintext: header and tag.
    public static let overheadByteCount = headerByteCount + ChaCha20Poly1305.tagByteCount

    /// The envelope bytes E.
    public let bytes: [UInt8]

    /// The key id from the header.
    public var keyID: KeyID { bytes.withUnsafeBytes { KeyID(exactly: UnsafeRawBufferPointer(rebasing: $0[1..<17]))! } }
    /// The salt from the header.
    public var salt: [UInt8] { Array(bytes[17..<Self.headerByteCount]) }
    /// Length of the padded plaintext (= ciphertext without tag).
    public var paddedContentByteCount: Int { bytes.count - Self.overheadByteCount }
    /// The base64url wire string.
    public var wire: String { Base64URL.encode(bytes) }

    /// Parses a wire string (strict base64url; version; length), in the receiver's check order.
    public init(wire: some StringProtocol) throws(OpenError) {
        guard wire.utf8.count <= Self.maximumWireLength else {
            throw .malformedEnvelope("wire string is \(wire.utf8.count) characters, longer than the \(Self.maximumWireLength) that \(Self.maximumByteCount) bytes take")
        }
        let decoded: [UInt8]
        do {
            decoded = try Base64URL.decode(wire)
        } catch {
            throw .malformedEnvelope("not strict base64url: \(error)")
        }
        try self.init(bytes: decoded)
    }

    /// Checks decoded envelope bytes: version first (so a future version is reported as such),
    /// then length.
    public init(bytes: [UInt8]) throws(OpenError) {
        guard let version = bytes.first else { throw .malformedEnvelope("empty envelope") }
        guard version == Self.version else { throw .unsupportedVersion(version) }
        guard bytes.count >= Self.minimumByteCount, bytes.count <= Self.maximumByteCount else {
            throw .malformedEnvelope("envelope is \(bytes.count) bytes; version 1 needs \(Self.minimumByteCount) to \(Self.maximumByteCount)")
        }
        self.bytes = bytes
    }

    private init(validatedBytes: [UInt8]) {
        bytes = validatedBytes
    }

    // MARK: Opening

    /// Authenticates and decrypts with `key`, then removes the padding. Returns the content bytes,
    /// which the caller owns: zero them when done (the buffer they were decrypted into is zeroed).
    ///
    /// Throws ``OpenError/unknownKey(_:)`` if `key` is not the key named in the header (a receiver
    /// never tries another key), ``OpenError/authenticationFailed``, or
    /// ``OpenError/malformedContent(_:)`` for bad padding or oversized content.
    public func open(with key: ConversationKey) throws(OpenError) -> [UInt8] {
        let plaintext = UnsafeMutableRawBufferPointer.allocate(byteCount: paddedContentByteCount, alignment: 16)
        defer {
            SecureMemory.wipe(plaintext)
            plaintext.deallocate()
        }
        let count = try openContent(with: key, into: plaintext)
        return Array(UnsafeRawBufferPointer(rebasing: plaintext[..<count]))
    }

    /// ``open(with:)`` without an array: authenticates and decrypts into `plaintext` (exactly
    /// ``paddedContentByteCount`` bytes, owned and zeroed afterwards by the caller) and removes the
    /// padding; returns the length of the content at the start of `plaintext`. Throws what
    /// ``open(with:)`` throws; when the tag is invalid, `plaintext` is left zeroed.
    package func openContent(with key: ConversationKey, into plaintext: UnsafeMutableRawBufferPointer) throws(OpenError) -> Int {
        precondition(plaintext.count == paddedContentByteCount)
        let outcome = bytes.withUnsafeBytes { e -> Result<Int, OpenError> in
            let headerKeyID = UnsafeRawBufferPointer(rebasing: e[1..<17])
            let matches = key.id.withUnsafeBytes { SecureMemory.constantTimeEqual($0, headerKeyID) }
            guard matches else { return .failure(.unknownKey(KeyID(exactly: headerKeyID)!)) }
            let authentic = Self.withMessageKey(key: key, salt: UnsafeRawBufferPointer(rebasing: e[17..<Self.headerByteCount])) { mk in
                ChaCha20Poly1305.openInPlace(
                    output: plaintext, ciphertextAndTag: UnsafeRawBufferPointer(rebasing: e[Self.headerByteCount...]),
                    key: mk, nonce: Self.zeroNonceBuffer, authenticatedData: UnsafeRawBufferPointer(rebasing: e[0..<Self.headerByteCount]))
            }
            guard authentic else { return .failure(.authenticationFailed) }
            guard let contentCount = Padding.unpaddedLength(of: UnsafeRawBufferPointer(plaintext)) else {
                return .failure(.malformedContent(.invalidPadding))
            }
            guard contentCount <= NotificationContent.maximumByteCount else {
                return .failure(.malformedContent(.tooLarge(byteCount: contentCount)))
            }
            return .success(contentCount)
        }
        return try outcome.get()
    }

    /// Opens and decodes the content (see ``open(with:)``).
    public func openContent(with key: ConversationKey) throws(OpenError) -> NotificationContent {
        var bytes = try open(with: key)
        defer { bytes.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        do {
            return try NotificationContent(decoding: bytes)
        } catch {
            throw .malformedContent(error)
        }
    }

    // MARK: Sealing

    /// Seals `content` (already encoded) with a fresh random salt, padded to `paddedLength` bytes
    /// (`content.count < paddedLength`, and the envelope must stay within 4096 bytes).
    public static func seal(content: [UInt8], with key: ConversationKey, paddedLength: Int) -> Envelope {
        var salt = [UInt8](repeating: 0, count: saltByteCount)
        salt.withUnsafeMutableBytes { RandomPool.drawSalt(into: $0) }
        return seal(content: content, with: key, paddedLength: paddedLength, salt: salt)
    }

    /// Seals with a caller-chosen salt. Reusing a salt with the same key reuses the message key,
    /// which is catastrophic for a stream cipher: this exists for test vectors only.
    @_spi(Vectors)
    public static func seal(content: [UInt8], with key: ConversationKey, paddedLength: Int, salt: [UInt8]) -> Envelope {
        precondition(paddedLength > content.count, "padded length must leave room for the 0x80 marker")
        return seal(plaintext: Padding.pad(content, toLength: paddedLength), with: key, salt: salt)
    }

    /// Seals an exact plaintext P (padding included) — for vectors that need malformed padding.
    @_spi(Vectors)
    public static func seal(plaintext: [UInt8], with key: ConversationKey, salt: [UInt8]) -> Envelope {
        precondition(salt.count == saltByteCount)
        let total = headerByteCount + plaintext.count + ChaCha20Poly1305.tagByteCount
        precondition(total >= minimumByteCount && total <= maximumByteCount, "envelope would be \(total) bytes")
        let bytes = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            let out = UnsafeMutableRawBufferPointer(buffer)
            plaintext.withUnsafeBytes { p in
                salt.withUnsafeBytes { s in
                    sealInto(out, plaintext: p, key: key, salt: s)
                }
            }
            initialized = total
        }
        return Envelope(validatedBytes: bytes)
    }

    /// Writes the whole envelope for `plaintext` (already padded) into `output`
    /// (`41 + plaintext.count + 16` bytes). `plaintext` may already sit at `output[41...]`.
    package static func sealInto(
        _ output: UnsafeMutableRawBufferPointer, plaintext: UnsafeRawBufferPointer, key: ConversationKey, salt: UnsafeRawBufferPointer
    ) {
        precondition(output.count == headerByteCount + plaintext.count + ChaCha20Poly1305.tagByteCount && salt.count == saltByteCount)
        output[0] = version
        key.id.withUnsafeBytes { (output.baseAddress! + 1).copyMemory(from: $0.baseAddress!, byteCount: KeyID.byteCount) }
        (output.baseAddress! + 17).copyMemory(from: salt.baseAddress!, byteCount: saltByteCount)
        withMessageKey(key: key, salt: salt) { mk in
            ChaCha20Poly1305.sealDetachedInPlace(
                output: UnsafeMutableRawBufferPointer(rebasing: output[headerByteCount...]), plaintext: plaintext,
                key: mk, nonce: zeroNonceBuffer, authenticatedData: UnsafeRawBufferPointer(rebasing: output[0..<headerByteCount]))
        }
    }

    /// The message key for `salt`, exposed for test vectors (it is an intermediate value).
    @_spi(Vectors)
    public static func messageKey(for key: ConversationKey, salt: [UInt8]) -> [UInt8] {
        salt.withUnsafeBytes { s in withMessageKey(key: key, salt: s) { Array($0) } }
    }

    // MARK: Helpers

    /// The all-zero nonce: safe because every mk is used for exactly one message.
    /// Allocated once, never written after initialisation, never freed.
    nonisolated(unsafe) private static let zeroNonceBuffer: UnsafeRawBufferPointer = {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ChaCha20Poly1305.nonceByteCount, alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        return UnsafeRawBufferPointer(buffer)
    }()

    /// Derives mk into a stack buffer, passes it to `body`, then zeroes it.
    @inline(__always)
    private static func withMessageKey<R>(key: ConversationKey, salt: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { mk in
            key.deriveMessageKey(salt: salt, into: mk.baseAddress!)
            defer { SecureMemory.wipe(UnsafeMutableRawBufferPointer(mk)) }
            return body(UnsafeRawBufferPointer(mk))
        }
    }
}
