import Foundation
import PushSealCore
import PushSealDelivery
import PushSealProvider
import Testing

/// The PROVIDER.md §7 example (keep in sync), against the emulator instead of APNs' sandbox.
@Suite("PROVIDER.md sending example")
struct DocExampleTests {
    @Test("The example sends, and every outcome of the switch is reachable")
    func example() throws {
        let emulator = try Emulator()
        let sealer = try NotificationSealer()
        let key = ConversationKey.generate()
        let content = NotificationContent(conversationID: "c_81f3", messageID: "m_5521", sentAt: 1_700_000_000, body: "Are we still on for 7?")
        let deviceToken = Emulator.deviceToken()
        var removed: [String] = []

        var p8 = Array(try Data(contentsOf: URL(fileURLWithPath: emulator.apnsKeyFile)))   // wiped by the initializer
        let credentials = try APNsCredentials(privateKeyPEM: &p8, keyID: emulator.keyID, teamID: emulator.teamID)
        let sender = try PushSender(
            apns: APNsConfiguration(credentials: credentials, environment: .custom(baseURL: emulator.url)), options: emulator.options())
        #expect(p8.allSatisfy { $0 == 0 })

        let request = try sealer.seal(content, with: key, options: APNsOptions(topic: "com.example.chat"))
        for script in [#"[{"status": 200}]"#, #"[{"status": 410, "reason": "Unregistered"}]"#] {
            try emulator.script(deviceToken, script)
            let reports = sender.send([try PushNotification(tag: 1, apns: request, deviceToken: deviceToken)])
            switch reports[0].outcome {
            case .delivered: #expect(reports[0].identifier != nil)
            case .tokenDead: removed.append(deviceToken)
            case .retry, .tokenInvalid, .rejected, .configuration: Issue.record("unexpected \(reports[0])")
            }
        }
        #expect(removed == [deviceToken])
    }
}
