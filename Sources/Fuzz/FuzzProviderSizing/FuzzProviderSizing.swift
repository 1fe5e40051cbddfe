import FuzzSupport
import PushSealCore
import PushSealProvider
import PushSealReceiver
import PushSealJSON

/// libFuzzer target: the provider's size policy. The input describes a content (every field,
/// arbitrary UTF-8 including quotes, control characters, emoji and combining marks), the
/// transport (APNs or FCM), the pad block and the APNs placeholder and outer fields; the target
/// seals it with `NotificationSealer`.
///
/// Properties (violations trap, so libFuzzer reports them):
/// - sealing either succeeds or throws a *clear* `ProviderError` that matches the input: an
///   invalid content is `invalidContent`, bad options are what `validate()` says, `doesNotFit`
///   only when not even the content-free payload fits; `internalInconsistency` never happens;
/// - a sealed payload never exceeds its limit: the APNs body, or the FCM data map
///   (`"pushseal"` + wire), is at most 4096 bytes, measured independently of `SealSizes`, which
///   must agree; the payload is strict JSON;
/// - the payload opens with the receiver to exactly what the size policy promises: the whole
///   content (`complete`); the same content with `body` = a grapheme-cluster prefix + `…` and
///   `trunc: true`, where the whole content did not fit and the next longer prefix would not
///   either (`truncated`); or only `cid`, `mid`, `ts` when not even body `…` fits (`contentFree`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProviderSizingTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeRawBufferPointer(start: size > 0 ? UnsafeRawPointer(data) : nil, count: size))
    let scenario = Scenario(&input)
    check(scenario)
    return 0
}

let key = try! ConversationKey(rawBytes: Hex.decode("0044b03734f1aa80b2f9718b93f1c5dab12d1e93c3a0eb3717c851c935a62a17")!)

// MARK: Input

/// Reads fields from the fuzzer's bytes; past the end everything is zero or empty.
struct FuzzInput {
    var bytes: [UInt8]
    var offset = 0
    init(_ buffer: UnsafeRawBufferPointer) { bytes = Array(buffer) }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }
    mutating func integer(bytes count: Int) -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<count { value = value << 8 | UInt64(byte()) }
        return value
    }
    /// A length-prefixed (2 bytes) string; invalid UTF-8 is repaired, as a Swift caller's would be.
    mutating func string() -> String {
        let length = min(Int(integer(bytes: 2)), bytes.count - min(offset, bytes.count))
        defer { offset += length }
        return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
    }
}

struct Scenario {
    var content: NotificationContent
    var fcm: Bool
    var padBlock: Int
    var apns: APNsOptions
    var fcmOptions: FCMOptions

    init(_ input: inout FuzzInput) {
        let flags = input.byte(), more = input.byte()
        fcm = flags & 1 != 0
        padBlock = Int(input.integer(bytes: 2) % 4097)   // 0 is invalid on purpose
        let ts = Int64(input.integer(bytes: 5)) % 300_000_000_000
        let cid = input.string(), mid = input.string(), body = input.string()
        content = NotificationContent(conversationID: cid, messageID: mid, sentAt: ts, body: more & 0x04 != 0 ? nil : body)
        if flags & 0x02 != 0 { content.title = input.string() }
        if flags & 0x04 != 0 { content.subtitle = input.string() }
        if flags & 0x08 != 0 { content.sender = .init(id: input.string(), name: flags & 0x10 != 0 ? input.string() : nil) }
        if flags & 0x20 != 0 { content.thread = input.string() }
        if flags & 0x40 != 0 { content.category = input.string() }
        if flags & 0x80 != 0 { content.badge = Int64(input.integer(bytes: 4)) - 1 }
        content.isTruncated = more & 0x01 != 0
        if more & 0x02 != 0 {
            for _ in 0..<Int(input.byte() % 8) { content.extras[input.string()] = input.string() }
        }
        let placeholderBody = more & 0x08 != 0 ? input.string() : "New message"
        let placeholderTitle = more & 0x10 != 0 ? input.string() : nil
        let placeholder: APNsOptions.Placeholder = more & 0x80 != 0
            ? .localized(titleKey: placeholderTitle, titleArguments: [], bodyKey: placeholderBody, bodyArguments: [input.string()])
            : .text(title: placeholderTitle, body: placeholderBody)
        apns = APNsOptions(placeholder: placeholder)
        if more & 0x20 != 0 { apns.sound = input.string() }
        if more & 0x40 != 0 { apns.collapseID = input.string() }
        fcmOptions = FCMOptions(token: "fuzz-token-" + String(input.integer(bytes: 2)))
    }
}

