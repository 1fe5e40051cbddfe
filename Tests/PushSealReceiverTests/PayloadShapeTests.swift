@_spi(Vectors) import PushSealCore
import PushSealReceiver
import Testing
import PushSealJSON

/// One userInfo shape and the reason it must produce.
struct InfoCase: CustomTestStringConvertible, Sendable {
    let name: String
    let info: [String: UserInfoValue]
    let reason: ReasonCode?
    /// Whether the placeholder alert should be the fallback text.
    let placeholder: Bool
    var testDescription: String { name }
    init(_ name: String, _ info: [String: UserInfoValue], _ reason: ReasonCode?, placeholder: Bool = true) {
        self.name = name
        self.info = info
        self.reason = reason
        self.placeholder = placeholder
    }
}

let infoCases: [InfoCase] = [
    InfoCase("valid", userInfo(pushseal: .string(validWire)), nil),
    InfoCase("valid without aps", userInfo(pushseal: .string(validWire), aps: nil), nil),
    InfoCase("empty dictionary", [:], .notSealed, placeholder: false),
    InfoCase("only aps", userInfo(pushseal: nil), .notSealed),
    InfoCase("pushseal inside aps", ["aps": .dictionary(["pushseal": .string(validWire), "alert": .string("hi")])], .notSealed),
    InfoCase("pushseal is a number", userInfo(pushseal: .number(42)), .malformedEnvelope),
    InfoCase("pushseal is a boolean", userInfo(pushseal: .bool(true)), .malformedEnvelope),
    InfoCase("pushseal is an array of the wire", userInfo(pushseal: .array([.string(validWire)])), .malformedEnvelope),
    InfoCase("pushseal is a nested object", userInfo(pushseal: .dictionary(["pushseal": .string(validWire)])), .malformedEnvelope),
    InfoCase("pushseal is NSNull/NSData", userInfo(pushseal: .other), .malformedEnvelope),
    InfoCase("pushseal is a huge string", userInfo(pushseal: .string(String(repeating: "A", count: 1_000_000))), .malformedEnvelope),
    InfoCase("pushseal is a non-ASCII string", userInfo(pushseal: .string("é" + validWire.dropFirst())), .malformedEnvelope),
    InfoCase("missing aps, failing", userInfo(pushseal: .string(tampered(at: 50)), aps: nil), .authenticationFailed, placeholder: false),
    InfoCase("aps is a string", userInfo(pushseal: .string(tampered(at: 50)), aps: .string("alert")), .authenticationFailed, placeholder: false),
    InfoCase("alert is a number", userInfo(pushseal: .string(tampered(at: 50)), aps: .dictionary(["alert": .number(1)])), .authenticationFailed, placeholder: false),
    InfoCase("alert title/body are numbers", userInfo(pushseal: .string(tampered(at: 50)), aps: .dictionary(["alert": .dictionary(["title": .number(1), "body": .array([])])])), .authenticationFailed, placeholder: false),
    InfoCase("FCM form inside userInfo", ["message": .dictionary(["data": .dictionary(["pushseal": .string(validWire)])])], nil, placeholder: false),
    InfoCase("FCM form, data is an array", ["message": .dictionary(["data": .array([.string(validWire)])])], .notSealed, placeholder: false),
    InfoCase("FCM form, pushseal is a number", ["message": .dictionary(["data": .dictionary(["pushseal": .number(1)])])], .malformedEnvelope, placeholder: false),
    InfoCase("unknown key", userInfo(pushseal: .string(seal(contentA(), key: keyB))), .unknownKey),
    InfoCase("wrong conversation", userInfo(pushseal: .string(seal(NotificationContent(conversationID: "B", messageID: "m", sentAt: now, body: "x")))), .conversationMismatch),
    InfoCase("stale", userInfo(pushseal: .string(seal(contentA(ts: now - 40 * 86_400)))), .stale),
]

@Suite("Input forms: userInfo shapes, FCM data maps, FCM messages")
struct PayloadShapeTests {
    @Test("userInfo", arguments: infoCases)
    func userInfoShapes(_ c: InfoCase) {
        let result = makeReceiver(sourceA()).open(.userInfo(c.info))
        #expect(result.reason == c.reason, "\(c.name): \(result.diagnostic ?? "-")")
        if c.reason != nil, c.reason != .notSealed {
            #expect(result.textSource == (c.placeholder ? .payloadPlaceholder : .appFallback))
            #expect(result.body == (c.placeholder ? .plain(placeholderBody) : .plain("New message")))
        }
        // The same through the enum entry point.
        #expect(makeReceiver(sourceA()).open(.userInfo(c.info)).reason == c.reason)
    }

    @Test("FCM data map")
    func fcmDataMap() {
        let receiver = makeReceiver(sourceA())
        let ok = receiver.open(.fcmData(["pushseal": validWire, "other": "ignored"]))
        #expect(ok.outcome == .decrypted)
        #expect(ok.body == .plain("Hello from A"))
        #expect(receiver.open(.fcmData([:])).reason == .notSealed)
        #expect(receiver.open(.fcmData(["PushSeal": validWire])).reason == .notSealed)
        #expect(receiver.open(.fcmData(["pushseal": ""])).reason == .malformedEnvelope)
        #expect(receiver.open(.fcmData(["pushseal": String(repeating: "A", count: 10_000)])).reason == .malformedEnvelope)
        let failed = receiver.open(.fcmData(["pushseal": tampered(at: 50)]))
        #expect(failed.reason == .authenticationFailed)
        // FCM carries no placeholder: the app's text.
        #expect(failed.textSource == .appFallback)
        #expect(failed.body == .plain("New message"))
    }

