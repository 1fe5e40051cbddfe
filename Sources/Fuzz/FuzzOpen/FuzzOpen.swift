import FuzzSupport
import PushSealCore
import PushSealReceiver
import PushSealJSON

/// libFuzzer target: the whole receiver open path from raw payload bytes
/// (`Receiver.open(.json(_:))`), with the key of Vectors/pushseal-v1.json so that the vector
/// payloads in the seed corpus decrypt and mutations of them reach every later check.
///
/// Properties checked on every input:
/// - the result is consistent: decrypted ⇔ no reason; a fallback is never flagged duplicate and
///   carries no content, content bytes, ids, sender or extras;
/// - **a fallback never contains decrypted bytes**: when the envelope decrypts under the key,
///   no string of the plaintext (nor any 12-byte window of it) appears in the fallback's title,
///   subtitle, body, thread, category or diagnostic unless it is also in the raw payload (outer
///   fields are visible anyway) or in the receiver's fixed wording;
/// - the reason agrees with an independent composition of the core checks in SPEC 10.2 order
///   (locate the member, `Envelope(wire:)`, kid, AEAD + padding, content schema, conversation,
///   freshness) whenever the payload's sealed member can be located without the receiver's help;
/// - a decrypted result carries exactly the plaintext bytes and the same content;
/// - the same wire opened as an FCM data map gives the same reason;
/// - the receiver's fast scan of the usual payload only claims payloads the strict parser locates
///   the same way, with the same envelope bytes;
/// - the payload converted to an iOS `userInfo` dictionary (the other input path) gives the same
///   reason, text, thread and category, whenever the conversion is lossless.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = [UInt8](UnsafeRawBufferPointer(start: size > 0 ? UnsafeRawPointer(data) : nil, count: size))
    let result = receiver.open(.json(input))
    checkConsistency(result)

    let located = locateWire(input)
    var plaintext: [UInt8]?
    if case let .wire(wire) = located {
        plaintext = decryptIndependently(wire)
        let expected = expectedReason(wire: wire)
        fuzzCheck(result.reason == expected.reason,
                  "receiver says \(String(describing: result.reason)), core composition says \(String(describing: expected.reason)) for \(fuzzHex(input))")
        if let content = expected.content, result.outcome == .decrypted {
            fuzzCheck(result.contentBytes == plaintext, "decrypted content bytes differ from the plaintext")
            fuzzCheck(result.content.flatMap { try? $0.encoded() } == (try? content.encoded()), "decrypted content differs")
        }
        let viaFCM = receiver.open(.fcmData(["pushseal": wire]))
        checkConsistency(viaFCM)
        fuzzCheck(viaFCM.reason == expected.reason, "FCM data map path says \(String(describing: viaFCM.reason)), expected \(String(describing: expected.reason))")
        if viaFCM.outcome == .fallback, let plaintext { checkNoPlaintext(viaFCM, plaintext: plaintext, raw: input) }
    } else if case let .reason(reason) = located {
        fuzzCheck(result.reason == reason, "receiver says \(String(describing: result.reason)), expected \(reason) for \(fuzzHex(input))")
    }
    if result.outcome == .fallback, let plaintext {
        checkNoPlaintext(result, plaintext: plaintext, raw: input)
    }
    checkFastScan(input, located: located)
    checkUserInfoPath(input, result: result)
    return 0
}

/// The receiver's fast scan of the usual payload (`JSONParser.scanSealedPayload`) may only claim
/// payloads the strict parser accepts without duplicates, with a top-level `pushseal` string
/// whose strict decoding is the envelope it returns.
func checkFastScan(_ input: [UInt8], located: Located) {
    guard let layout = input.withUnsafeBytes({ JSONParser.scanSealedPayload($0, maximumDepth: 16) }) else { return }
    guard case let .wire(wire) = located else {
        fuzzFail("the fast scan claims a payload the strict parser locates as \(located): \(fuzzHex(input))")
    }
    fuzzCheck((try? Base64URL.decode(wire)) == layout.envelope, "the fast scan's envelope is not the wire's decoding")
}

