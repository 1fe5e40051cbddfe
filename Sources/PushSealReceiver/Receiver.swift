import PushSealCore
import PushSealJSON

/// Opens PushSeal notifications: locates the envelope, finds the one key it names, decrypts, and
/// checks the content — in exactly the order of SPEC 10.2, stopping at the first failure — and
/// returns what to display. Never throws, never traps on any input.
///
/// ```swift
/// let receiver = Receiver(keySource: SingleConversationKey(key: key, conversation: "c1"))
/// let shown = receiver.open(.json(payloadBytes))
/// if shown.outcome == .decrypted { … } else { log(shown.reason!) }
/// ```
public struct Receiver: Sendable {
    /// Where keys come from and deliveries are recorded.
    public let keySource: any ReceiverKeySource
    /// Freshness limits, clock and fallback text.
    public var configuration: ReceiverConfiguration

    /// A receiver over `keySource`.
    public init(keySource: any ReceiverKeySource, configuration: ReceiverConfiguration = ReceiverConfiguration()) {
        self.keySource = keySource
        self.configuration = configuration
    }

    // MARK: Opening

    /// Opens a payload in any form: raw JSON bytes (`.json`), an iOS
    /// `userInfo` dictionary, or an FCM data map.
    public func open(_ payload: ReceiverPayload) -> ReceivedNotification {
        open(ParsedPayload(payload))
    }

    /// Opens a payload that was already parsed (see ``ParsedPayload``). Steps 2–12 of SPEC 10.2.
    public func open(_ parsed: ParsedPayload) -> ReceivedNotification {
        // 1–2. Locating the sealed member (done by ParsedPayload).
        // 2–4. Strict base64url, version, length.
        let envelope: Envelope
        do {
            switch parsed.sealed {
            case let .absent(why):
                guard configuration.passesThroughUnsealed else {
                    // The app's own text: an unsealed payload's alert is whatever its sender chose.
                    return ReceivedNotification(
                        fallback: configuration.fallbackText(.notSealed), source: .appFallback, reason: .notSealed,
                        outer: parsed.outer, keyID: nil, diagnostic: why)
                }
                let (text, source) = fallbackText(parsed, .notSealed)
                return ReceivedNotification(
                    fallback: text, source: source, reason: .notSealed, outer: parsed.outer, keyID: nil, diagnostic: why,
                    isPassThrough: true)
            case .duplicated: return fallback(parsed, .malformedEnvelope, keyID: nil, "the \"pushseal\" member occurs more than once")
            case let .notString(kind): return fallback(parsed, .malformedEnvelope, keyID: nil, "the \"pushseal\" member is \(kind), not a string")
            case let .wire(string): envelope = try Envelope(wire: string)
            // Decoded by the payload scan: the version and length checks of Envelope(wire:) remain.
            case let .envelope(bytes): envelope = try Envelope(bytes: bytes)
            }
        } catch {
            return fallback(parsed, error.reason, keyID: nil, error.description)
        }
        // SPEC 16.7: an in-band key bundle is installed first, only when it carries the envelope's
        // key; its outcome is recorded and never changes how the envelope is opened.
        let bundleOutcome = installBundle(parsed.bundle, envelopeKeyID: envelope.keyID)
        var opened = open(envelope, parsed)
        opened.keyBundle = bundleOutcome
        return opened
    }

    /// Runs SPEC 16.5 on the payload's key bundle member, if any (before the key lookup).
    private func installBundle(_ member: ParsedPayload.BundleMember?, envelopeKeyID: KeyID) -> KeyBundleOutcome? {
        switch member {
        case nil: return nil
        case let .notString(kind): return .refused(.malformedBundle("the \"pushseal-bundle\" member is \(kind), not a string"))
        case let .text(text):
            do throws(KeyBundleError) {
                return keySource.installKeyBundle(try KeyBundle(text: text), envelopeKeyID: envelopeKeyID)
            } catch {
                return .refused(error)
            }
        }
    }