    @Test("A full FCM v1 message as raw JSON has no placeholder")
    func fcmMessageFallback() {
        let result = makeReceiver(sourceA()).open(.json(fcmMessage(wire: tampered(at: 50))))
        #expect(result.reason == .authenticationFailed)
        #expect(result.textSource == .appFallback)
    }

    @Test("userInfo converted from JSON matches raw JSON results")
    func jsonToUserInfo() throws {
        let text = apns(wire: validWire)
        guard case let .dictionary(info) = UserInfoValue(json: try JSONParser.parse(Array(text.utf8))) else {
            Issue.record("not a dictionary")
            return
        }
        #expect(info["aps"]?.dictionaryValue?["mutable-content"] == .number(1))
        #expect(makeReceiver(sourceA()).open(.userInfo(info)) == makeReceiver(sourceA()).open(.json(text)))
        #expect(UserInfoValue(json: .null) == .other)
        #expect(UserInfoValue(json: .bool(false)) == .bool(false))
        #expect(UserInfoValue(json: .number("2.5e1")) == .number(25))
    }

    @Test("Placeholder forms: plain string, title/subtitle/body, loc-key with arguments")
    func placeholderForms() {
        let failing = tampered(at: 50)
        let receiver = makeReceiver(sourceA())

        let plain = receiver.open(.json(apns(sealedJSON: "\"\(failing)\"", alert: #""Just a body""#)))
        #expect(plain.title == nil && plain.body == .plain("Just a body"))

        let full = receiver.open(.json(apns(sealedJSON: "\"\(failing)\"", alert: #"{"title":"T","subtitle":"S","body":"B"}"#)))
        #expect(full.title == .plain("T") && full.subtitle == .plain("S") && full.body == .plain("B"))
        #expect(full.threadIdentifier == "opaque-thread")

        let localized = receiver.open(.json(apns(sealedJSON: "\"\(failing)\"",
            alert: #"{"title-loc-key":"NEW_FROM","title-loc-args":["Ana"],"loc-key":"NEW_MESSAGE","body":"ignored","subtitle-loc-key":"SUB"}"#)))
        #expect(localized.title == .localized(key: "NEW_FROM", arguments: ["Ana"]))
        #expect(localized.subtitle == .localized(key: "SUB", arguments: []))
        #expect(localized.body == .localized(key: "NEW_MESSAGE", arguments: []))
        #expect(localized.body.unlocalizedText == "NEW_MESSAGE")

        let badArgs = receiver.open(.json(apns(sealedJSON: "\"\(failing)\"", alert: #"{"loc-key":"K","loc-args":["a",1]}"#)))
        #expect(badArgs.body == .localized(key: "K", arguments: []))

        let titleOnly = receiver.open(.json(apns(sealedJSON: "\"\(failing)\"", alert: #"{"title":"Only"}"#)))
        #expect(titleOnly.title == .plain("Only") && titleOnly.body == .plain("") && titleOnly.textSource == .payloadPlaceholder)

        let emptyAlert = receiver.open(.json(apns(sealedJSON: "\"\(failing)\"", alert: "{}")))
        #expect(emptyAlert.textSource == .appFallback)
    }

    @Test("Outer aps fields of the wrong type are ignored, badge only as an integer")
    func outerFields() {
        let failing = Base64URL.encode([2])   // unsupported_version
        func open(_ aps: String) -> ReceivedNotification {
            makeReceiver(sourceA()).open(.json(#"{"aps":\#(aps),"pushseal":"\#(failing)"}"#))
        }
        let good = open(#"{"alert":"x","thread-id":"t","category":"reply","badge":3}"#)
        #expect(good.reason == .unsupportedVersion)
        #expect(good.threadIdentifier == "t" && good.category == "reply" && good.badge == 3)
        let bad = open(#"{"alert":"x","thread-id":5,"category":["reply"],"badge":"3"}"#)
        #expect(bad.threadIdentifier == nil && bad.category == nil && bad.badge == nil)
        #expect(open(#"{"alert":"x","badge":2.5}"#).badge == nil)
        #expect(open(#"{"alert":"x","badge":-1}"#).badge == nil)
        #expect(open(#"{"alert":"x","badge":2147483648}"#).badge == nil)
    }

    @Test("not_sealed passes the notification through")
    func passThrough() {
        let result = makeReceiver(sourceA()).open(.json(#"{"aps":{"alert":"Your order shipped"}}"#))
        #expect(result.reason == .notSealed)
        #expect(result.isPassThrough)
        #expect(result.body == .plain("Your order shipped"))
        #expect(!makeReceiver(sourceA()).open(.json(apns(wire: validWire))).isPassThrough)
    }

    @Test("with passesThroughUnsealed off, not_sealed is a fallback with the app's text, never the payload's alert")
    func unsealedAsFallback() {
        let receiver = Receiver(keySource: sourceA(), configuration: ReceiverConfiguration(
            clock: { now }, prefersPayloadPlaceholder: true, passesThroughUnsealed: false,
            fallbackText: { reason in FallbackText(title: nil, body: reason == .notSealed ? "Open the app" : "New message") }))
        for payload in [#"{"aps":{"alert":"Your bank: call +1 555 0100"}}"#, "not json", #"{"message":{"data":{}}}"#] {
            let result = receiver.open(.json(Array(payload.utf8)))
            #expect(result.outcome == .fallback && result.reason == .notSealed)
            #expect(!result.isPassThrough)
            #expect(result.textSource == .appFallback)
            #expect(result.body == .plain("Open the app"))
        }
        // Sealed payloads are unaffected.
        #expect(receiver.open(.json(Array(apns(wire: validWire).utf8))).outcome == .decrypted)
    }
}