/// The same payload as an iOS `userInfo` dictionary takes the receiver's other input path; for
/// payloads that convert without loss (strict JSON, no two names that Swift's `String` equality
/// merges) the reason and everything shown must be the same.
func checkUserInfoPath(_ input: [UInt8], result: ReceivedNotification) {
    guard let value = try? JSONParser.parse(input, maximumDepth: 16), case .object = value, !mergesNames(value),
          case let .dictionary(info) = UserInfoValue(json: value) else { return }
    let viaUserInfo = receiver.open(.userInfo(info))
    fuzzCheck(viaUserInfo.reason == result.reason && viaUserInfo.outcome == result.outcome,
              "userInfo path: \(String(describing: viaUserInfo.reason)), JSON path: \(String(describing: result.reason)) for \(fuzzHex(input))")
    fuzzCheck(viaUserInfo.title == result.title && viaUserInfo.subtitle == result.subtitle && viaUserInfo.body == result.body
              && viaUserInfo.textSource == result.textSource, "userInfo and JSON paths show different text for \(fuzzHex(input))")
    fuzzCheck(viaUserInfo.threadIdentifier == result.threadIdentifier && viaUserInfo.category == result.category,
              "userInfo and JSON paths give different thread or category for \(fuzzHex(input))")
}

/// True when some object has two member names that are different bytes but equal Swift strings
/// (canonical equivalence): a dictionary keeps only one of them.
func mergesNames(_ value: JSONValue) -> Bool {
    switch value {
    case let .array(elements): return elements.contains(where: mergesNames)
    case let .object(object):
        return Set(object.members.map(\.name)).count != object.members.count || object.members.contains { mergesNames($0.value) }
    default: return false
    }
}

// MARK: The fixed receiver

/// The key and conversation of Vectors/pushseal-v1.json.
let vectorKey = try! ConversationKey(rawBytes: Hex.decode("0044b03734f1aa80b2f9718b93f1c5dab12d1e93c3a0eb3717c851c935a62a17")!)
let vectorConversation = "conv-alice-bob"
let vectorNow: Int64 = 1_764_400_000

/// A stateless key source: the vector key by its id, nothing else; every delivery is a first one
/// (a growing duplicate log would make results depend on earlier inputs).
struct FixedKeySource: ReceiverKeySource {
    func lookupKey(_ id: KeyID) -> KeyLookupResult {
        id == vectorKey.id ? .found(vectorKey, conversation: vectorConversation) : .notFound
    }
    func markDelivered(conversation: String, messageID: String, envelope: [UInt8]) -> DeliveryRecord { .first }
}

let configuration = ReceiverConfiguration(clock: { vectorNow }, retainsContentBytes: true)
let receiver = Receiver(keySource: FixedKeySource(), configuration: configuration)

// MARK: Properties

func checkConsistency(_ result: ReceivedNotification) {
    switch result.outcome {
    case .decrypted:
        fuzzCheck(result.reason == nil, "decrypted with reason \(String(describing: result.reason))")
        fuzzCheck(result.content != nil && result.conversationID != nil, "decrypted without content")
    case .fallback:
        fuzzCheck(result.reason != nil, "fallback without a reason outside the deadline path")
        fuzzCheck(!result.isDuplicate, "fallback flagged duplicate")
        fuzzCheck(result.textSource != .content, "fallback text from the content")
        fuzzCheck(result.content == nil && result.contentBytes == nil, "fallback carries content")
        fuzzCheck(result.conversationID == nil && result.messageID == nil && result.sentAt == nil, "fallback carries ids")
        fuzzCheck(result.sender == nil && result.extras.isEmpty, "fallback carries sender or extras")
        fuzzCheck(!result.requiresFetch && !result.isTruncated, "fallback carries content flags")
    }
}

/// Words the receiver's own diagnostics and fallback text are made of: a plaintext string found
/// inside these is not a leak.
let vocabulary: [UInt8] = Array("""
    malformed content: invalid padding; longer than 4000 bytes; not strict JSON; not a JSON object; \
    required field missing; field has the wrong type; out of range; in "x"; "cid" "mid" "ts" "title" \
    "subtitle" "body" "sender" "sender.id" "sender.name" "thread" "category" "badge" "trunc"; \
    the content names another conversation than the key is stored for; sent more than 2678400 s ago; \
    sent more than 600 s in the future; authentication failed: wrong key or tampered envelope; New message
    """.utf8)

func contains(_ haystack: [UInt8], _ needle: ArraySlice<UInt8>) -> Bool {
    guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
    let first = needle.first!
    var index = 0
    while index + needle.count <= haystack.count {
        if haystack[index] == first && haystack[index..<index + needle.count].elementsEqual(needle) { return true }
        index += 1
    }
    return false
}

