import PushSealCLIKit
import PushSealCore
import PushSealKeyStore
import PushSealProvider
import PushSealJSON
import PushSealPlatform

/// `pushseal send`: JSON lines in (device token, transport, content or an already sealed
/// payload), each sealed here and delivered over HTTP/2 in this same process (the companion's
/// ``DeliveryBackend``); one JSON result line per input line out.
enum SendCommand {
    static let transport = Option<Transport>(
        "transport", valueName: "transport", abstract: "The transport of lines that name none.", default: .apns)
    static let apnsKeyFile = Option<String?>(
        "apns-key-file", valueName: "p8", abstract: "The team's APNs signing key (AuthKey_<key id>.p8).")
    static let apnsKeyID = Option<String?>("apns-key-id", valueName: "id", abstract: "The signing key's key id (10 characters).")
    static let apnsTeamID = Option<String?>("apns-team-id", valueName: "id", abstract: "The Apple developer team id (10 characters).")
    static let apnsTopic = Option<String?>(
        "apns-topic", valueName: "bundle-id", abstract: "apns-topic for sealed contents: the app's bundle id.")
    static let apnsEnvironment = Option<APNsEnvironment>(
        "apns-environment", valueName: "env", abstract: "APNs production or sandbox (development builds).", default: .production)
    static let apnsURL = Option<String?>(
        "apns-url", valueName: "url", abstract: "Another APNs base URL (https://host[:port]); overrides --apns-environment.")
    static let fcmServiceAccount = Option<String?>(
        "fcm-service-account", valueName: "json", abstract: "The Firebase service-account JSON file.")
    static let fcmURL = Option<String?>(
        "fcm-url", valueName: "url", abstract: "The FCM messages:send URL (default: the project's on fcm.googleapis.com).")
    static let fcmTokenURL = Option<String?>(
        "fcm-token-url", valueName: "url", abstract: "The OAuth2 token URL (default: the service account's token_uri).")
    static let caFile = Option<String?>(
        "ca-file", valueName: "pem", abstract: "Trust these CA certificates instead of the system's (a test server, a relay).")
    static let maxInFlight = Option<Int64>(
        "max-in-flight", valueName: "n", abstract: "Notifications in progress at once (HTTP/2 streams per connection).",
        default: 256, in: 1...1000)
    static let maxAttempts = Option<Int64>(
        "max-attempts", valueName: "n", abstract: "Requests per notification, retries included.", default: 5, in: 1...20)
    static let timeout = Option<Int64>(
        "timeout", valueName: "seconds", abstract: "Whole-request timeout.", default: 30, in: 1...3600)
    static let connectionRetry = Option<Int64>(
        "connection-retry", valueName: "seconds",
        abstract: "How long a refused or reset connection is retried before the service counts as misconfigured.", default: 30,
        in: 0...3600)
    static let jsonSummary = Flag(
        "json-summary", abstract: "End the output with {\"summary\":{\"lines\":N,<outcome>:<count>,…}} (every outcome, zeros included).")
    static let dryRun = Flag(
        "dry-run", abstract: "Check and seal every line and print the request it would make (URL, headers, size); send nothing.")
    static let validateOnly = Flag(
        "validate-only", abstract: "FCM: send with validate_only (FCM checks, delivers nothing; outcome validated). APNs lines: as --dry-run.")
    static let backoff = Option<Int64>(
        "backoff-ms", valueName: "ms", abstract: "First retry delay (doubling, with jitter).", default: 500, in: 0...600_000)
    static let file = CommonOptions.inputFile("notifications (JSON lines)")

    /// `--apns-environment`: which APNs service the helper sends to.
    enum APNsEnvironment: String, CaseIterable, ArgumentValue {
        /// api.push.apple.com: App Store, TestFlight and ad hoc builds.
        case production
        /// api.sandbox.push.apple.com: development builds.
        case sandbox
    }

