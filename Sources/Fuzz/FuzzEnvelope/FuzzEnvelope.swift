import FuzzSupport
import PushSealCore

/// libFuzzer target: the envelope's framing — strict base64url (`Base64URL.decode`) and
/// `Envelope(wire:)` / `Envelope(bytes:)` — from arbitrary bytes.
///
/// Properties checked on every input (not just "does not crash"):
/// - `Base64URL.decode` agrees exactly (result or error, with offset) with a slow bit-by-bit
///   reference decoder written from RFC 4648 §5 and Docs/SPEC.md §8;
/// - every accepted string is canonical: re-encoding the decoded bytes gives the same string;
/// - encoding any byte string and decoding it gives the bytes back;
/// - `Envelope(wire:)` and `Envelope(bytes:)` accept exactly what the spec's check order
///   (length, base64url, empty, version, 58…4096 bytes) accepts, with the same reason;
/// - an accepted envelope round-trips: `Envelope(wire: e.wire) == e` and `e.wire` is the input;
/// - opening an accepted envelope with a key whose id is not in the header reports `unknown_key`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvelopeTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: size > 0 ? UnsafeRawPointer(data) : nil, count: size)
    let bytes = [UInt8](input)
    let reference = ReferenceBase64URL.decode(bytes)
    checkBase64URL(input, expected: reference)
    checkEnvelopeBytes(bytes)
    if let wire = String(validating: bytes, as: UTF8.self) {
        checkEnvelopeWire(wire, bytes: bytes, reference: reference)
    }
    return 0
}

/// The fixed key of this target (any key: only its id matters here).
let fixedKey = try! ConversationKey(rawBytes: [UInt8](repeating: 0x42, count: 32))

func checkBase64URL(_ input: UnsafeRawBufferPointer, expected: Result<[UInt8], Base64URL.DecodingError>) {
    do {
        let decoded = try Base64URL.decode(ascii: input)
        guard case let .success(reference) = expected else {
            fuzzFail("decode accepted \(fuzzHex(input)), reference rejects it: \(expected)")
        }
        fuzzCheck(decoded == reference, "decode(\(fuzzHex(input))) = \(fuzzHex(decoded)), reference \(fuzzHex(reference))")
        fuzzCheck(decoded.count == Base64URL.decodedLength(of: input.count), "decoded length")
        let reencoded = Base64URL.encode(decoded)
        fuzzCheck(reencoded.utf8.elementsEqual(input), "accepted string is not canonical: \(fuzzHex(input)) re-encodes as \(reencoded)")
    } catch {
        guard case let .failure(referenceError) = expected else {
            fuzzFail("decode rejected \(fuzzHex(input)) with \(error), reference accepts it")
        }
        fuzzCheck(error == referenceError, "decode(\(fuzzHex(input))) threw \(error), reference \(referenceError)")
    }
    // Any byte string round-trips through encode/decode.
    let encoded = Base64URL.encode(input)
    fuzzCheck(encoded.utf8.count == Base64URL.encodedLength(of: input.count), "encoded length")
    do {
        let back = try Base64URL.decode(encoded)
        fuzzCheck(back.elementsEqual(input), "encode/decode round trip of \(fuzzHex(input))")
    } catch {
        fuzzFail("encode(\(fuzzHex(input))) = \(encoded) does not decode: \(error)")
    }
}

/// What the receiver's steps 3–4 (Docs/SPEC.md §10.2) say about envelope bytes.
func referenceReason(forEnvelope bytes: [UInt8]) -> ReasonCode? {
    guard let version = bytes.first else { return .malformedEnvelope }
    guard version == 0x01 else { return .unsupportedVersion }
    guard bytes.count >= 58, bytes.count <= 4096 else { return .malformedEnvelope }
    return nil
}

func checkEnvelopeBytes(_ bytes: [UInt8]) {
    let expected = referenceReason(forEnvelope: bytes)
    do {
        let envelope = try Envelope(bytes: bytes)
        fuzzCheck(expected == nil, "Envelope(bytes:) accepted \(bytes.count) bytes, reference says \(String(describing: expected))")
        checkAccepted(envelope, bytes: bytes)
    } catch {
        fuzzCheck(error.reason == expected, "Envelope(bytes:) threw \(error), reference says \(String(describing: expected))")
        if case let .unsupportedVersion(version) = error {
            fuzzCheck(version == bytes.first, "unsupported version reports \(version), not the version byte")
        }
    }
}

func checkEnvelopeWire(_ wire: String, bytes: [UInt8], reference: Result<[UInt8], Base64URL.DecodingError>) {
    let expected: ReasonCode?
    var decodedReference: [UInt8] = []
    if bytes.count > Envelope.maximumWireLength {
        expected = .malformedEnvelope
    } else if case let .success(decoded) = reference {
        decodedReference = decoded
        expected = referenceReason(forEnvelope: decoded)
    } else {
        expected = .malformedEnvelope
    }
    do {
        let envelope = try Envelope(wire: wire)
        fuzzCheck(expected == nil, "Envelope(wire:) accepted \(wire), reference says \(String(describing: expected))")
        fuzzCheck(envelope.bytes == decodedReference, "Envelope(wire:) bytes differ from the reference decoding")
        fuzzCheck(envelope.wire == wire, "decode→encode round trip: \(wire) → \(envelope.wire)")
        checkAccepted(envelope, bytes: decodedReference)
    } catch {
        fuzzCheck(error.reason == expected, "Envelope(wire:) threw \(error), reference says \(String(describing: expected))")
    }
}

func checkAccepted(_ envelope: Envelope, bytes: [UInt8]) {
    fuzzCheck(envelope.bytes == bytes, "envelope bytes changed")
    fuzzCheck(envelope.keyID.bytes.elementsEqual(bytes[1..<17]), "keyID is not E[1..<17]")
    fuzzCheck(envelope.salt == Array(bytes[17..<41]), "salt is not E[17..<41]")
    fuzzCheck(envelope.paddedContentByteCount == bytes.count - 57, "padded content length")
    do {
        let again = try Envelope(wire: envelope.wire)
        fuzzCheck(again == envelope, "Envelope(wire: e.wire) != e")
    } catch {
        fuzzFail("the wire of an accepted envelope is rejected: \(error)")
    }
    if !fixedKey.id.bytes.elementsEqual(bytes[1..<17]) {
        do {
            _ = try envelope.open(with: fixedKey)
            fuzzFail("opened an envelope whose kid is not the key's")
        } catch {
            fuzzCheck(error.reason == .unknownKey, "open with a key not named in the header threw \(error), not unknown_key")
        }
    }
}
