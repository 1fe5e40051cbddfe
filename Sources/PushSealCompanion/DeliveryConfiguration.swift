import PushSealCLIKit
import PushSealCommands
import PushSealCore
import PushSealDelivery
import PushSealJSON
import PushSealPlatform

/// What `send` delivers with: the command's ``SendConfiguration`` with the credentials it names
/// loaded and checked.
struct DeliveryConfiguration {
    var apns: APNsConfiguration?
    var fcm: FCMConfiguration?
    var options = SenderOptions()
    /// `--json-summary`.
    var jsonSummary: Bool
    /// `--dry-run`: check and print every request, send nothing.
    var dryRun: Bool

    /// Loads the credentials `send` names; every failure is a diagnostic with hints.
    init(_ configuration: SendConfiguration) throws(CLIError) {
        options.caFile = configuration.caFile
        jsonSummary = configuration.jsonSummary
        dryRun = configuration.dryRun
        options.fcmValidateOnly = configuration.validateOnly
        options.maximumInFlight = configuration.maximumInFlight
        options.maximumAttempts = configuration.maximumAttempts
        options.requestTimeoutMilliseconds = configuration.timeoutMilliseconds
        options.initialBackoffMilliseconds = configuration.backoffMilliseconds
        options.connectionRetryMilliseconds = configuration.connectionRetryMilliseconds
        do {
            try options.validate()
            if let apns = configuration.apns {
                var pem = try Self.read(apns.keyFile, what: "APNs key file")
                let credentials: APNsCredentials
                do {
                    credentials = try APNsCredentials(privateKeyPEM: &pem, keyID: apns.keyID, teamID: apns.teamID)
                } catch {
                    throw Self.diagnosed(error, hint: "the .p8 file Apple gave for the key (AuthKey_<key id>.p8), with its key id and your team id")
                }
                let environment: APNsEnvironment = if apns.sandbox { .sandbox } else { apns.baseURL.map { .custom(baseURL: $0) } ?? .production }
                self.apns = try APNsConfiguration(credentials: credentials, environment: environment)
            }
            if let fcm = configuration.fcm {
                var json = try Self.read(fcm.serviceAccountFile, what: "FCM service account")
                let account: FCMServiceAccount
                do {
                    account = try FCMServiceAccount(json: &json)
                } catch {
                    throw Self.diagnosed(error, hint: "the service-account JSON from the Firebase console (Project settings > Service accounts)")
                }
                self.fcm = try FCMConfiguration(serviceAccount: account, sendURL: fcm.sendURL, tokenURL: fcm.tokenURL)
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