// MARK: Properties

struct Sealed {
    let payload: [UInt8]
    let path: SealPath
    let sizes: SealSizes
}

func seal(_ content: NotificationContent, _ scenario: Scenario, sealer: NotificationSealer) -> Result<Sealed, ProviderError> {
    do {
        if scenario.fcm {
            let message = try sealer.seal(content, with: key, options: scenario.fcmOptions)
            return .success(Sealed(payload: message.body, path: message.path, sizes: message.sizes))
        }
        let request = try sealer.seal(content, with: key, options: scenario.apns)
        return .success(Sealed(payload: request.body, path: request.path, sizes: request.sizes))
    } catch {
        return .failure(error)
    }
}

/// The complete-content size at minimal fit (nil: it does not fit whole).
func fitsWhole(_ content: NotificationContent, _ scenario: Scenario, sealer: NotificationSealer) -> Bool {
    scenario.fcm
        ? sealer.fcmDataByteCount(ofComplete: content, options: scenario.fcmOptions) != nil
        : sealer.apnsBodyByteCount(ofComplete: content, key: key, options: scenario.apns) != nil
}

func isContentFreeShape(_ c: NotificationContent) -> Bool {
    c.body == nil && c.title == nil && c.subtitle == nil && c.sender == nil && c.thread == nil && c.category == nil
        && c.badge == nil && !c.isTruncated && c.extras.isEmpty
}

func check(_ scenario: Scenario) {
    let sealer: NotificationSealer
    do {
        sealer = try NotificationSealer(padBlock: scenario.padBlock)
    } catch {
        fuzzCheck(error == .invalidPadBlock(scenario.padBlock) && !(1...4096).contains(scenario.padBlock), "pad block error \(error)")
        return
    }
    let content = scenario.content
    switch seal(content, scenario, sealer: sealer) {
    case let .failure(error):
        checkFailure(error, scenario, sealer: sealer)
    case let .success(sealed):
        checkSealed(sealed, scenario, sealer: sealer)
    }
}

func checkFailure(_ error: ProviderError, _ scenario: Scenario, sealer: NotificationSealer) {
    let content = scenario.content
    switch error {
    case .invalidContent:
        let invalid = (try? content.validate()) == nil || (content.body == nil && !isContentFreeShape(content))
        fuzzCheck(invalid, "invalidContent (\(error)) for a valid content")
    case .doesNotFit(let byteCount, let limit):
        fuzzCheck(byteCount > limit && limit == 4096, "doesNotFit(\(byteCount), \(limit))")
        // Not even the content-free form fits with these options.
        if case .success = seal(content.contentFree, scenario, sealer: sealer) {
            fuzzFail("doesNotFit, yet the content-free form seals")
        }
    case .internalInconsistency(let detail):
        fuzzFail("internal inconsistency: \(detail)")
    default:
        // Option errors: validate() must report the same thing.
        do {
            if scenario.fcm { try scenario.fcmOptions.validate() } else { try scenario.apns.validate() }
            fuzzFail("sealing failed with \(error), but the options validate")
        } catch let validationError {
            fuzzCheck(validationError == error, "sealing failed with \(error), validate() says \(validationError)")
        }
    }
}

