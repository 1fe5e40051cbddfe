import PushSealCLIKit
import PushSealProvider

/// What `send` delivers with, from its command line (file paths, ids, URLs and limits; never
/// key material): the delivery backend (``DeliveryBackend``) loads the credentials it names.
package struct SendConfiguration: Sendable {
    /// `--apns-key-file`, `--apns-key-id`, `--apns-team-id`, `--apns-environment` and `--apns-url`.
    package struct APNs: Sendable {
        /// The .p8 signing key's file.
        package var keyFile: String
        /// The signing key's key id.
        package var keyID: String
        /// The developer team id.
        package var teamID: String
        /// `--apns-environment sandbox`.
        package var sandbox: Bool
        /// `--apns-url`: another base URL (overrides the environment).
        package var baseURL: String?
    }

    /// `--fcm-service-account`, `--fcm-url` and `--fcm-token-url`.
    package struct FCM: Sendable {
        /// The service-account JSON file.
        package var serviceAccountFile: String
        /// The messages:send URL, when not the project's.
        package var sendURL: String?
        /// The OAuth2 token URL, when not the service account's.
        package var tokenURL: String?
    }

    /// APNs, when configured.
    package var apns: APNs?
    /// FCM, when configured.
    package var fcm: FCM?
    /// `--ca-file`.
    package var caFile: String?
    /// `--max-in-flight`.
    package var maximumInFlight: Int
    /// `--max-attempts`.
    package var maximumAttempts: Int
    /// `--timeout`, in milliseconds.
    package var timeoutMilliseconds: Int
    /// `--backoff-ms`.
    package var backoffMilliseconds: Int
    /// `--connection-retry`, in milliseconds.
    package var connectionRetryMilliseconds: Int
    /// `--json-summary`.
    package var jsonSummary: Bool
    /// `--dry-run`: check and print every request, send nothing.
    package var dryRun: Bool
    /// `--validate-only`: FCM's validate_only (APNs lines as a dry run).
    package var validateOnly: Bool
}

/// One input line of `send`, sealed (or found invalid) by the command, for the delivery backend.
package enum SealedSend: Sendable {
    /// An APNs request: the device token, the headers, the JSON body.
    case apns(line: Int, token: String, headers: [HTTPHeader], body: [UInt8])
    /// An FCM v1 request body (`fcm`, or `fcm-apns` for an iOS device through FCM).
    case fcm(line: Int, transport: Transport, body: [UInt8])
    /// A line that cannot be sent: its `invalid` result's code and message.
    case invalid(line: Int, code: String, message: String)
}

/// What `send`'s input has for the delivery backend right now.
package enum SendInput: Sendable {
    /// The next line.
    case line(SealedSend)
    /// Nothing yet (standard input has no complete line); more may come.
    case waiting
    /// No more.
    case finished
}

/// Delivery over HTTP/2 (libcurl), linked by the companion only: runs a whole `send` in process,
/// pulling the sealed lines from `input` (which answers `.waiting` only when `readiness` is
/// given; the backend asks again when it is readable), writing
/// one result line per input line; the exit status.
package struct DeliveryBackend: Sendable {
    /// Delivers every line of `input` with `configuration`; throws when the configuration
    /// cannot be loaded (before any line is read).
    package var run: @Sendable (_ configuration: SendConfiguration, _ readiness: Int32?, _ input: () -> SendInput) throws(CLIError) -> ExitCode

    /// A backend from its function.
    package init(run: @escaping @Sendable (SendConfiguration, Int32?, () -> SendInput) throws(CLIError) -> ExitCode) {
        self.run = run
    }
}