    static let spec = CommandSpec(
        name: "send",
        abstract: "Seal notifications and deliver them to APNs and FCM over HTTP/2.",
        discussion: """
            Reads JSON lines, one notification each:
              {"token":"<device token>","content":{…}}
                  sealed here with --key, --key-file or --store
              {"token":"…","transport":"fcm","content":{…},"key":"<K>"}
                  a per-line key and transport
              {"token":"…","headers":{"apns-topic":…},"payload":{…}}
                  an already sealed payload
            "transport" is apns, fcm (Android data message) or fcm-apns (an iOS device through \
            FCM); lines without one use --transport. The output of 'pushseal seal \
            --with-headers' plus a "token" is a valid line.

            Writes one JSON line per input line, as each settles (not in input order), e.g.
              {"line":1,"outcome":"delivered","transport":"apns","status":200,
               "id":"…","attempts":1}
            outcome is delivered, retry (send it again later), token_dead (remove the token; \
            APNs adds the 410's "timestamp"), token_invalid (check the APNs environment and \
            topic before removing it), rejected (with the service's reason), configuration (a \
            wrong URL, project, topic, credentials or certificate: the service is not sent to \
            again, an error line says why, and no token is reported dead), or invalid (the line \
            itself is wrong; with an error object). 429 and 5xx answers and stream failures \
            are retried with exponential backoff and jitter (honouring Retry-After) up to \
            --max-attempts; a refused or reset connection for --connection-retry seconds; a \
            403 refreshes the provider or access token once. Docs/PROVIDER.md §7.4 says what \
            to do with each outcome.

            Memory stays constant whatever the input's length: at most --max-in-flight \
            notifications are in progress. Progress goes to standard error when it is a \
            terminal and standard output is not; the summary of what was not delivered \
            ends with a newline. With --json-summary the last output line is \
            {"summary":{"lines":N,"delivered":…,…,"dry_run":…}}, every outcome counted. --dry-run \
            checks and seals every line and prints the request it would make instead of \
            sending it (outcome dry_run); --validate-only sends FCM lines with validate_only \
            (outcome validated, nothing delivered) and treats APNs lines as a dry run. Exit \
            status 1 when any line was not delivered.

            Examples:
              pushseal send --store keys --apns-key-file AuthKey_ABC123DEFG.p8 \\
                --apns-key-id ABC123DEFG --apns-team-id DEF123GHIJ \\
                --apns-topic com.example.chat < batch.jsonl
              pushseal send --key-file c.key --transport fcm \\
                --fcm-service-account sa.json < batch.jsonl
            """,
        usage: "[--key <key> | --key-file <file> | --store <dir>] (--apns-key-file <p8> … | --fcm-service-account <json> …) [<options>] [<file>]",
        arguments: [file],
        options: [
            CommonOptions.key, CommonOptions.keyFile, SealCommand.store, CommonOptions.masterKeyFile, transport,
            apnsKeyFile, apnsKeyID, apnsTeamID, apnsTopic, apnsEnvironment, apnsURL,
            fcmServiceAccount, fcmURL, fcmTokenURL,
            SealCommand.placeholderTitle, SealCommand.placeholderBody, SealCommand.padBlock,
            caFile, maxInFlight, maxAttempts, timeout, backoff, connectionRetry, jsonSummary, dryRun, validateOnly,
        ],
        run: run)

    /// The validated command line.
    struct Options {
        var keySource: SealCommand.KeySource?
        var transport: Transport
        var apnsTopic: String?
        var placeholderTitle: String?
        var placeholderBody: String
        var padBlock: Int
        var inputPath: String?
        /// What the delivery backend delivers with (paths, ids, URLs, limits).
        var configuration: SendConfiguration
    }

