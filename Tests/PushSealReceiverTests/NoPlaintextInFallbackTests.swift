@_spi(Vectors) import PushSealCore
import PushSealReceiver
import Testing

/// Distinctive bytes in every decrypted value, so any leak into a fallback is visible.
let marker = "ZQXSECRET"
/// Distinctive sent times (decimal digits would leak too).
let secretOldTs: Int64 = 1_699_991_234
let secretFutureTs: Int64 = 1_700_007_777

/// A content where every string carries the marker.
func secretContent(cid: String = conversationA, ts: Int64 = secretOldTs, badge: Int64? = 4242) -> NotificationContent {
    NotificationContent(
        conversationID: cid, messageID: "\(marker)-mid", sentAt: ts, title: "\(marker)-title", subtitle: "\(marker)-subtitle",
        body: "\(marker)-body 🔒 with \"quotes\" and \\ backslashes", sender: .init(id: "\(marker)-sender", name: "\(marker)-name"),
        thread: "\(marker)-thread", category: "\(marker)-category", badge: badge, isTruncated: true,
        extras: ["\(marker)-xkey": "\(marker)-xvalue"])
}

func secretJSON(cid: String = conversationA) -> String {
    String(decoding: try! secretContent(cid: cid).encoded(), as: UTF8.self)
}

/// Every failure that can happen after decryption, each with the marker inside the plaintext.
let postDecryptionFailures: [(name: String, wire: String, reason: ReasonCode)] = {
    let json = secretJSON()
    let body = Array(json.utf8)
    let withoutBrace = String(json.dropLast())
    return [
        ("padding without marker", sealPlaintext(body + [0, 0, 0]), .malformedContent),
        ("non-zero after marker", sealPlaintext(body + [0x80, 0, 0x01]), .malformedContent),
        ("content of 4001 bytes", sealBytes(Array((withoutBrace + #","pad":""# + String(repeating: marker, count: 500)).utf8.prefix(3999)) + Array(#""}"#.utf8), padBlock: 1), .malformedContent),
        ("not JSON", sealBytes(Array(withoutBrace.utf8)), .malformedContent),
        ("not an object", sealBytes(Array(#"["\#(marker)-array"]"#.utf8)), .malformedContent),
        ("duplicate member name", sealBytes(Array((withoutBrace + #","\#(marker)-dup":1,"\#(marker)-dup":2}"#).utf8)), .malformedContent),
        ("duplicate x member", sealBytes(Array(json.replacingOccurrences(of: #""x":{"#, with: #""x":{"\#(marker)-xkey":"1","#).utf8)), .malformedContent),
        ("x member of the wrong type", sealBytes(Array(json.replacingOccurrences(of: #""x":{"#, with: #""x":{"\#(marker)-num":1,"#).utf8)), .malformedContent),
        ("depth 17", sealBytes(Array((withoutBrace + #","\#(marker)":"# + String(repeating: "[", count: 16) + String(repeating: "]", count: 16) + "}").utf8)), .malformedContent),
        ("missing cid", sealBytes(Array(json.replacingOccurrences(of: #""cid""#, with: #""\#(marker)-cid""#).utf8)), .malformedContent),
        ("badge out of range", sealBytes(Array(json.replacingOccurrences(of: "4242", with: "99999999999").utf8)), .malformedContent),
        ("thread too long", sealBytes(Array(json.replacingOccurrences(of: "\(marker)-thread", with: String(repeating: marker, count: 30)).utf8)), .malformedContent),
        ("invalid UTF-8", sealBytes(Array(withoutBrace.utf8) + Array(#","\#(marker)":""#.utf8) + [0xFF] + Array(#""}"#.utf8)), .malformedContent),
        ("conversation mismatch", seal(secretContent(cid: "\(marker)-other-conversation")), .conversationMismatch),
        ("stale, too old", seal(secretContent(ts: secretOldTs - 40 * 86_400)), .stale),
        ("stale, in the future", seal(secretContent(ts: secretFutureTs)), .stale),
    ]
}()

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

@Suite("No fallback ever contains decrypted content")
struct NoPlaintextInFallbackTests {
    @Test("The marked content decrypts (the scan below would see the marker)")
    func control() {
        let result = makeReceiver(sourceA()).open(.json(apns(wire: seal(secretContent(ts: now - 8_766)))))
        #expect(result.outcome == .decrypted)
        #expect(allText(of: result).contains { $0.contains(marker) })
        #expect(allText(of: result).contains { $0.contains(String(now - 8_766)) })
    }

    @Test("Every post-decryption failure, in every input form and fallback mode, is free of the marker",
          arguments: postDecryptionFailures.indices)
    func scan(_ index: Int) {
        let failure = postDecryptionFailures[index]
        let placeholder = apns(wire: failure.wire)
        let forms: [ReceiverPayload] = [
            .json(Array(placeholder.utf8)),
            .json(Array(fcmMessage(wire: failure.wire).utf8)),
            .userInfo(userInfo(pushseal: .string(failure.wire))),
            .fcmData(["pushseal": failure.wire]),
        ]
        for prefersPlaceholder in [true, false] {
            let receiver = makeReceiver(sourceA(), prefersPayloadPlaceholder: prefersPlaceholder, retainsContentBytes: true,
                                        fallbackText: { FallbackText(title: "App", body: "Fallback for \($0?.rawValue ?? "-")") })
            for form in forms {
                let result = receiver.open(form)
                #expect(result.reason == failure.reason, "\(failure.name): \(result.diagnostic ?? "-")")
                #expect(result.outcome == .fallback)
                #expect(result.content == nil && result.contentBytes == nil && result.sender == nil && result.extras.isEmpty)
                #expect(result.badge == nil && result.sentAt == nil && result.messageID == nil && result.conversationID == nil)
                #expect(result.diagnostic?.isEmpty == false)
                for text in allText(of: result) {
                    #expect(!text.contains(marker), "\(failure.name) leaked: \(text)")
                    #expect(!text.contains("ZQX"), "\(failure.name) leaked: \(text)")
                    #expect(!text.contains(String(secretOldTs)) && !text.contains(String(secretFutureTs)), "\(failure.name) leaked ts: \(text)")
                    #expect(!text.contains(String(secretOldTs - 40 * 86_400)), "\(failure.name) leaked ts: \(text)")
                }
            }
        }
    }
}
