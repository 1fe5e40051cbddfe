import Testing
@_spi(Vectors) import PushSealCore
import PushSealReceiver

/// `PayloadInspection`: what a payload shows to the push service, and that every failure is the
/// one the receiver itself would give.
@Suite struct PayloadInspectionTests {
    static let wire = seal(contentA())

    /// A size's byte count, limit and basis (1: measured on the payload).
    static func facts(_ size: PayloadInspection.TransportSize?) -> [Int]? {
        size.map { [$0.byteCount, $0.limit, $0.isMeasured ? 1 : 0] }
    }

    static func facts(_ byteCount: Int, _ limit: Int, _ isMeasured: Bool) -> [Int]? {
        [byteCount, limit, isMeasured ? 1 : 0]
    }

    static func inspect(_ text: String) -> PayloadInspection {
        PayloadInspection(Array(text.utf8))
    }

    // MARK: Valid payloads

    @Test func apnsPayloadShowsItsAlertHeaderAndSizes() throws {
        let payload = apns(wire: Self.wire)
        let inspection = Self.inspect(payload)
        #expect(inspection.error == nil)
        #expect(inspection.isValid)
        #expect(inspection.form == .apns)
        #expect(inspection.payloadByteCount == payload.utf8.count)
        #expect(inspection.wire == Self.wire)
        let visibility = try #require(inspection.visibility)
        #expect(visibility.alert == FallbackText(title: placeholderTitle, body: placeholderBody))
        #expect(visibility.isMutableContent)
        #expect(visibility.threadIdentifier == "opaque-thread")
        #expect(!visibility.isDataOnly)
        let envelope = try #require(inspection.envelope)
        #expect(envelope.keyID == keyA.id)
        let header = try #require(inspection.header)
        #expect(header.byteCount == envelope.bytes.count)
        #expect(header.version == Envelope.version)
        #expect(header.keyID == keyA.id)
        #expect(header.salt == Array(repeating: 7, count: 24))
        #expect(Self.facts(inspection.apns) == Self.facts(payload.utf8.count, TransportLimit.apnsPayload, true))
        #expect(Self.facts(inspection.fcm) == Self.facts(PayloadMember.sealed.utf8.count + Self.wire.utf8.count, TransportLimit.fcmData, false))
        #expect(!inspection.isKeyBundle)
    }

    @Test func fcmMessageIsDataOnlyAndMeasuredOnItsData() throws {
        let inspection = Self.inspect(fcmMessage(wire: Self.wire))
        #expect(inspection.isValid)
        #expect(inspection.form == .fcmMessage)
        #expect(inspection.visibility?.isDataOnly == true)
        #expect(inspection.visibility?.isMutableContent == false)
        #expect(inspection.fcm?.isMeasured == true)
        #expect(inspection.fcm?.byteCount == "pushseal".utf8.count + Self.wire.utf8.count)
        let smallestAPNs = #"{"aps":{"mutable-content":1},"pushseal":""# + Self.wire + #""}"#
        #expect(Self.facts(inspection.apns) == Self.facts(smallestAPNs.utf8.count, 4096, false))
    }

    @Test func fcmNotificationIsTheVisibleAlert() {
        let payload = #"{"message":{"notification":{"title":"Hi","body":"There"},"data":{"pushseal":"\#(Self.wire)"}}}"#
        let inspection = Self.inspect(payload)
        #expect(inspection.isValid)
        #expect(inspection.visibility?.alert == FallbackText(title: "Hi", body: "There"))
        #expect(inspection.visibility?.isDataOnly == false)
    }