func checkNoPlaintext(_ result: ReceivedNotification, plaintext: [UInt8], raw: [UInt8]) {
    var shown: [[UInt8]] = [result.title, result.subtitle, Optional(result.body)].compactMap { $0 }.flatMap { text -> [[UInt8]] in
        switch text {
        case let .plain(string): [Array(string.utf8)]
        case let .localized(key, arguments): [Array(key.utf8)] + arguments.map { Array($0.utf8) }
        }
    }
    shown += [result.threadIdentifier, result.category, result.diagnostic].compactMap { $0.map { Array($0.utf8) } }
    let leaked = { (candidate: ArraySlice<UInt8>) -> Bool in
        shown.contains { contains($0, candidate) } && !contains(raw, candidate) && !contains(vocabulary, candidate)
    }
    // Every string the plaintext holds, when it parses (names too: they are content).
    if let value = try? JSONParser.parseKeepingDuplicateNames(plaintext, maximumDepth: 64) {
        for string in strings(in: value) where string.count >= 3 {
            fuzzCheck(!leaked(string[...]), "fallback (\(String(describing: result.reason))) shows decrypted text \(fuzzHex(string))")
        }
    }
    // And every 12-byte window of the plaintext, parsed or not.
    let window = 12
    if plaintext.count >= window {
        var windows = Set<ArraySlice<UInt8>>()
        for text in shown where text.count >= window {
            for start in 0...(text.count - window) { windows.insert(text[start..<start + window]) }
        }
        if !windows.isEmpty {
            for start in 0...(plaintext.count - window) {
                let candidate = plaintext[start..<start + window]
                if windows.contains(candidate) {
                    fuzzCheck(!leaked(candidate), "fallback (\(String(describing: result.reason))) shows decrypted bytes \(fuzzHex(candidate))")
                }
            }
        }
    }
}

func strings(in value: JSONValue) -> [[UInt8]] {
    switch value {
    case let .string(text): [Array(text.utf8)]
    case let .array(elements): elements.flatMap(strings(in:))
    case let .object(object): object.members.flatMap { [Array($0.name.utf8)] + strings(in: $0.value) }
    default: []
    }
}

// MARK: The independent composition of SPEC 10.2

enum Located {
    /// The sealed member is this string.
    case wire(String)
    /// Steps 1–2 decide without a wire string.
    case reason(ReasonCode)
    /// Not decidable here (duplicate names, the FCM message form): no expectation.
    case unknown
}

/// SPEC 10.1 for the APNs form, with the strict core parser: a top-level `pushseal` member.
func locateWire(_ input: [UInt8]) -> Located {
    let value: JSONValue
    do {
        value = try JSONParser.parse(input, maximumDepth: 16)
    } catch {
        // A duplicate name may be the sealed member's (malformed_envelope): leave it to the receiver.
        if (try? JSONParser.parseKeepingDuplicateNames(input, maximumDepth: 16)) != nil { return .unknown }
        return .reason(.notSealed)
    }
    guard case let .object(object) = value else { return .reason(.notSealed) }
    guard let sealed = object["pushseal"] else {
        return object["message"] == nil ? .reason(.notSealed) : .unknown
    }
    guard case let .string(wire) = sealed else { return .reason(.malformedEnvelope) }
    return .wire(wire)
}

func decryptIndependently(_ wire: String) -> [UInt8]? {
    guard let envelope = try? Envelope(wire: wire) else { return nil }
    return try? envelope.open(with: vectorKey)
}

/// Steps 2–10 composed from the core API.
func expectedReason(wire: String) -> (reason: ReasonCode?, content: NotificationContent?) {
    let envelope: Envelope
    do { envelope = try Envelope(wire: wire) } catch { return (error.reason, nil) }
    guard envelope.keyID == vectorKey.id else { return (.unknownKey, nil) }
    let bytes: [UInt8]
    do { bytes = try envelope.open(with: vectorKey) } catch { return (error.reason, nil) }
    let content: NotificationContent
    do { content = try NotificationContent(decoding: bytes) } catch { return (.malformedContent, nil) }
    guard content.conversationID.utf8.elementsEqual(vectorConversation.utf8) else { return (.conversationMismatch, nil) }
    let age = vectorNow - content.sentAt  // ts ≤ 253402300799: no overflow
    if age > ReceiverConfiguration.defaultMaximumAge || -age > ReceiverConfiguration.defaultMaximumFutureSkew {
        return (.stale, nil)
    }
    return (nil, content)
}
