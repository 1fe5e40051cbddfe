import FuzzSupport
import PushSealCore
import PushSealJSON
import PushSealReceiver

/// libFuzzer target: key bundles, format 2 (SPEC §16) from arbitrary bytes — the strict parser
/// (`KeyBundle(text:)`, `KeyBundle(bytes:)`, `KeyBundleHeader`), opening on a device
/// (`KeyBundle.open`), and the receiver's in-band path (a `"pushseal-bundle"` member).
///
/// The device holds the device key of Vectors/pushseal-v1-bundles.json and pins that file's
/// provider key; the bundles in the seed corpus are that file's, so mutations of real sealed
/// bundles reach every check. Properties checked on every input, read both as bundle text and as
/// bundle bytes:
/// - the parser accepts exactly what an independent reading of SPEC §16.3 / §16.5 steps 1–3
///   accepts (at most 1024 characters, strict base64url, version 2 checked before the length, 403
///   bytes), with the same reason (and the version byte found);
/// - an accepted bundle round-trips byte for byte: its provider key id is `bundle[1..<17]`,
///   `header.encoded()` is `bundle[0..<17]`, `text` is the input text and parses back;
/// - opening against the fixed device key and pinned provider key gives exactly what steps 4–8
///   say: `unknown_provider` by the header's id (compared with the vector file's); for any bytes
///   the provider did not seal, `bundle_authentication_failed`; only a bundle the provider sealed
///   (the table in SealedByProvider.swift, sealed by this target at start-up) passes
///   authentication, and then opens to exactly its sealed contents or fails with the step its
///   plaintext makes it fail;
/// - the receiver's in-band path: the vector notification with the input as its
///   `"pushseal-bundle"` member (in the JSON payload, a `userInfo` dictionary and an FCM data map)
///   opens exactly as without the member — decrypted, with the same content — and reports the
///   bundle outcome the steps above give (a bundle that opens carries another key than the
///   envelope's: `envelope_mismatch`; or the reason).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBundleTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: size > 0 ? UnsafeRawPointer(data) : nil, count: size))
    _ = providerBundlesOpen
    checkBundleBytes(bytes)
    if let text = String(validating: bytes, as: UTF8.self) {
        let expected = checkBundleText(text, utf8: bytes)
        checkInBand(text, expected: expected)
    }
    return 0
}

// MARK: The fixed device and provider

let device = try! IdentityKeyPair(privateKeyBytes: Hex.decode(devicePrivateKey)!)
let provider = try! IdentityKeyPair(privateKeyBytes: Hex.decode(providerPrivateKey)!)
let pinnedProviderKeys = [provider.publicKey]

/// The bundles the pinned provider sealed to the device, by their bytes, with what opening them
/// must give; sealed here through the provider's one sealing path.
let sealedByProvider: [[UInt8]: (input: SealingInput, plaintext: [UInt8])] = {
    var table: [[UInt8]: (input: SealingInput, plaintext: [UInt8])] = [:]
    for input in sealingInputs {
        let plaintext = Hex.decode(input.plaintext)!
        let ephemeral = try! HybridPublicKeyEncryption.deriveKeyPair(inputKeyMaterial: SecretKey(bytes: Hex.decode(input.ikmE)!))
        let sealed = try! KeyBundle.seal(plaintext: plaintext, header: KeyBundleHeader(providerKeyID: provider.providerKeyID), sender: provider,
                                         devicePublicKey: device.publicKey, ephemeral: ephemeral).bundle
        table[sealed.bytes] = (input, plaintext)
    }
    fuzzCheck(device.deviceKeyID.hex == expectedDeviceKeyID && provider.providerKeyID.hex == expectedProviderKeyID,
              "the key ids of the fixed key pairs are not the vector file's")
    return table
}()

/// Once, before the first input: every bundle the provider sealed opens as its inputs say, so the
/// "opens" side of the properties below is exercised even when no seed reaches it.
let providerBundlesOpen: Void = {
    fuzzCheck(sealedByProvider.count == sealingInputs.count, "two sealing inputs gave the same bundle")
    for bytes in sealedByProvider.keys {
        guard let bundle = try? KeyBundle(bytes: bytes) else { fuzzFail("a bundle the provider sealed does not parse") }
        _ = checkOpening(bundle)
    }
}()

