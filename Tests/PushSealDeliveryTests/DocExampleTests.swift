import Foundation
import PushSealCore
import PushSealDelivery
import PushSealProvider
import Testing

// The backend's own types that the PROVIDER.md §7 example uses.
struct OutboxRow {
    var id: Int
    var content: NotificationContent
    var device: KeyID
    var deviceToken: String
}

struct DeliverySettings {
    var keyFile: String
    var keyID: String
    var teamID: String
    var environment: APNsEnvironment
    var options: SenderOptions
}

final class DeviceTable {
    var delivered: [Int] = []
    var removed: [(Int, Int64?)] = []
    var retried: [(Int, Int?)] = []
    var failures: [Int: String] = [:]
    var halted: [String] = []
    func delivered(_ id: Int) { delivered.append(id) }
    func remove(_ id: Int, unlessRegisteredAfter timestamp: Int64?) { removed.append((id, timestamp)) }
    func later(_ id: Int, after seconds: Int?) { retried.append((id, seconds)) }
    func failed(_ id: Int, _ reason: String) { failures[id] = reason }
    func halt(_ reason: String) { halted.append(reason) }
}

// BEGIN Docs/PROVIDER.md §7 (compared with the document by the test below)
/// Delivers the outbox: one sender for this delivery thread (its credentials are checked before
/// the first request), each row sealed for its device when the sender asks for it.
func deliver(outbox: [OutboxRow], conversationKey: ConversationKey, settings: DeliverySettings, devices: DeviceTable) throws {
    var p8 = Array(try Data(contentsOf: URL(fileURLWithPath: settings.keyFile)))   // wiped by the initializer
    let credentials = try APNsCredentials(privateKeyPEM: &p8, keyID: settings.keyID, teamID: settings.teamID)
    let sender = try PushSender(
        apns: APNsConfiguration(credentials: credentials, environment: settings.environment), options: settings.options)
    let sealer = try NotificationSealer()
    let cache = DeviceKeyCache()
    var rows = outbox.makeIterator()
    sender.send(next: { () -> PushNotification? in
        // Asked only while fewer than options.maximumInFlight are in progress: back-pressure.
        while let row = rows.next() {
            do {
                return try PushNotification(
                    tag: row.id, sealing: row.content, conversationKey: conversationKey, device: row.device, sealer: sealer,
                    apns: APNsOptions(topic: "com.example.chat"), deviceToken: row.deviceToken, cache: cache)
            } catch {
                devices.failed(row.id, "\(error)")   // this row only
            }
        }
        return nil
    }, report: { report in
        switch report.outcome {
        case .delivered, .validated: devices.delivered(report.tag)                             // validated: validate_only
        case .tokenDead: devices.remove(report.tag, unlessRegisteredAfter: report.timestamp)   // 410, UNREGISTERED
        case .retry: devices.later(report.tag, after: report.retryAfter)                       // 429, 5xx, timeouts
        case .tokenInvalid, .rejected: devices.failed(report.tag, report.reason ?? "")          // check; delete nothing
        case .configuration: devices.halt(report.reason ?? "")                                  // stop and alert (§7.4)
        }
    })
}
// END Docs/PROVIDER.md §7

@Suite("PROVIDER.md sending example")
struct DocExampleTests {
    @Test("The document's example is this file's code")
    func verbatim() throws {
        let here = try String(contentsOfFile: #filePath, encoding: .utf8)
        let code = try #require(here.components(separatedBy: "// BEGIN Docs/PROVIDER.md §7 (compared with the document by the test below)\n").last?
            .components(separatedBy: "// END Docs/PROVIDER.md §7").first)
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Docs/PROVIDER.md").path
        let text = try String(contentsOfFile: docs, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## 7. Sending to APNs and FCM").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        let body = block.split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("import ") || $0.isEmpty }
        #expect(body.joined(separator: "\n") == code)
    }

    @Test("The example seals per device, streams, and routes every outcome against the emulator")
    func example() throws {
        let emulator = try Emulator()
        let key = ConversationKey.generate()
        let tokens = (0..<5).map { _ in Emulator.deviceToken() }
        try emulator.script(tokens[1], #"[{"status": 410, "reason": "Unregistered", "timestamp": 1700000000123}]"#)
        try emulator.script(tokens[2], #"[{"status": 400, "reason": "BadDeviceToken"}]"#)
        try emulator.script(tokens[3], #"[{"status": 503, "reason": "ServiceUnavailable"}]"#)
        let outbox = tokens.enumerated().map { index, token in
            OutboxRow(
                id: index, content: NotificationContent(conversationID: "c_81f3", messageID: "m\(index)", sentAt: 1_700_000_000, body: "Are we still on for 7?"),
                device: KeyID(bytes: (0..<KeyID.byteCount).map { _ in UInt8.random(in: 0...255) })!, deviceToken: index == 4 ? "not-hex" : token)
        }
        var options = emulator.options { $0.maximumAttempts = 2 }
        options.maximumInFlight = 2
        let settings = DeliverySettings(
            keyFile: emulator.apnsKeyFile, keyID: emulator.keyID, teamID: emulator.teamID, environment: .custom(baseURL: emulator.url), options: options)
        let devices = DeviceTable()
        try deliver(outbox: outbox, conversationKey: key, settings: settings, devices: devices)
        #expect(devices.delivered == [0])
        #expect(devices.removed.map(\.0) == [1] && devices.removed.first?.1 == 1_700_000_000_123)
        #expect(devices.failures[2]?.hasPrefix("BadDeviceToken: check the APNs environment") == true)
        #expect(devices.retried.map(\.0) == [3])
        #expect(devices.failures[4]?.contains("invalid APNs device token") == true, "\(devices.failures)")
        #expect(devices.halted.isEmpty)
        // Sealed for the device: the envelope that reached the emulator carries the device key's id, not K's.
        let body = try #require(try emulator.requests(tokens[0]).first?["body"] as? String)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let envelope = try Envelope(wire: try #require(payload["pushseal"] as? String))
        #expect(envelope.keyID == key.deviceKey(for: outbox[0].device).id)
        #expect(envelope.keyID != key.id)

        // A wrong host: configuration once, then nothing more is sent.
        var wrong = settings
        wrong.environment = .custom(baseURL: try String(contentsOfFile: emulator.directory + "/wrong-host-url", encoding: .utf8))
        let halted = DeviceTable()
        try deliver(outbox: Array(outbox.prefix(4)), conversationKey: key, settings: wrong, devices: halted)
        #expect(halted.halted.count == 4)
        #expect(halted.halted.first?.contains("host name") == true)
        #expect(halted.delivered.isEmpty && halted.removed.isEmpty)
    }
}
