import PushSealCore
import PushSealReceiver

/// What Apple or Google would have seen of one payload, read back from its exact bytes: the
/// visible alert, the thread id, the envelope header, the size — and a search of the bytes for
/// every plaintext string of the content.
struct DemoExposure {
    /// The visible alert's title and body (nil when there is none).
    var alertTitle: String?
    var alertBody: String?
    /// `aps.thread-id` (APNs only).
    var threadID: String?
    /// FCM: the message has a `notification` member (it must not: data-only).
    var hasNotificationBlock = false
    /// The envelope, when the payload carries a well-formed one.
    var envelope: Envelope?
    /// The fields whose text (or a fragment of it) occurs in the payload or envelope bytes.
    var plaintextFound: [String] = []
    /// How many byte strings were searched for.
    var needleCount = 0
    /// Problems reading the payload itself.
    var problems: [String] = []

    /// Fragment length: a leak of any run of `2 × fragmentLength − 1` bytes of a text contains
    /// a whole fragment.
    static let fragmentLength = 12

    /// Reads `payload` as `transport` and searches it for `plaintext`.
    static func examine(
        _ payload: [UInt8], transport: DemoNotification.Transport, plaintext: [(field: String, text: String)]
    ) -> DemoExposure {
        var exposure = DemoExposure()
        // Read as the receiver reads it, without a key (PushSealReceiver's PayloadInspection).
        let inspection = PayloadInspection(payload)
        if let alert = inspection.visibility?.alert {
            exposure.alertTitle = alert.title?.unlocalizedText
            exposure.alertBody = alert.body.unlocalizedText
        }
        exposure.threadID = inspection.visibility?.threadIdentifier
        exposure.hasNotificationBlock = transport == .fcm && inspection.visibility?.isDataOnly == false
        exposure.envelope = inspection.envelope
        switch inspection.error {
        case _ where inspection.form == nil || inspection.form == .wire:
            exposure.problems.append("the payload is not a JSON object")
        case nil:
            let expected: PayloadInspection.Form = transport == .apns ? .apns : .fcmMessage
            if inspection.form != expected { exposure.problems.append("the payload is not of the \(expected.rawValue) form") }
        case let .envelope(error)?:
            exposure.problems.append("the payload's envelope is malformed: \(error)")
        case .noSealedMember?, .sealedMemberNotString?, .duplicatedSealedMember?:
            exposure.problems.append("the payload has no \"pushseal\" string")
        default:
            exposure.problems.append("the payload is not a JSON object")
        }

        // The payload bytes as the push service stores them, and the decoded envelope (so even
        // an "encryption" that merely base64url-encoded the content would be caught).
        let haystacks = [payload] + (exposure.envelope.map { [$0.bytes] } ?? [])
        for (field, text) in plaintext {
            let needles = Self.needles(Array(text.utf8))
            exposure.needleCount += needles.count
            if needles.contains(where: { needle in haystacks.contains { contains($0, needle) } }) {
                exposure.plaintextFound.append(field)
            }
        }
        return exposure
    }

    /// The text itself, and for a longer text its consecutive fragments of ``fragmentLength``
    /// bytes (the last one aligned to the end). A fragment made only of base64url characters is
    /// left out: it could occur by chance inside the wire string.
    static func needles(_ text: [UInt8]) -> [[UInt8]] {
        guard text.count > fragmentLength else { return text.isEmpty ? [] : [text] }
        var needles = [text]
        var start = 0
        while start < text.count {
            let begin = min(start, text.count - fragmentLength)
            let fragment = Array(text[begin..<begin + fragmentLength])
            if !fragment.allSatisfy(isBase64URLCharacter) { needles.append(fragment) }
            start += fragmentLength
        }
        return needles
    }

    static func isBase64URLCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    /// Whether `needle` occurs in `haystack`.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        let first = needle[0]
        for start in 0...(haystack.count - needle.count) where haystack[start] == first {
            var index = 1
            while index < needle.count && haystack[start + index] == needle[index] { index += 1 }
            if index == needle.count { return true }
        }
        return false
    }
}
