import Foundation
import PushSealCore
import PushSealDelivery
import PushSealProvider
import Testing

@Suite("FCM delivery against the emulator")
struct FCMDeliveryTests {
    static func token() -> String { "fcm-" + Emulator.deviceToken() }

    @Test("Android data messages and the iOS form are delivered with one access token; the report carries the message name")
    func delivered() throws {
        let emulator = try Emulator()
        let tokens = (0..<10).map { _ in Self.token() }
        let notifications = try tokens.enumerated().map { try Sealing.fcm($1, tag: $0, iOS: $0 % 2 == 1) }
        let reports = try emulator.fcmSender().send(notifications)
        #expect(reports.allSatisfy { $0.outcome == .delivered && $0.attempts == 1 })
        #expect(reports.allSatisfy { $0.identifier?.hasPrefix("projects/pushseal-emulator/messages/") == true })
        let logged = try tokens.flatMap { try emulator.requests($0) }
        #expect(logged.count == 10)
        #expect(Set(logged.compactMap { $0["auth"] as? String }).count == 1, "the access token is cached")
        let iOS = try #require(try emulator.requests(tokens[1]).first?["body"] as? String)
        #expect(iOS.contains(#""apns":{"headers":{"apns-push-type":"alert""#))
        #expect(iOS.contains(#""mutable-content":1"#))
    }

    @Test("Only UNREGISTERED is token_dead; a bare NOT_FOUND and SENDER_ID_MISMATCH are configuration; INVALID_ARGUMENT is rejected", arguments: [
        (#"[{"status": 404, "fcm_status": "NOT_FOUND", "fcm_error": "UNREGISTERED"}]"#, DeliveryOutcome.tokenDead, "UNREGISTERED"),
        (#"[{"status": 404, "fcm_status": "NOT_FOUND"}]"#, .configuration, "NOT_FOUND: no such FCM project or send URL"),
        (#"[{"status": 403, "fcm_status": "PERMISSION_DENIED", "fcm_error": "SENDER_ID_MISMATCH"}]"#, .configuration, "SENDER_ID_MISMATCH: the token is not from this Firebase project"),
        (#"[{"status": 401, "fcm_status": "UNAUTHENTICATED", "fcm_error": "THIRD_PARTY_AUTH_ERROR"}]"#, .configuration, "THIRD_PARTY_AUTH_ERROR: APNs refused"),
        (#"[{"status": 400, "fcm_status": "INVALID_ARGUMENT", "fcm_error": "INVALID_ARGUMENT"}]"#, .rejected, "INVALID_ARGUMENT"),
    ])
    func finalAnswers(script: String, outcome: DeliveryOutcome, reason: String) throws {
        let emulator = try Emulator()
        let token = Self.token()
        try emulator.script(token, script)
        let report = try emulator.fcmSender().send([try Sealing.fcm(token)])[0]
        #expect(report.outcome == outcome)
        #expect(report.reason?.hasPrefix(reason) == true, "\(report)")
        #expect(report.attempts == 1)
    }

    @Test("A wrong project in the send URL: configuration for every line, one request, no token_dead")
    func wrongProject() throws {
        let emulator = try Emulator()
        let sender = try PushSender(
            fcm: FCMConfiguration(serviceAccount: emulator.serviceAccount(), sendURL: emulator.url + "/v1/projects/other/messages:send"),
            options: emulator.options { $0.maximumInFlight = 1 })
        let tokens = (0..<3).map { _ in Self.token() }
        let reports = sender.send(try tokens.enumerated().map { try Sealing.fcm($1, tag: $0) })
        #expect(reports.map(\.outcome) == [.configuration, .configuration, .configuration])
        #expect(reports.map(\.attempts) == [1, 0, 0])
        #expect(reports[0].status == 404)
        #expect(sender.configurationProblem(.fcm)?.hasPrefix("NOT_FOUND: no such FCM project or send URL") == true)
        #expect(sender.configurationProblem(.apns) == nil)
    }

    @Test("401 fetches a new access token once and succeeds; 403 twice is configuration")
    func authentication() throws {
        let emulator = try Emulator()
        let refreshed = Self.token()
        try emulator.script(refreshed, #"[{"status": 401, "fcm_status": "UNAUTHENTICATED"}, {"status": 200}]"#)
        let sender = try emulator.fcmSender()
        let report = sender.send([try Sealing.fcm(refreshed)])[0]
        #expect(report.outcome == .delivered)
        #expect(report.attempts == 2)
        let auths = try emulator.requests(refreshed).compactMap { $0["auth"] as? String }
        #expect(auths.count == 2 && auths[0] != auths[1])

        let denied = Self.token()
        try emulator.script(denied, #"[{"status": 403, "fcm_status": "PERMISSION_DENIED"}]"#)
        let failed = sender.send([try Sealing.fcm(denied)])[0]
        #expect(failed.outcome == .configuration)
        #expect(failed.reason?.hasPrefix("PERMISSION_DENIED: FCM refused the access token") == true, "\(failed)")
        #expect(failed.attempts == 2)
    }

    @Test("fcmValidateOnly: the request carries validate_only, the outcome is validated; plannedRequest shows it without sending")
    func validateOnly() throws {
        let emulator = try Emulator()
        let token = Self.token()
        let sender = try emulator.fcmSender { $0.fcmValidateOnly = true }
        let notification = try Sealing.fcm(token)
        let planned = try #require(sender.plannedRequest(for: notification))
        #expect(planned.url == emulator.fcmSendURL)
        #expect(planned.bodyByteCount == notification.body.count + #""validate_only":true,"#.utf8.count)
        #expect(!planned.headers.contains { $0.name == "authorization" })
        #expect(try emulator.requests(token).isEmpty)
        let report = sender.send([notification])[0]
        #expect(report.outcome == .validated)
        let body = try #require(try emulator.requests(token).first?["body"] as? String)
        #expect(body.hasPrefix(#"{"validate_only":true,"message":"#))
        #expect(sender.plannedRequest(for: try Sealing.apns(Emulator.deviceToken())) == nil, "no APNs credentials")
    }

    @Test("QUOTA_EXCEEDED (429) is retried")
    func quota() throws {
        let emulator = try Emulator()
        let token = Self.token()
        try emulator.script(token, #"[{"status": 429, "fcm_status": "RESOURCE_EXHAUSTED", "fcm_error": "QUOTA_EXCEEDED"}, {"status": 200}]"#)
        let report = try emulator.fcmSender().send([try Sealing.fcm(token)])[0]
        #expect(report.outcome == .delivered)
        #expect(report.attempts == 2)
    }

    @Test("A service account whose key the token endpoint does not know: configuration, without a send")
    func refusedGrant() throws {
        let emulator = try Emulator()
        let other = try emulator.serviceAccount { object in
            object["client_email"] = "someone-else@example.iam.gserviceaccount.com"
        }
        let sender = try PushSender(fcm: FCMConfiguration(serviceAccount: other, sendURL: emulator.fcmSendURL), options: emulator.options())
        let token = Self.token()
        let reports = sender.send([try Sealing.fcm(token, tag: 0), try Sealing.fcm(token, tag: 1)])
        #expect(reports.allSatisfy { $0.outcome == .configuration })
        #expect(reports[0].reason?.hasPrefix("token endpoint: invalid_grant: the token endpoint refused the service account") == true)
        #expect(try emulator.requests(token).isEmpty)
    }
}
