@_spi(Vectors) import PushSealCore
@testable import PushSealReceiver
import Testing

@Suite("Display model, duplicates, content-free, fallback text")
struct DisplayModelTests {
    let full = NotificationContent(
        conversationID: conversationA, messageID: "m-42", sentAt: now - 5, title: "Ana", subtitle: "Team", body: "Lunch at 12?",
        sender: .init(id: "user-7", name: "Ana Lima"), thread: "lunch", category: "reply", badge: 3, isTruncated: true,
        extras: ["deeplink": "app://c/A/m-42"])

    @Test("Decrypted content maps onto every display field")
    func mapping() {
        let result = makeReceiver(sourceA()).open(.json(apns(wire: seal(full))))
        #expect(result.outcome == .decrypted)
        #expect(result.reason == nil && result.diagnostic == nil)
        #expect(result.textSource == .content)
        #expect(result.title == .plain("Ana") && result.subtitle == .plain("Team") && result.body == .plain("Lunch at 12?"))
        #expect(result.threadIdentifier == "lunch")
        #expect(result.category == "reply")
        #expect(result.badge == 3)
        #expect(result.sender == .init(id: "user-7", name: "Ana Lima"))
        #expect(result.extras == ["deeplink": "app://c/A/m-42"])
        #expect(result.conversationID == conversationA && result.messageID == "m-42" && result.sentAt == now - 5)
        #expect(result.isTruncated && !result.requiresFetch && !result.isDuplicate)
        #expect(result.keyID == keyA.id)
        #expect(result.content == full)
        #expect(result.contentBytes == nil)
    }

    @Test("Outer fields never leak into a decrypted result; thread defaults to cid")
    func outerIgnoredWhenDecrypted() {
        let payload = #"{"aps":{"alert":"x","thread-id":"outer","category":"outer","badge":99},"pushseal":"\#(validWire)"}"#
        let result = makeReceiver(sourceA()).open(.json(payload))
        #expect(result.threadIdentifier == conversationA)
        #expect(result.category == nil && result.badge == nil)
    }

    @Test("Duplicate: second open of the same (cid, mid) is flagged and still delivered")
    func duplicate() {
        let source = sourceA()
        let receiver = makeReceiver(source)
        let first = receiver.open(.json(apns(wire: validWire)))
        let second = receiver.open(.userInfo(userInfo(pushseal: .string(validWire))))
        #expect(!first.isDuplicate)
        #expect(second.isDuplicate && second.outcome == .decrypted && second.body == first.body)
        // Another message id of the same conversation is not a duplicate.
        #expect(!receiver.open(.json(apns(wire: seal(contentA(mid: "m2"))))).isDuplicate)
        // Previously seen before the first open (vector field `previouslySeen`).
        let seeded = sourceA()
        #expect(seeded.recordPreviousDelivery(conversation: conversationA, messageID: "m1"))
        #expect(!seeded.recordPreviousDelivery(conversation: conversationA, messageID: "m1"))
        #expect(makeReceiver(seeded).open(.json(apns(wire: validWire))).isDuplicate)
    }

    @Test("The in-memory duplicate log compares the pair by UTF-8 bytes, unambiguously")
    func duplicateLogByBytes() {
        let source = sourceA()
        #expect(source.recordPreviousDelivery(conversation: "ab", messageID: "c"))
        // Same concatenation, other split: another pair.
        #expect(source.recordPreviousDelivery(conversation: "a", messageID: "bc"))
        #expect(source.recordPreviousDelivery(conversation: "abc", messageID: ""))
        // Canonically equivalent but different bytes (precomposed and decomposed é): another pair.
        #expect(source.recordPreviousDelivery(conversation: "c", messageID: "caf\u{E9}"))
        #expect(source.recordPreviousDelivery(conversation: "c", messageID: "cafe\u{301}"))
        #expect(source.recordPreviousDelivery(conversation: "caf\u{E9}", messageID: "m"))
        #expect(source.recordPreviousDelivery(conversation: "cafe\u{301}", messageID: "m"))
        // The same bytes again, also from a string built another way (and a long, heap-allocated one).
        #expect(!source.recordPreviousDelivery(conversation: "a" + "b", messageID: "c"))
        #expect(!source.recordPreviousDelivery(conversation: "c", messageID: String(decoding: [0x63, 0x61, 0x66, 0xC3, 0xA9], as: UTF8.self)))
        let long = String(repeating: "m", count: 300)
        #expect(source.markDelivered(conversation: long, messageID: long, envelope: []) == .first)
        #expect(source.markDelivered(conversation: String(repeating: "m", count: 300), messageID: long, envelope: []) == .duplicate)
        #expect(source.markDelivered(conversation: long, messageID: long + "x", envelope: []) == .first)
    }

    @Test("Failed opens are never recorded in the duplicate log")
    func failuresNotRecorded() {
        let source = sourceA()
        let receiver = makeReceiver(source)
        #expect(receiver.open(.json(apns(wire: seal(contentA(ts: now - 90 * 86_400))))).reason == .stale)
        // Same (cid, mid), now fresh: first delivery.
        #expect(!receiver.open(.json(apns(wire: validWire))).isDuplicate)
    }

    @Test("An unavailable duplicate log delivers unflagged")
    func logUnavailable() {
        let source = sourceA()
        source.setDeliveryLogUnavailable("disk full")
        let receiver = makeReceiver(source)
        #expect(receiver.open(.json(apns(wire: validWire))).outcome == .decrypted)
        let again = receiver.open(.json(apns(wire: validWire)))
        #expect(again.outcome == .decrypted && !again.isDuplicate)
    }

