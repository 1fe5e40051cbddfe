@_spi(Vectors) import PushSealCore
import Testing

@Suite("Envelope v1")
struct EnvelopeTests {
    let key = try! ConversationKey(rawBytes: (0..<32).map { UInt8($0) })
    let content = NotificationContent(conversationID: "c1", messageID: "m1", sentAt: 1_764_400_000, title: "Bob", body: "See you at 8")

    @Test("seal then open returns the content; layout has the documented offsets")
    func roundTrip() throws {
        let bytes = try content.encoded()
        let envelope = Envelope.seal(content: bytes, with: key, paddedLength: 256)
        #expect(envelope.bytes.count == 41 + 256 + 16)
        #expect(envelope.bytes[0] == 0x01)
        #expect(Array(envelope.bytes[1..<17]) == key.id.bytes)
        #expect(envelope.keyID == key.id)
        let parsed = try Envelope(wire: envelope.wire)
        #expect(parsed == envelope)
        #expect(try parsed.open(with: key) == bytes)
        #expect(try parsed.openContent(with: key) == content)
    }

    @Test("openContent(with:into:) agrees with open(with:) on every outcome and zeroes a failed buffer")
    func openIntoBuffer() throws {
        let bytes = try content.encoded()
        let salt = [UInt8](repeating: 7, count: Envelope.saltByteCount)
        let other = try ConversationKey(rawBytes: [UInt8](repeating: 9, count: 32))
        var cases: [(Envelope, ConversationKey)] = []
        for padded in [bytes.count + 1, 256, 1000] {
            let envelope = Envelope.seal(content: bytes, with: key, paddedLength: padded, salt: salt)
            cases.append((envelope, key))
            cases.append((envelope, other))
            var tampered = envelope.bytes
            tampered[tampered.count - 1] ^= 1
            cases.append((try Envelope(bytes: tampered), key))
        }
        // Bad padding (no 0x80) and oversized content: authentic, rejected after decryption.
        cases.append((Envelope.seal(plaintext: [UInt8](repeating: 0, count: 40), with: key, salt: salt), key))
        cases.append((Envelope.seal(plaintext: [UInt8](repeating: 0x41, count: 4001) + [0x80], with: key, salt: salt), key))
        for (envelope, key) in cases {
            let expected = Result { () throws(OpenError) in try envelope.open(with: key) }
            var buffer = [UInt8](repeating: 0xAA, count: envelope.paddedContentByteCount)
            let got = buffer.withUnsafeMutableBytes { out in
                Result { () throws(OpenError) in Array(out[..<(try envelope.openContent(with: key, into: out))]) }
            }
            #expect(got == expected)
            if case .failure(.authenticationFailed) = got { #expect(buffer.allSatisfy { $0 == 0 }) }
        }
    }

    @Test("fresh salts: two seals of one content differ")
    func freshSalts() throws {
        let bytes = try content.encoded()
        let a = Envelope.seal(content: bytes, with: key, paddedLength: 128)
        let b = Envelope.seal(content: bytes, with: key, paddedLength: 128)
        #expect(a.salt != b.salt)
        #expect(a.bytes != b.bytes)
    }

    @Test("injected salt is deterministic and matches the spec's construction step by step")
    func deterministic() throws {
        let salt = [UInt8](repeating: 7, count: 24)
        let bytes = try content.encoded()
        let a = Envelope.seal(content: bytes, with: key, paddedLength: 128, salt: salt)
        #expect(a == Envelope.seal(content: bytes, with: key, paddedLength: 128, salt: salt))
        // Recompute from generic primitives.
        let mk = HMACSHA256.authenticationCode(for: Array("pushseal v1 message key".utf8) + salt + [1], using: key.secretKey)
        #expect(Envelope.messageKey(for: key, salt: salt) == mk)
        let header = [0x01] + key.id.bytes + salt
        let sealed = try ChaCha20Poly1305.seal(Padding.pad(bytes, toLength: 128), using: SecretKey(bytes: mk), nonce: [UInt8](repeating: 0, count: 12), authenticating: header)
        #expect(a.bytes == header + sealed)
    }

    @Test("not strict base64url → malformed_envelope", arguments: ["AQ==", "A", "AQ\n", "!!!!", String(repeating: "A", count: 5463)])
    func malformedWire(wire: String) {
        #expect { try Envelope(wire: wire) } throws: { ($0 as? OpenError)?.reason == .malformedEnvelope }
    }

    @Test("version byte is checked before the length")
    func versionFirst() {
        #expect(throws: OpenError.unsupportedVersion(2)) { try Envelope(bytes: [2]) }
        #expect(throws: OpenError.unsupportedVersion(0)) { try Envelope(bytes: [UInt8](repeating: 0, count: 100)) }
        #expect { try Envelope(bytes: [1] + [UInt8](repeating: 0, count: 56)) } throws: { ($0 as? OpenError)?.reason == .malformedEnvelope }
        #expect { try Envelope(bytes: [1] + [UInt8](repeating: 0, count: 4096)) } throws: { ($0 as? OpenError)?.reason == .malformedEnvelope }
        #expect { try Envelope(bytes: []) } throws: { ($0 as? OpenError)?.reason == .malformedEnvelope }
        #expect((try? Envelope(bytes: [1] + [UInt8](repeating: 0, count: 57))) != nil)
    }

    @Test("another key → unknown_key, without trying to decrypt")
    func otherKey() throws {
        let envelope = Envelope.seal(content: try content.encoded(), with: key, paddedLength: 128)
        let other = ConversationKey.generate()
        #expect(throws: OpenError.unknownKey(key.id)) { try envelope.open(with: other) }
    }

    @Test("any flipped bit in header, ciphertext or tag → authentication_failed")
    func tampering() throws {
        let envelope = Envelope.seal(content: try content.encoded(), with: key, paddedLength: 128)
        for index in [0, 17, 40, 41, 60, envelope.bytes.count - 1] where index != 0 {
            var bytes = envelope.bytes
            bytes[index] ^= 0x01
            #expect(throws: OpenError.authenticationFailed, "byte \(index)") { try Envelope(bytes: bytes).open(with: key) }
        }
        // A changed kid byte names another key.
        var bytes = envelope.bytes
        bytes[5] ^= 0x01
        #expect { try Envelope(bytes: bytes).open(with: key) } throws: { ($0 as? OpenError)?.reason == .unknownKey }
    }

    @Test("bad padding and oversize content → malformed_content")
    func badPadding() throws {
        let salt = [UInt8](repeating: 1, count: 24)
        for plaintext in [[UInt8](repeating: 0, count: 32), [0x41, 0x80, 0x01], [0x41]] {
            let envelope = Envelope.seal(plaintext: plaintext, with: key, salt: salt)
            #expect(throws: OpenError.malformedContent(.invalidPadding)) { try envelope.open(with: key) }
        }
        let big = Envelope.seal(plaintext: [UInt8](repeating: 0x41, count: 4001) + [0x80], with: key, salt: salt)
        #expect(throws: OpenError.malformedContent(.tooLarge(byteCount: 4001))) { try big.open(with: key) }
    }

    @Test("content errors surface as malformed_content")
    func contentErrors() throws {
        let envelope = Envelope.seal(content: Array(#"{"cid":"c"}"#.utf8), with: key, paddedLength: 32)
        #expect(throws: OpenError.malformedContent(.missingField("mid"))) { try envelope.openContent(with: key) }
    }

    @Test("keys must be exactly 32 bytes")
    func keySizes() throws {
        #expect(throws: WireFormatError.incorrectKeySize(expected: 32, actual: 31)) { try ConversationKey(rawBytes: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: WireFormatError.incorrectKeySize(expected: 32, actual: 33)) { try ConversationKey(rawBytes: [UInt8](repeating: 1, count: 33)) }
        #expect(ConversationKey.generate() != ConversationKey.generate())
        #expect(try key == ConversationKey(rawBytes: (0..<32).map { UInt8($0) }))
    }

    @Test("every reason code maps from exactly one OpenError case")
    func reasonCodes() {
        let errors: [OpenError] = [
            .notSealed, .malformedEnvelope("x"), .unsupportedVersion(2), .unknownKey(key.id), .storeLocked("x"),
            .authenticationFailed, .malformedContent(.notAnObject), .conversationMismatch, .stale(sentAt: 0, now: 1),
            .retiredKey(sentAt: 2, retireBy: 1),
        ]
        #expect(errors.map(\.reason) == ReasonCode.allCases)
        #expect(ReasonCode.allCases.map(\.rawValue) == [
            "not_sealed", "malformed_envelope", "unsupported_version", "unknown_key", "store_locked",
            "authentication_failed", "malformed_content", "conversation_mismatch", "stale", "retired_key",
        ])
    }
}
