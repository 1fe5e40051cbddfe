import Foundation
import PushSealCore
import PushSealDelivery
import PushSealProvider
import Testing
import PushSealJSON

/// The local APNs/FCM emulator started by scripts/with-push-emulator.sh (scripts/test.sh runs
/// the suites through it). Without it every delivery test fails — none is skipped.
struct Emulator {
    struct NotRunning: Error, CustomStringConvertible {
        var description: String
    }

    let directory: String
    let url: String
    var caFile: String { directory + "/ca.pem" }
    var apnsKeyFile: String { directory + "/apns-key.p8" }
    var wrongAPNsKeyFile: String { directory + "/apns-wrong-key.p8" }
    var serviceAccountFile: String { directory + "/fcm-service-account.json" }
    let keyID = "EMUKEY1234"
    let teamID = "EMUTEAM123"
    var fcmSendURL: String { url + "/v1/projects/pushseal-emulator/messages:send" }

    init() throws {
        guard let directory = ProcessInfo.processInfo.environment["PUSHSEAL_EMULATOR_DIR"] else {
            throw NotRunning(description: "PUSHSEAL_EMULATOR_DIR is not set: run the tests through scripts/test.sh or scripts/with-push-emulator.sh")
        }
        guard let url = try? String(contentsOfFile: directory + "/url", encoding: .utf8), FileManager.default.fileExists(atPath: directory + "/ready") else {
            throw NotRunning(description: "the emulator in \(directory) is not ready")
        }
        self.directory = directory
        self.url = url
    }

    /// A fresh random 64-digit device token (tests share the emulator and its log).
    static func deviceToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// Scripts the answers for `token`: attempt n gets step n, the last step repeats.
    func script(_ token: String, _ steps: String) throws {
        try steps.write(toFile: directory + "/script/" + token, atomically: true, encoding: .utf8)
    }

    /// The logged requests for `token`, in order.
    func requests(_ token: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: directory + "/requests.jsonl", encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard line.contains(token) else { return nil }
            let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return entry?["token"] as? String == token ? entry : nil
        }
    }

    func apnsCredentials(wrongKey: Bool = false) throws -> APNsCredentials {
        var pem = Array(try Data(contentsOf: URL(fileURLWithPath: wrongKey ? wrongAPNsKeyFile : apnsKeyFile)))
        return try APNsCredentials(privateKeyPEM: &pem, keyID: keyID, teamID: teamID)
    }

    func serviceAccountJSON() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: serviceAccountFile))) as! [String: Any]
    }

    func serviceAccount(_ edit: (inout [String: Any]) -> Void = { _ in }) throws -> FCMServiceAccount {
        var object = try serviceAccountJSON()
        edit(&object)
        var json = Array(try JSONSerialization.data(withJSONObject: object))
        return try FCMServiceAccount(json: &json)
    }

    /// Options for tests: the test CA, short backoff and timeouts.
    func options(_ edit: (inout SenderOptions) -> Void = { _ in }) -> SenderOptions {
        var options = SenderOptions()
        options.caFile = caFile
        options.initialBackoffMilliseconds = 20
        options.maximumBackoffMilliseconds = 200
        options.requestTimeoutMilliseconds = 5_000
        edit(&options)
        return options
    }

    func apnsSender(wrongKey: Bool = false, _ edit: (inout SenderOptions) -> Void = { _ in }) throws -> PushSender {
        try PushSender(
            apns: APNsConfiguration(credentials: apnsCredentials(wrongKey: wrongKey), environment: .custom(baseURL: url)),
            options: options(edit))
    }

    func fcmSender(_ edit: (inout SenderOptions) -> Void = { _ in }) throws -> PushSender {
        try PushSender(fcm: FCMConfiguration(serviceAccount: serviceAccount(), sendURL: fcmSendURL), options: options(edit))
    }
}

/// Sealing fixtures.
enum Sealing {
    static let key = ConversationKey.generate()
    static let sealer = try! NotificationSealer()
    static let apnsOptions = APNsOptions(topic: "com.example.chat", collapseID: "opaque-1")

    static func content(_ index: Int = 0) -> NotificationContent {
        NotificationContent(conversationID: "conversation", messageID: "m\(index)", sentAt: 1_700_000_000, body: "hello \(index)")
    }

    static func apns(_ token: String, tag: Int = 0) throws -> PushNotification {
        try PushNotification(tag: tag, apns: sealer.seal(content(tag), with: key, options: apnsOptions), deviceToken: token)
    }

    static func fcm(_ token: String, tag: Int = 0, iOS: Bool = false) throws -> PushNotification {
        let options = FCMOptions(token: token, apns: iOS ? apnsOptions : nil)
        return PushNotification(tag: tag, fcm: try sealer.seal(content(tag), with: key, options: options))
    }
}
