import Foundation
import PushSealCore
import PushSealDelivery
import PushSealProvider
import Testing

@Suite("Credentials and bad input")
struct CredentialTests {
    @Test("A .p8 that is not a PEM key, or not EC P-256, is refused with a clear error that holds no key bytes")
    func badAPNsKeys() throws {
        let emulator = try Emulator()
        var garbage = Array("not a key".utf8)
        #expect(throws: DeliveryError.invalidAPNsKey("not a PEM private key (expected -----BEGIN PRIVATE KEY-----, unencrypted)")) {
            try APNsCredentials(privateKeyPEM: &garbage, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        }
        #expect(garbage.allSatisfy { $0 == 0 }, "the key bytes are wiped")
        let account = try emulator.serviceAccountJSON()
        var rsa = Array((account["private_key"] as! String).utf8)
        do {
            _ = try APNsCredentials(privateKeyPEM: &rsa, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
            Issue.record("an RSA key was accepted as an APNs key")
        } catch {
            #expect(error == .invalidAPNsKey("not an EC P-256 key (APNs signs provider tokens with ES256)"))
            #expect(!error.description.contains("PRIVATE"))
        }
        var good = Array(try Data(contentsOf: URL(fileURLWithPath: emulator.apnsKeyFile)))
        #expect(throws: DeliveryError.invalidAPNsIdentity(field: "team id", detail: "must be letters and digits only (Apple's ids are 10 of them)")) {
            try APNsCredentials(privateKeyPEM: &good, keyID: "ABC123DEFG", teamID: "DEF 123")
        }
    }