func checkSealed(_ sealed: Sealed, _ scenario: Scenario, sealer: NotificationSealer) {
    let content = scenario.content
    fuzzCheck((try? content.validate()) != nil, "sealed an invalid content")
    fuzzCheck(sealed.sizes.limit == 4096, "limit \(sealed.sizes.limit)")
    fuzzCheck(sealed.sizes.payloadByteCount == sealed.payload.count, "payloadByteCount \(sealed.sizes.payloadByteCount) != \(sealed.payload.count)")
    fuzzCheck(sealed.sizes.limitedByteCount <= 4096, "limitedByteCount \(sealed.sizes.limitedByteCount) over the limit")

    // Measure independently from the payload itself.
    let value: JSONValue
    do { value = try JSONParser.parse(sealed.payload, maximumDepth: 16) } catch {
        fuzzFail("payload is not strict JSON: \(error)")
    }
    let wire: String?
    if scenario.fcm {
        wire = value.objectValue?["message"]?.objectValue?["data"]?.objectValue?["pushseal"]?.stringValue
        let data = value.objectValue?["message"]?.objectValue?["data"]?.objectValue
        let dataBytes = data?.members.reduce(0) { $0 + $1.name.utf8.count + ($1.value.stringValue?.utf8.count ?? 10_000) } ?? 10_000
        fuzzCheck(dataBytes <= 4096, "FCM data map is \(dataBytes) bytes")
        fuzzCheck(dataBytes == sealed.sizes.limitedByteCount, "FCM data map \(dataBytes) != limitedByteCount \(sealed.sizes.limitedByteCount)")
    } else {
        wire = value.objectValue?["pushseal"]?.stringValue
        fuzzCheck(sealed.payload.count <= 4096, "APNs body is \(sealed.payload.count) bytes")
        fuzzCheck(sealed.payload.count == sealed.sizes.limitedByteCount, "APNs limitedByteCount")
    }
    guard let wire else { fuzzFail("no pushseal string in the payload") }
    fuzzCheck(wire.utf8.count == sealed.sizes.wireLength, "wireLength")

    // Open it, and compare with the promise of the path.
    let receiver = Receiver(
        keySource: SingleConversationKey(key: key, conversation: content.conversationID),
        configuration: ReceiverConfiguration(clock: { [ts = content.sentAt] in ts }))
    let opened = receiver.open(.json(sealed.payload))
    guard opened.outcome == .decrypted, let got = opened.content else {
        fuzzFail("a sealed payload does not open: \(String(describing: opened.reason)) \(opened.diagnostic ?? "")")
    }
    fuzzCheck(sealed.sizes.contentByteCount == (try? got.encoded())?.count, "contentByteCount")
    switch sealed.path {
    case .complete:
        fuzzCheck(sameEncoding(got, content), "complete path changed the content")
    case let .truncated(originalLength):
        guard let original = content.body, let shortened = got.body else { fuzzFail("truncated without a body") }
        fuzzCheck(originalLength == original.utf8.count, "originalBodyLength")
        fuzzCheck(!fitsWhole(content, scenario, sealer: sealer), "truncated although the whole content fits")
        fuzzCheck(got.isTruncated && shortened.hasSuffix("\u{2026}"), "truncated body without … or trunc")
        let prefix = Array(shortened.utf8.dropLast(3))
        var expected = got
        expected.body = content.body
        expected.isTruncated = content.isTruncated
        fuzzCheck(sameEncoding(expected, content), "truncation changed other fields")
        // A prefix at a grapheme-cluster boundary of the original body (walk only as far as needed).
        var characters = original.makeIterator()
        var boundary = 0
        while boundary < prefix.count, let character = characters.next() { boundary += character.utf8.count }
        fuzzCheck(boundary == prefix.count && original.utf8.starts(with: prefix), "prefix is not at a grapheme boundary of the body")
        // Maximal: one more grapheme (with …) does not fit.
        if let next = characters.next() {
            var longer = got
            longer.body = String(decoding: prefix, as: UTF8.self) + String(next) + "\u{2026}"
            fuzzCheck(!fitsWhole(longer, scenario, sealer: sealer), "a longer prefix would have fitted")
        }
    case .contentFree:
        fuzzCheck(sameEncoding(got, content.contentFree), "content-free path sealed more than cid, mid, ts")
        fuzzCheck(!fitsWhole(content, scenario, sealer: sealer), "content-free although the whole content fits")
        if content.body != nil {
            var shortest = content
            shortest.body = "\u{2026}"
            shortest.isTruncated = true
            fuzzCheck(!fitsWhole(shortest, scenario, sealer: sealer), "content-free although body … fits")
        }
    }
}

/// Same deterministic encoding (without validation or the size limit: the original content may
/// be far larger than 4000 bytes).
func sameEncoding(_ a: NotificationContent, _ b: NotificationContent) -> Bool {
    var x = JSONWriter(), y = JSONWriter()
    a.writeJSON(to: &x)
    b.writeJSON(to: &y)
    return x.bytes == y.bytes
}