    @Test func dataMapCountsEveryKeyAndValue() {
        let inspection = Self.inspect(#"{"pushseal":"\#(Self.wire)","type":"msg"}"#)
        #expect(inspection.form == .fcmData)
        #expect(inspection.visibility?.isDataOnly == true)
        #expect(Self.facts(inspection.fcm) == Self.facts(8 + Self.wire.utf8.count + 4 + 3, 4096, true))
    }

    @Test(arguments: ["\(wire)", "  \(wire)\r\n", "\"\(wire)\""])
    func bareWireStringHasNoVisibility(input: String) {
        let inspection = Self.inspect(input)
        #expect(inspection.form == .wire)
        #expect(inspection.isValid)
        #expect(inspection.visibility == nil)
        #expect(inspection.apns?.isMeasured == false)
    }

    @Test func aPayloadOverTheLimitIsValidButDoesNotFit() {
        let big = sealBytes(try! contentA(body: String(repeating: "x", count: 3000)).encoded(), padBlock: 4000)
        let inspection = Self.inspect(apns(wire: big))
        #expect(inspection.isValid)
        #expect(inspection.apns?.fits == false)
        #expect(inspection.fcm?.fits == false)
    }

    @Test func theEnvelopeIsWhereTheReceiverFindsIt() {
        // `aps` beside message.data.pushseal: the receiver opens message.data.pushseal.
        let payload = #"{"aps":{"alert":"x"},"message":{"data":{"pushseal":"\#(Self.wire)"}}}"#
        let inspection = Self.inspect(payload)
        #expect(inspection.isValid)
        #expect(inspection.form == .fcmMessage)
        #expect(makeReceiver(sourceA()).open(.json(Array(payload.utf8))).reason == nil)
    }

    // MARK: Failures: each is the receiver's own

    /// Why `Envelope(wire:)` refuses `wire`.
    static func openError(_ wire: String) -> OpenError {
        do throws(OpenError) {
            _ = try Envelope(wire: wire)
            return .notSealed
        } catch {
            return error
        }
    }

    /// The byte offset of the `occurrence`-th (from 1) `needle` in `text`.
    static func offset(of needle: String, occurrence: Int, in text: String) -> Int {
        let bytes = Array(text.utf8), pattern = Array(needle.utf8)
        var seen = 0
        for start in 0...(bytes.count - pattern.count) where Array(bytes[start..<start + pattern.count]) == pattern {
            seen += 1
            if seen == occurrence { return start }
        }
        return -1
    }

    static let failures: [(String, PayloadInspectionError)] = [
        (" \n\t ", .onlyWhitespace),
        ("{\"aps\":", .notJSON("unexpected end of input at byte 7")),
        ("[\"\(wire)\"]", .notAnObject),
        (#"{"aps":{},"a":1,"a":2,"pushseal":"\#(wire)"}"#, .repeatedMemberName("a", offset: 16)),
        (#"{"pushseal":"\#(wire)","pushseal":"\#(wire)","a":{"b":1,"b":2}}"#,
         .repeatedMemberName("b", offset: offset(of: #""b""#, occurrence: 2, in: #"{"pushseal":"\#(wire)","pushseal":"\#(wire)","a":{"b":1,"b":2}}"#))),
        (#"{"aps":{"alert":"hi"}}"#, .noSealedMember(inMessageData: false)),
        (#"{"message":{"token":"t"}}"#, .noSealedMember(inMessageData: true)),
        (#"{"aps":{},"pushseal":"\#(wire)","pushseal":"\#(wire)"}"#, .duplicatedSealedMember(offset: 22 + wire.utf8.count + 2)),
        (#"{"message":{"data":{"pushseal":"\#(wire)","pushseal":"\#(wire)"}}}"#, .duplicatedSealedMember(offset: 32 + wire.utf8.count + 2)),
        (#"{"aps":{},"pushseal":42}"#, .sealedMemberNotString("a number")),
        (#"{"aps":{},"pushseal":""}"#, .envelope(.malformedEnvelope("empty envelope"))),
        (#"{"aps":{},"pushseal":"\#(wire)=="}"#, .envelope(openError(wire + "=="))),
        (#"{"aps":{},"pushseal":"\#(Base64URL.encode([2] + Array(repeating: 0, count: 60)))"}"#, .envelope(.unsupportedVersion(2))),
    ]

    @Test(arguments: failures)
    func failureIsTypedAndIsTheReceiversReason(input: String, expected: PayloadInspectionError) throws {
        let inspection = Self.inspect(input)
        let error = try #require(inspection.error)
        #expect(error == expected)
        #expect(!inspection.isValid)
        #expect(inspection.envelope == nil)
        if input.first == "{" || input.first == "[" {
            let opened = makeReceiver(sourceA()).open(.json(Array(input.utf8)))
            #expect(opened.reason == error.reason, "\(opened)")
        }
    }

    @Test func notTextIsNotSealed() {
        let inspection = PayloadInspection([0xFF, 0xFE, 0x00, 0x01])
        #expect(inspection.error == .notText)
        #expect(inspection.error?.reason == .notSealed)
        #expect(inspection.form == nil)
        #expect(inspection.apns == nil)
    }

    @Test func nestingDeeperThanTheReceiverReadsIsNotSealed() {
        let deep = String(repeating: "[", count: 16) + String(repeating: "]", count: 16)
        let payload = #"{"aps":{},"n":\#(deep),"pushseal":"\#(Self.wire)"}"#
        let inspection = Self.inspect(payload)
        guard case .notJSON? = inspection.error else {
            Issue.record("expected notJSON, got \(String(describing: inspection.error))")
            return
        }
        #expect(makeReceiver(sourceA()).open(.json(Array(payload.utf8))).reason == .notSealed)
    }

    @Test func duplicatedSealedMemberIsMalformedAndSaysSo() {
        let error = PayloadInspectionError.duplicatedSealedMember(offset: 40)
        #expect(error.reason == .malformedEnvelope)
        #expect(error.description == "the \"pushseal\" member appears more than once (at byte 40)")
    }

    @Test func headerOfAShortEnvelopeIsStillRead() throws {
        let bytes = try Base64URL.decode(Self.wire)
        let short = Base64URL.encode(Array(bytes.prefix(57)))
        let inspection = Self.inspect(short)
        guard case .envelope(.malformedEnvelope)? = inspection.error else {
            Issue.record("expected a malformed envelope, got \(String(describing: inspection.error))")
            return
        }
        let header = try #require(inspection.header)
        #expect(header.byteCount == 57)
        #expect(header.keyID == keyA.id)
        #expect(header.salt == Array(repeating: 7, count: 24))
    }

    @Test func aVersionByteOtherThanOneReadsNoKeyID() throws {
        let inspection = Self.inspect(Base64URL.encode([0] + Array(repeating: 1, count: 60)))
        #expect(inspection.error == .envelope(.unsupportedVersion(0)))
        #expect(inspection.header?.version == 0)
        #expect(inspection.header?.keyID == nil)
        #expect(inspection.header?.salt == nil)
    }
}