    @Test("Key id and team id must be 10 letters and digits; a P-384 .p8 is refused: all before any request", arguments: [
        ("X", "EMUKEY1234", "team id", "must be 10 characters (Apple's ids are 10 letters and digits), not 1"),
        ("EMUTEAM123", "EMUKEY12345", "key id", "must be 10 characters (Apple's ids are 10 letters and digits), not 11"),
        ("EMUTEAM123", "", "key id", "must be 10 characters (Apple's ids are 10 letters and digits), not 0"),
    ])
    func identities(teamID: String, keyID: String, field: String, detail: String) throws {
        let emulator = try Emulator()
        var pem = Array(try Data(contentsOf: URL(fileURLWithPath: emulator.apnsKeyFile)))
        #expect(throws: DeliveryError.invalidAPNsIdentity(field: field, detail: detail)) {
            try APNsCredentials(privateKeyPEM: &pem, keyID: keyID, teamID: teamID)
        }
        var p384 = Array(try Data(contentsOf: URL(fileURLWithPath: emulator.directory + "/apns-p384-key.p8")))
        #expect(throws: DeliveryError.invalidAPNsKey("not an EC P-256 key (APNs signs provider tokens with ES256)")) {
            try APNsCredentials(privateKeyPEM: &p384, keyID: "EMUKEY1234", teamID: "EMUTEAM123")
        }
        #expect(p384.allSatisfy { $0 == 0 }, "the key bytes are wiped")
    }

    @Test("A service account's client_email must be an e-mail address and its token_uri an https URL")
    func serviceAccountMembers() throws {
        let emulator = try Emulator()
        #expect(throws: DeliveryError.invalidServiceAccount(
            field: "client_email", detail: "is not an e-mail address (a service account's is <name>@<project>.iam.gserviceaccount.com)")) {
            try emulator.serviceAccount { $0["client_email"] = "sender" }
        }
        #expect(throws: DeliveryError.invalidURL(field: "service account token_uri", detail: "must start with https:// and name a host")) {
            try emulator.serviceAccount { $0["token_uri"] = "http://oauth2.googleapis.com/token" }
        }
    }

    @Test("The FCM access token is reused, and replaced before it expires (the refresh margin)")
    func accessTokenRefresh() throws {
        let emulator = try Emulator()
        let clock = ClockBox(Int64(Date().timeIntervalSince1970))
        let sender = try emulator.fcmSender { $0.clock = { clock.now } }
        let tokens = (0..<3).map { _ in "fcm-" + Emulator.deviceToken() }
        #expect(sender.send([try Sealing.fcm(tokens[0])])[0].outcome == .delivered)
        clock.now += 3_600 - 300 - 1   // just inside the 5-minute margin before the one-hour expiry
        #expect(sender.send([try Sealing.fcm(tokens[1])])[0].outcome == .delivered)
        clock.now += 2   // past it: replaced before the emulator would refuse it
        #expect(sender.send([try Sealing.fcm(tokens[2])])[0].outcome == .delivered)
        let auths = try tokens.map { try #require(try emulator.requests($0).first?["auth"] as? String) }
        #expect(auths[0] == auths[1])
        #expect(auths[1] != auths[2])
    }

    @Test("A service account with a missing or wrong member names the member", arguments: [
        ("client_email", DeliveryError.invalidServiceAccount(field: "client_email", detail: "is missing")),
        ("project_id", .invalidServiceAccount(field: "project_id", detail: "is missing")),
        ("private_key", .invalidServiceAccount(field: "private_key", detail: "is missing")),
    ])
    func missingMember(member: String, expected: DeliveryError) throws {
        let emulator = try Emulator()
        #expect(throws: expected) { try emulator.serviceAccount { $0.removeValue(forKey: member) } }
    }

    @Test("A service account whose key is not RSA, or is not JSON, is refused")
    func wrongServiceAccounts() throws {
        let emulator = try Emulator()
        let ec = try String(contentsOfFile: emulator.apnsKeyFile, encoding: .utf8)
        #expect(throws: DeliveryError.invalidServiceAccount(field: "private_key", detail: "is not an RSA key of at least 2048 bits (Google signs with RS256)")) {
            try emulator.serviceAccount { $0["private_key"] = ec }
        }
        #expect(throws: DeliveryError.invalidServiceAccount(field: "type", detail: "is 'authorized_user', expected 'service_account'")) {
            try emulator.serviceAccount { $0["type"] = "authorized_user" }
        }
        var text = Array("{\"project_id\":".utf8)
        #expect(throws: DeliveryError.self) { try FCMServiceAccount(json: &text) }
    }

    @Test("Malformed device tokens and URLs are refused before anything is sent")
    func malformed() throws {
        let emulator = try Emulator()
        let request = try Sealing.sealer.seal(Sealing.content(), with: Sealing.key, options: Sealing.apnsOptions)
        for token in ["", "abc", "zz" + Emulator.deviceToken(), Emulator.deviceToken() + " "] {
            #expect(throws: DeliveryError.self) { try PushNotification(tag: 0, apns: request, deviceToken: token) }
        }
        let noTopic = try Sealing.sealer.seal(Sealing.content(), with: Sealing.key, options: APNsOptions())
        #expect(throws: DeliveryError.invalidOption(field: "apns-topic", detail: "missing: APNs needs the app's bundle id (APNsOptions.topic)")) {
            try PushNotification(tag: 0, apns: noTopic, deviceToken: Emulator.deviceToken())
        }
        #expect(throws: DeliveryError.invalidURL(field: "APNs base URL", detail: "must start with https:// and name a host")) {
            try APNsConfiguration(credentials: emulator.apnsCredentials(), environment: .custom(baseURL: "http://127.0.0.1:1"))
        }
        var options = SenderOptions()
        options.maximumInFlight = 0
        #expect(throws: DeliveryError.invalidOption(field: "maximum in flight", detail: "must be 1 to 1000")) {
            try PushSender(apns: APNsConfiguration(credentials: emulator.apnsCredentials()), options: options)
        }
    }

    @Test("The library's message type checks per-message APNs headers; MessageHeaders applies them to the sealing options")
    func perMessageHeaders() throws {
        let body = Array(#"{"aps":{}}"#.utf8)
        let token = Emulator.deviceToken()
        for (name, value, detail) in [
            ("apns-priority", "7", "must be 10 (now), 5 (power-aware) or 1 (lowest)"),
            ("apns-expiration", "-1", "must be a UNIX time in seconds (0: try once, never store)"),
        ] {
            #expect(throws: DeliveryError.invalidOption(field: name, detail: detail)) {
                try PushNotification(tag: 0, apnsBody: body, deviceToken: token, headers: [HTTPHeader(name: "apns-topic", value: "t"), HTTPHeader(name: name, value: value)])
            }
        }
        _ = try PushNotification(
            tag: 0, apnsBody: body, deviceToken: token,
            headers: [HTTPHeader(name: "apns-topic", value: "com.example.chat.voip"), HTTPHeader(name: "apns-push-type", value: "voip")])
        var headers = MessageHeaders()
        try headers.set("apns-priority", "5")
        try headers.set("apns-expiration", "0")
        try headers.set("apns-topic", "com.example.other")
        let options = try headers.applied(to: APNsOptions(topic: "com.example.chat"))
        #expect(options.priority == .conservePower && options.expiration == .deliverOnce && options.topic == "com.example.other")
        #expect(throws: ProviderError.self) { try headers.applied(to: FCMOptions(token: "t")) }
        var android = MessageHeaders()
        try android.set("android.ttl", "60")
        #expect(try android.applied(to: FCMOptions(token: "t")).timeToLive == 60)
    }

    @Test("A notification for a service that was not configured is rejected, not sent")
    func notConfigured() throws {
        let emulator = try Emulator()
        let report = try emulator.apnsSender().send([try Sealing.fcm("fcm-token")])[0]
        #expect(report.outcome == .rejected)
        #expect(report.reason == "no FCM service account configured")
        #expect(report.attempts == 0)
    }

    @Test("The outcome strings are the documented vocabulary")
    func vocabulary() {
        #expect(DeliveryOutcome.allCases.map(\.rawValue) == ["delivered", "validated", "retry", "token_dead", "token_invalid", "rejected", "configuration"])
    }
}