    /// Steps 5–11 for a parsed envelope.
    private func open(_ envelope: Envelope, _ parsed: ParsedPayload) -> ReceivedNotification {
        let keyID = envelope.keyID

        // 5–6. The one key the header names.
        let key: ConversationKey
        let conversation: String
        let retireBy: Int64?
        switch keySource.lookupKey(keyID) {
        case .notFound:
            return fallback(parsed, .unknownKey, keyID: keyID, "no key with id \(keyID)")
        case let .locked(why):
            return fallback(parsed, .storeLocked, keyID: keyID, "key store locked or unavailable: \(why)")
        case let .found(foundKey, foundConversation, foundRetireBy):
            key = foundKey
            conversation = foundConversation
            retireBy = foundRetireBy
        }

        // 7. Authenticate and decrypt; 8 (padding, size) happens inside. The decrypted bytes are
        // zeroed on every path before the buffer is freed: here when opening fails, by `finish`
        // otherwise (after the content the padding is 0x80 and zeros, nothing secret).
        let plaintext = UnsafeMutableRawBufferPointer.allocate(byteCount: envelope.paddedContentByteCount, alignment: 16)
        defer { plaintext.deallocate() }
        let contentCount: Int
        do {
            contentCount = try envelope.openContent(with: key, into: plaintext)
        } catch {
            SecureMemory.wipe(plaintext)
            return fallback(parsed, error.reason, keyID: keyID, Self.safeDiagnostic(error))
        }
        return finish(decrypted: UnsafeMutableRawBufferPointer(rebasing: plaintext[..<contentCount]), conversation: conversation, retireBy: retireBy, envelope: envelope.bytes, keyID: keyID, parsed: parsed)
    }

    /// Steps 8–12 on decrypted content bytes. On every path the bytes are zeroed before this
    /// returns (a copy is kept only with ``ReceiverConfiguration/retainsContentBytes``).
    func finish(
        decrypted mutableBytes: UnsafeMutableRawBufferPointer, conversation: String, retireBy: Int64?, envelope: [UInt8], keyID: KeyID,
        parsed: ParsedPayload
    ) -> ReceivedNotification {
        defer { SecureMemory.wipe(mutableBytes) }
        let bytes = UnsafeRawBufferPointer(mutableBytes)

        // 8. Strict JSON and schema.
        let content: NotificationContent
        do {
            content = try NotificationContent(decodingContiguous: bytes)
        } catch {
            return fallback(parsed, .malformedContent, keyID: keyID, Self.safeDiagnostic(.malformedContent(error)))
        }

        // 9. Conversation binding, byte for byte.
        guard UTF8Bytes.equal(content.conversationID, conversation) else {
            return fallback(parsed, .conversationMismatch, keyID: keyID, "the content names another conversation than the key is stored for")
        }

        // 10. Freshness, boundaries inclusive.
        let now = configuration.clock()
        let (age, ageOverflow) = now.subtractingReportingOverflow(content.sentAt)
        let (ahead, aheadOverflow) = content.sentAt.subtractingReportingOverflow(now)
        if !ageOverflow && age > configuration.maximumAge {
            return fallback(parsed, .stale, keyID: keyID, "sent more than \(configuration.maximumAge) s ago")
        }
        if ageOverflow || aheadOverflow || ahead > configuration.maximumFutureSkew {
            return fallback(parsed, .stale, keyID: keyID, "sent more than \(configuration.maximumFutureSkew) s in the future")
        }

        // 11. Retirement: a key retired at `retireBy` seals nothing later (plus the skew allowance),
        // so a holder of the old key (a removed member) cannot forge a fresh notification with it.
        if let retireBy {
            let (limit, overflow) = retireBy.addingReportingOverflow(configuration.maximumFutureSkew)
            if !overflow && content.sentAt > limit {
                return fallback(parsed, .retiredKey, keyID: keyID, OpenError.retiredKey(sentAt: content.sentAt, retireBy: retireBy).description)
            }
        }

        // 12. Success; duplicate and conflict flags from the log.
        let record = keySource.markDelivered(conversation: content.conversationID, messageID: content.messageID, envelope: envelope)
        let retained = configuration.retainsContentBytes ? Array(bytes) : nil
        return decrypted(
            consume content, bytes: retained, isDuplicate: record == .duplicate || record == .conflict, isConflict: record == .conflict,
            keyID: keyID, parsed: parsed)
    }