// MARK: Steps 1–3: the strict parser

/// Big-endian reading, written here rather than taken from the code under test.
func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    var value: UInt64 = 0
    for byte in bytes { value = value << 8 | UInt64(byte) }
    return value
}

/// SPEC §16.5 steps 2–3 on decoded bytes: nil when they pass, else the reason.
func referenceReason(forBundle bytes: [UInt8]) -> KeyBundleReason? {
    guard let version = bytes.first else { return .malformedBundle }
    guard version == 0x02 else { return .unsupportedBundleVersion }
    guard bytes.count == 403 else { return .malformedBundle }
    return nil
}

/// What the device's steps say about an input: the bundle's reason, or its opening (the sealed
/// plaintext, compared field by field with what `open` returns).
enum Expected: Equatable {
    case refused(KeyBundleReason)
    case opened(plaintext: [UInt8])

    /// The in-band outcome: every bundle of the table carries another key than the held envelope's.
    var inBandCode: String {
        switch self {
        case let .refused(reason): reason.rawValue
        case .opened: KeyBundleReason.envelopeMismatch.rawValue
        }
    }
}

func checkBundleBytes(_ bytes: [UInt8]) {
    let expected = referenceReason(forBundle: bytes)
    do {
        let bundle = try KeyBundle(bytes: bytes)
        fuzzCheck(expected == nil, "KeyBundle(bytes:) accepted \(fuzzHex(bytes)), the spec says \(String(describing: expected))")
        checkAccepted(bundle, bytes: bytes)
        _ = checkOpening(bundle)
    } catch {
        fuzzCheck(error.reason == expected, "KeyBundle(bytes:) threw \(error), the spec says \(String(describing: expected)) for \(fuzzHex(bytes))")
        if case let .unsupportedBundleVersion(version) = error {
            fuzzCheck(version == bytes.first, "unsupported_bundle_version reports \(version), not the version byte")
        }
    }
}

/// Steps 1–9 on a text; returns what they give (the in-band check compares the receiver with it).
func checkBundleText(_ text: String, utf8: [UInt8]) -> Expected {
    var decoded: [UInt8]?
    if utf8.count <= 1024 { decoded = try? Base64URL.decode(text) }
    let expected: KeyBundleReason? = decoded.map(referenceReason(forBundle:)) ?? .malformedBundle
    do {
        let bundle = try KeyBundle(text: text)
        fuzzCheck(expected == nil, "KeyBundle(text:) accepted \(text), the spec says \(String(describing: expected))")
        fuzzCheck(bundle.bytes == decoded, "KeyBundle(text:) bytes are not the text's decoding")
        fuzzCheck(bundle.text == text, "decode→encode round trip: \(text) → \(bundle.text)")
        checkAccepted(bundle, bytes: decoded!)
        return checkOpening(bundle)
    } catch {
        fuzzCheck(error.reason == expected, "KeyBundle(text:) threw \(error), the spec says \(String(describing: expected)) for \(text)")
        return .refused(error.reason)
    }
}

/// An accepted bundle's header is its bytes, and everything round-trips.
func checkAccepted(_ bundle: KeyBundle, bytes: [UInt8]) {
    let header = bundle.header
    fuzzCheck(bundle.bytes == bytes, "bundle bytes changed")
    fuzzCheck(header.providerKeyID.bytes.elementsEqual(bytes[1..<17]), "provider key id is not B[1..<17]")
    fuzzCheck(header.encoded() == Array(bytes[0..<17]), "the header does not re-encode to B: \(fuzzHex(bytes[0..<17]))")
    fuzzCheck(KeyBundleHeader(providerKeyID: header.providerKeyID) == header, "the header rebuilt from its field differs")
    do {
        let again = try KeyBundle(text: bundle.text)
        fuzzCheck(again == bundle, "KeyBundle(text: b.text) != b")
    } catch {
        fuzzFail("the text of an accepted bundle is refused: \(error)")
    }
}