    @Test("Content-free wake-and-fetch is exactly 'no body'; an empty body with trunc is truncated, not a fetch (SPEC 9.5, A.3)")
    func contentFree() {
        let receiver = makeReceiver(sourceA(), fallbackText: { reason in
            reason == nil ? FallbackText(title: "Fetching", body: "You have a new message") : .standard
        })
        let emptyTruncated = NotificationContent(conversationID: conversationA, messageID: "m9", sentAt: now, body: "", isTruncated: true)
        for (content, fetch) in [(contentA(body: nil), true), (emptyTruncated, false)] {
            let result = receiver.open(.fcmData(["pushseal": seal(content)]))
            #expect(result.outcome == .decrypted && result.reason == nil)
            #expect(result.requiresFetch == fetch)
            #expect(result.isTruncated == !fetch)
            // Neither has text of its own, so both show the app's text.
            #expect(result.textSource == .appFallback)
            #expect(result.title == .plain("Fetching") && result.body == .plain("You have a new message"))
            #expect(result.conversationID == conversationA && result.threadIdentifier == conversationA)
        }
        // With an APNs placeholder, that is shown.
        let apnsResult = receiver.open(.json(apns(wire: seal(contentA(mid: "m10", body: nil)))))
        #expect(apnsResult.requiresFetch && apnsResult.textSource == .payloadPlaceholder)
        // A truncated but non-empty body is shown, not fetched.
        let truncated = receiver.open(.json(apns(wire: seal(NotificationContent(conversationID: conversationA, messageID: "m11", sentAt: now, body: "Hel…", isTruncated: true)))))
        #expect(!truncated.requiresFetch && truncated.body == .plain("Hel…") && truncated.isTruncated)
    }

    @Test("The app's fallback text is keyed by reason, and can replace the placeholder")
    func appFallbackText() {
        let receiver = makeReceiver(sourceA(), prefersPayloadPlaceholder: false, fallbackText: { reason in
            FallbackText(title: .localized(key: "FALLBACK_TITLE", arguments: []), body: .plain("reason: \(reason?.rawValue ?? "none")"))
        })
        let locked = sourceA()
        locked.setLocked("locked")
        let cases: [(ReceivedNotification, String)] = [
            (receiver.open(.json(apns(wire: tampered(at: 50)))), "reason: authentication_failed"),
            (receiver.open(.json(apns(wire: seal(contentA(), key: keyB)))), "reason: unknown_key"),
            (makeReceiver(locked, prefersPayloadPlaceholder: false, fallbackText: { .init(title: nil, body: "locked? \($0 == .storeLocked)") })
                .open(.json(apns(wire: validWire))), "locked? true"),
        ]
        for (result, body) in cases {
            #expect(result.textSource == .appFallback)
            #expect(result.body == .plain(body))
        }
        #expect(cases[0].0.title == .localized(key: "FALLBACK_TITLE", arguments: []))
        #expect(FallbackText.standard == FallbackText(title: nil, body: "New message"))
    }

    @Test("Configurable freshness window")
    func freshness() {
        let strict = makeReceiver(sourceA(), maximumAge: 60, maximumFutureSkew: 0)
        #expect(strict.open(.json(apns(wire: seal(contentA(mid: "a", ts: now - 60))))).outcome == .decrypted)
        #expect(strict.open(.json(apns(wire: seal(contentA(mid: "b", ts: now - 61))))).reason == .stale)
        #expect(strict.open(.json(apns(wire: seal(contentA(mid: "c", ts: now))))).outcome == .decrypted)
        #expect(strict.open(.json(apns(wire: seal(contentA(mid: "d", ts: now + 1))))).reason == .stale)
        #expect(ReceiverConfiguration().maximumAge == 2_678_400)
        #expect(ReceiverConfiguration().maximumFutureSkew == 600)
        // Extreme clocks never trap.
        for clock: Int64 in [.min, .max, -1] {
            let receiver = Receiver(keySource: sourceA(), configuration: ReceiverConfiguration(clock: { clock }))
            #expect(receiver.open(.json(apns(wire: validWire))).reason == .stale)
        }
    }

    @Test("Exact content bytes only when asked for")
    func contentBytes() throws {
        let bytes = try full.encoded()
        let result = makeReceiver(sourceA(), retainsContentBytes: true).open(.json(apns(wire: seal(full))))
        #expect(result.contentBytes == bytes)
    }

    @Test("Decrypted buffers are zeroed on every path after decryption")
    func zeroing() throws {
        let parsed = ParsedPayload(.json(Array(apns(wire: validWire).utf8)))
        let goodBytes = try contentA().encoded()
        let inputs: [([UInt8], ReasonCode?)] = [
            (goodBytes, nil),
            (Array("not json at all".utf8), .malformedContent),
            (try NotificationContent(conversationID: "other", messageID: "m", sentAt: now, body: "x").encoded(), .conversationMismatch),
            (try contentA(ts: 1).encoded(), .stale),
        ]
        for retain in [false, true] {
            for (input, reason) in inputs {
                var buffer = input
                let receiver = makeReceiver(sourceA(), retainsContentBytes: retain)
                let result = buffer.withUnsafeMutableBytes {
                    receiver.finish(decrypted: $0, conversation: conversationA, retireBy: nil, envelope: [1], keyID: keyA.id, parsed: parsed)
                }
                #expect(result.reason == reason)
                #expect(buffer.count == input.count && buffer.allSatisfy { $0 == 0 })
                if reason == nil { #expect(result.contentBytes == (retain ? input : nil)) }
            }
        }
    }
}