    static func options(_ context: CommandContext) throws(CLIError) -> Options {
        let arguments = context.arguments
        let apnsKeyFile = try arguments[Self.apnsKeyFile]
        let apnsGiven = apnsKeyFile != nil
        for option in [apnsKeyID, apnsTeamID, apnsURL] where arguments.isPresent(option) && !apnsGiven {
            throw .usage("'--\(option.spec.name)' needs '--apns-key-file <p8>'.")
        }
        if apnsGiven && (!arguments.isPresent(apnsKeyID) || !arguments.isPresent(apnsTeamID)) {
            throw .usage("'--apns-key-file <p8>' needs '--apns-key-id <id>' and '--apns-team-id <id>'.")
        }
        let fcmServiceAccount = try arguments[Self.fcmServiceAccount]
        let fcmGiven = fcmServiceAccount != nil
        for option in [fcmURL, fcmTokenURL] where arguments.isPresent(option) && !fcmGiven {
            throw .usage("'--\(option.spec.name)' needs '--fcm-service-account <json>'.")
        }
        let validateOnly = arguments[Self.validateOnly]
        let dryRun = arguments[Self.dryRun]
        if validateOnly && !fcmGiven {
            throw .usage("'--validate-only' is FCM's validate_only: it needs '--fcm-service-account <json>' (for APNs, use '--dry-run').")
        }
        if validateOnly && dryRun {
            throw .usage("Give '--dry-run' (nothing is sent) or '--validate-only' (FCM checks each message), not both.")
        }
        guard apnsGiven || fcmGiven else {
            throw .usage("Nothing to send with: give '--apns-key-file <p8>' (with its ids), '--fcm-service-account <json>', or both.")
        }
        let apns: SendConfiguration.APNs? = if let apnsKeyFile, let keyID = try arguments[apnsKeyID], let teamID = try arguments[apnsTeamID] {
            SendConfiguration.APNs(
                keyFile: apnsKeyFile, keyID: keyID, teamID: teamID, sandbox: try arguments[apnsEnvironment] == .sandbox, baseURL: try arguments[apnsURL])
        } else {
            nil
        }
        let fcm: SendConfiguration.FCM? = if let fcmServiceAccount {
            SendConfiguration.FCM(serviceAccountFile: fcmServiceAccount, sendURL: try arguments[fcmURL], tokenURL: try arguments[fcmTokenURL])
        } else {
            nil
        }
        let configuration = SendConfiguration(
            apns: apns, fcm: fcm, caFile: try arguments[caFile], maximumInFlight: Int(try arguments[maxInFlight]),
            maximumAttempts: Int(try arguments[maxAttempts]), timeoutMilliseconds: Int(try arguments[timeout] * 1000),
            backoffMilliseconds: Int(try arguments[backoff]), connectionRetryMilliseconds: Int(try arguments[connectionRetry] * 1000),
            jsonSummary: arguments[jsonSummary], dryRun: dryRun, validateOnly: validateOnly)
        return Options(
            keySource: try SealCommand.keySource(context),
            transport: try arguments[transport],
            apnsTopic: try arguments[apnsTopic],
            placeholderTitle: try arguments[SealCommand.placeholderTitle],
            placeholderBody: try arguments[SealCommand.placeholderBody],
            padBlock: try arguments[SealCommand.padBlock],
            inputPath: try arguments[file],
            configuration: configuration)
    }

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let options = try options(context)
        guard let delivery = context.backends.delivery else {
            // `pushseal` hands every `send` to its companion before parsing.
            throw .failure(
                "this executable does not link delivery (libcurl)", hints: "run: pushseal send, which runs \(Companion.executableName) for it")
        }
        let sealer: NotificationSealer
        do {
            sealer = try NotificationSealer(padBlock: options.padBlock)
        } catch {
            throw .failure("\(error)")
        }
        let keyProvider = try options.keySource.map(SealCommand.makeKeyProvider)
        let reader = try context.inputLines(
            from: options.inputPath, what: "notifications (one JSON line each)", maximumLineByteCount: SealRequestLine.maximumByteCount)
        // Standard input may have no complete line yet (a co-process): the sender keeps its
        // transfers moving meanwhile and asks again when it is readable. A file always is, and
        // a dry run has no transfers: both read blocking.
        let readsStandardInput = options.inputPath == nil || options.inputPath == "-"
        let readiness: Int32? = readsStandardInput && !options.configuration.dryRun ? 0 : nil
        var lineNumber = 0
        var readFailure: CLIError?
        let status = try delivery.run(options.configuration, readiness) { () -> SendInput in
            while true {
                if let readiness, !reader.hasBufferedLine, !FileDescriptor.isReadable(readiness) { return .waiting }
                let next: JSONLine?
                do throws(CLIError) {
                    next = try reader.nextLine()
                } catch {
                    readFailure = error
                    return .finished
                }
                guard let line = next else { return .finished }
                lineNumber += 1
                switch line {
                case .tooLong:
                    return .line(.invalid(line: lineNumber, code: "line_too_long", message: "the line is longer than \(SealRequestLine.maximumByteCount) bytes"))
                case var .complete(bytes):
                    if bytes.last == 13 { bytes.removeLast() }
                    if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                    do throws(SendLine.Failure) {
                        return .line(try SendLine(parsing: bytes, options: options).sealed(
                            line: lineNumber, sealer: sealer, keyProvider: keyProvider, options: options))
                    } catch {
                        return .line(.invalid(line: lineNumber, code: error.code, message: error.message))
                    }
                }
            }
        }
        if let readFailure { throw readFailure }
        return status
    }
}