// MARK: Steps 4–8: opening on the device

/// What steps 4–8 must give for an accepted bundle: decided by the header's provider key id
/// (against the vector file's) and by whether the provider sealed exactly these bytes.
func expectedOpening(_ bundle: KeyBundle) -> Expected {
    guard bundle.header.providerKeyID.hex == expectedProviderKeyID else { return .refused(.unknownProvider) }
    guard let sealed = sealedByProvider[bundle.bytes] else { return .refused(.bundleAuthenticationFailed) }
    switch sealed.input.expected {
    case .opened: return .opened(plaintext: sealed.plaintext)
    case let .refused(reason): return .refused(reason)
    }
}

/// The plaintext of opened contents, from its fields (written here, not taken from the code under test).
func plaintext(of opened: KeyBundleContents) -> [UInt8] {
    var out = opened.key.withUnsafeBytes { Array($0) } + opened.keyID.bytes
    for value in [UInt64(opened.epoch), UInt64(opened.since), opened.retireBy.map { UInt64($0) } ?? UInt64.max, UInt64(opened.expires)] {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
    let cid = Array(opened.conversation.utf8)
    out += [UInt8(cid.count >> 8), UInt8(cid.count & 0xFF)] + cid
    return out + [UInt8](repeating: 0, count: 338 - out.count)
}

func checkOpening(_ bundle: KeyBundle) -> Expected {
    let expected = expectedOpening(bundle)
    do {
        let opened = try bundle.open(device: device, pinnedProviderKeys: pinnedProviderKeys, now: deviceNow)
        if case .opened = expected {
            fuzzCheck(Expected.opened(plaintext: plaintext(of: opened)) == expected, "the bundle opened to other contents than the provider sealed")
        } else {
            // Not sealed by the pinned provider to this device, or sealed so that a later step refuses it.
            fuzzFail("opened a bundle that steps 4-8 refuse with \(expected.inBandCode): \(fuzzHex(bundle.bytes))")
        }
    } catch {
        fuzzCheck(expected == .refused(error.reason), "open threw \(error), expected \(expected.inBandCode) for \(fuzzHex(bundle.bytes))")
    }
    return expected
}

// MARK: In-band: the bundle never prevents opening

/// The key and conversation of Vectors/pushseal-v1.json, held by the device before the bundle.
let heldKey = try! ConversationKey(rawBytes: Hex.decode("0044b03734f1aa80b2f9718b93f1c5dab12d1e93c3a0eb3717c851c935a62a17")!)
let heldConversation = "conv-alice-bob"
/// Test case 1 of Vectors/pushseal-v1.json: an APNs payload sealed under `heldKey`, live at `deviceNow`.
let heldPayload = #"{"aps":{"alert":{"title":"New message","body":"Open the app to read it"},"mutable-content":1,"sound":"default","thread-id":"hH9uhRW_a3HSUzlFr7RQ-g"},"pushseal":"AUZKyFSCy9bzPg1q4aaSTGXZDx9m_zc9ZTPXjL0eYX2eg_AhUJCvd6WgSOOQBsfZj9WxwrWZI_nZhJoPGuoFww50ekaG9ltGJDA7L5dU3AVkpJVZkau4-AMO3c-vShHjqg2ShcmoRV9qsNsI6Uhy1GAjghbl2cKRwnhM6nKFvyfzcDSspIahSxpiwJjSF_lb52BGEDnCZfF1hsZUbchMz37MZzdzBLw6ToY6VzDigJZNQOiSK09DkMl6GOxhNvH6YGmYMR_0jQRitCljd7qC2qEQZAv8oWwpfHTf4RBuCjI-ZFY3eLKJdf14Nj37SzClBkVv_9mAChVe_bR2z7AqLDAtU0WslGiYUHOi5i64WvVjl1mNDlugrIzwYy5QZ7ZO2fyFXDboBwvnHI-yvDWRCmISZS_jp5S23Q"}"#

/// A stateless device: holds `heldKey`; installs a bundle the way the store does (open, the
/// envelope's kid, then the installation rules with no record and nothing stored) without keeping
/// it, so results never depend on earlier inputs. Every delivery is a first one.
struct DeviceKeySource: ReceiverKeySource {
    func lookupKey(_ id: KeyID) -> KeyLookupResult {
        id == heldKey.id ? .found(heldKey, conversation: heldConversation) : .notFound
    }
    func markDelivered(conversation: String, messageID: String, envelope: [UInt8]) -> DeliveryRecord { .first }
    func installKeyBundle(_ bundle: KeyBundle, envelopeKeyID: KeyID) -> KeyBundleOutcome {
        KeyBundleOutcome(Result { () throws(KeyBundleError) in
            let opened = try bundle.open(device: device, pinnedProviderKeys: pinnedProviderKeys, now: deviceNow)
            guard opened.keyID == envelopeKeyID else { throw .envelopeMismatch(envelopeKeyID) }
            return try KeyBundle.installation(of: opened, record: nil, storedUnderKeyID: nil, storedForEpoch: nil, startedAbove: nil, now: deviceNow).installation
        })
    }
}

let receiver = Receiver(keySource: DeviceKeySource(), configuration: ReceiverConfiguration(clock: { deviceNow }))
/// The notification opened without a bundle member: what every in-band variant must match.
let withoutBundle: ReceivedNotification = {
    let result = receiver.open(.json(Array(heldPayload.utf8)))
    fuzzCheck(result.outcome == .decrypted && result.keyBundle == nil, "the held notification does not open: \(String(describing: result.reason))")
    return result
}()

/// `text` as a JSON string literal (every control character, quote and backslash escaped).
func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\u{0}"..."\u{1F}":
            let hex = Array("0123456789abcdef")
            out += "\\u00" + String(hex[Int(scalar.value >> 4)]) + String(hex[Int(scalar.value & 0xF)])
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

func checkInBand(_ text: String, expected: Expected) {
    let member = jsonString(text)
    // Before and after the sealed member: receivers accept it anywhere in the object (SPEC §16.7).
    let first = "{\"pushseal-bundle\":" + member + "," + heldPayload.dropFirst()
    let last = heldPayload.dropLast() + ",\"pushseal-bundle\":" + member + "}"
    for payload in [first, String(last)] {
        checkSameOpening(receiver.open(.json(Array(payload.utf8))), expected: expected, path: "JSON payload")
    }
    var withMember = heldUserInfo()
    withMember["pushseal-bundle"] = .string(text)
    checkSameOpening(receiver.open(.userInfo(withMember)), expected: expected, path: "userInfo")
    checkSameOpening(receiver.open(.fcmData(["pushseal": heldWire, "pushseal-bundle": text])), expected: expected, path: "FCM data map")
}

/// The held payload as an iOS `userInfo` dictionary. Made for each input rather than kept in a
/// global: LeakSanitizer reports the boxes of a global `UserInfoValue` (an indirect enum) as
/// direct leaks, although the global still holds them.
func heldUserInfo() -> [String: UserInfoValue] {
    guard case let .dictionary(info) = UserInfoValue(json: try! JSONParser.parse(Array(heldPayload.utf8), maximumDepth: 16)) else {
        fuzzFail("the held payload is not a dictionary")
    }
    return info
}

/// The held payload's wire string (for an FCM data map).
let heldWire: String = {
    guard case let .string(wire) = heldUserInfo()["pushseal"] else { fuzzFail("the held payload has no wire string") }
    return wire
}()

func checkSameOpening(_ result: ReceivedNotification, expected: Expected, path: String) {
    fuzzCheck(result.outcome == .decrypted && result.reason == nil,
              "\(path): the bundle member (\(expected.inBandCode)) prevented opening: \(String(describing: result.reason))")
    fuzzCheck(result.content.flatMap { try? $0.encoded() } == withoutBundle.content.flatMap { try? $0.encoded() },
              "\(path): the bundle member changed the decrypted content")
    fuzzCheck(result.keyBundle?.code == expected.inBandCode,
              "\(path): bundle outcome \(String(describing: result.keyBundle?.code)), the steps give \(expected.inBandCode)")
}