    // MARK: Results

    /// The best attempt for a payload whose opening has not finished: fallback text from the
    /// payload's outer fields (or the app's text for no reason), prepared without any key.
    public func bestAttempt(for parsed: ParsedPayload) -> ReceivedNotification {
        fallback(parsed, nil, keyID: nil, "the deadline expired before the notification was opened")
    }

    /// The best attempt when not even the payload is known: the app's text for no reason.
    public func bestAttemptWithoutPayload() -> ReceivedNotification {
        ReceivedNotification(fallback: configuration.fallbackText(nil), source: .appFallback, reason: nil, outer: .none,
                             keyID: nil, diagnostic: "the deadline expired before the notification was parsed")
    }

    private func fallbackText(_ parsed: ParsedPayload, _ reason: ReasonCode?) -> (FallbackText, ReceivedNotification.TextSource) {
        if configuration.prefersPayloadPlaceholder, let placeholder = parsed.outer.placeholder {
            return (placeholder, .payloadPlaceholder)
        }
        return (configuration.fallbackText(reason), .appFallback)
    }

    private func fallback(_ parsed: ParsedPayload, _ reason: ReasonCode?, keyID: KeyID?, _ diagnostic: String) -> ReceivedNotification {
        let (text, source) = fallbackText(parsed, reason)
        return ReceivedNotification(fallback: text, source: source, reason: reason, outer: parsed.outer, keyID: keyID, diagnostic: diagnostic)
    }

    private func decrypted(
        _ content: consuming NotificationContent, bytes: [UInt8]?, isDuplicate: Bool, isConflict: Bool, keyID: KeyID, parsed: ParsedPayload
    ) -> ReceivedNotification {
        // SPEC 9.5 and A.3: the one content-free rule is "no body"; `trunc` only marks a shortened
        // body (an empty one included), never a fetch request.
        let requiresFetch = content.requiresFetch
        let hasText = !(content.title ?? "").isEmpty || !(content.subtitle ?? "").isEmpty || !(content.body ?? "").isEmpty
        // The content's own text, or (no text to show) the fallback text.
        return ReceivedNotification(
            decrypted: content, fallback: requiresFetch || !hasText ? fallbackText(parsed, nil) : nil, requiresFetch: requiresFetch,
            isDuplicate: isDuplicate, isConflict: isConflict, keyID: keyID, contentBytes: bytes)
    }

    // MARK: Diagnostics without plaintext

    /// Schema paths a diagnostic may name; anything else (an `x` member name) is content.
    private static let schemaFields: Set<String> = ["cid", "mid", "ts", "title", "subtitle", "body", "sender", "sender.id",
                                                   "sender.name", "thread", "category", "badge", "trunc", "x"]

    /// Describes an error from decryption or later without any decrypted byte: parser messages
    /// (which quote member names), `x` member names and values, and lengths are left out.
    static func safeDiagnostic(_ error: OpenError) -> String {
        switch error {
        case .malformedContent(let contentError):
            let detail: String
            switch contentError {
            case .invalidPadding: detail = "invalid padding"
            case .tooLarge: detail = "longer than \(NotificationContent.maximumByteCount) bytes"
            case .invalidJSON: detail = "not strict JSON"
            case .notAnObject: detail = "not a JSON object"
            case let .missingField(field): detail = "required field \(safeField(field)) missing"
            case let .wrongType(field, _): detail = "field \(safeField(field)) has the wrong type"
            case let .outOfRange(field, _): detail = "field \(safeField(field)) out of range"
            }
            return "malformed content: \(detail)"
        case .unknownKey:
            return "the key source returned a key whose id differs from the envelope's"
        default:
            return error.description
        }
    }

    private static func safeField(_ field: String) -> String {
        if schemaFields.contains(where: { $0.utf8.elementsEqual(field.utf8) }) { return "\"\(field)\"" }
        return "in \"x\""
    }
}
