import PushSealCLIKit
import PushSealCore
import PushSealDelivery
import PushSealJSON
import PushSealPlatform

/// The first line `pushseal send` writes to this helper: what to deliver with, as JSON
/// (file paths, ids, URLs and limits; never key material).
struct DeliverConfiguration {
    var apns: APNsConfiguration?
    var fcm: FCMConfiguration?
    var options = SenderOptions()
    /// `--json-summary`.
    var jsonSummary = false
    /// `--dry-run`: check and print every request, send nothing.
    var dryRun = false

    /// Parses the line and loads the credentials it names.
    init(line: [UInt8]) throws(CLIError) {
        guard case let .object(object)? = try? JSONParser.parse(line, maximumDepth: 4) else {
            throw .failure("pushseal-deliver reads its configuration from 'pushseal send'", hints: "run: pushseal send --help")
        }
        func string(_ parent: JSONObject, _ name: String) -> String? { parent[name]?.stringValue }
        func integer(_ name: String) -> Int? { object[name]?.integerValue.map { Int($0) } }
        options.caFile = string(object, "ca_file")
        jsonSummary = object["json_summary"] == .bool(true)
        dryRun = object["dry_run"] == .bool(true)
        options.fcmValidateOnly = object["fcm_validate_only"] == .bool(true)
        if let value = integer("max_in_flight") { options.maximumInFlight = value }
        if let value = integer("max_attempts") { options.maximumAttempts = value }
        if let value = integer("timeout_ms") { options.requestTimeoutMilliseconds = value }
        if let value = integer("connect_timeout_ms") { options.connectTimeoutMilliseconds = value }
        if let value = integer("backoff_ms") { options.initialBackoffMilliseconds = value }
        if let value = integer("max_retry_after") { options.maximumRetryAfterSeconds = value }
        if let value = integer("connection_retry_ms") { options.connectionRetryMilliseconds = value }
        do {
            try options.validate()
            if let apns = object["apns"]?.objectValue, let keyFile = string(apns, "key_file") {
                var pem = try Self.read(keyFile, what: "APNs key file")
                let credentials: APNsCredentials
                do {
                    credentials = try APNsCredentials(privateKeyPEM: &pem, keyID: string(apns, "key_id") ?? "", teamID: string(apns, "team_id") ?? "")
                } catch {
                    throw Self.diagnosed(error, hint: "the .p8 file Apple gave for the key (AuthKey_<key id>.p8), with its key id and your team id")
                }
                let environment: APNsEnvironment = switch string(apns, "environment") {
                case "sandbox": .sandbox
                default: string(apns, "base_url").map { .custom(baseURL: $0) } ?? .production
                }
                self.apns = try APNsConfiguration(credentials: credentials, environment: environment)
            }
            if let fcm = object["fcm"]?.objectValue, let accountFile = string(fcm, "service_account") {
                var json = try Self.read(accountFile, what: "FCM service account")
                let account: FCMServiceAccount
                do {
                    account = try FCMServiceAccount(json: &json)
                } catch {
                    throw Self.diagnosed(error, hint: "the service-account JSON from the Firebase console (Project settings > Service accounts)")
                }
                self.fcm = try FCMConfiguration(serviceAccount: account, sendURL: string(fcm, "send_url"), tokenURL: string(fcm, "token_url"))
            }
        } catch let error as Failure {
            throw error.error
        } catch {
            throw .failure("\(error)")
        }
    }

    /// A diagnosed error carried through the typed-throws `DeliveryError` block.
    private struct Failure: Error { let error: CLIError }

    private static func diagnosed(_ error: DeliveryError, hint: String) -> Failure {
        Failure(error: .failure("\(error)", hints: hint))
    }

    private static func read(_ path: String, what: String) throws(Failure) -> [UInt8] {
        do throws(IOError) {
            return try FileSystem.readFile(at: path, limit: 1 << 20)
        } catch {
            throw Failure(error: .io(error, hints: "the \(what) could not be read"))
        }
    }
}
