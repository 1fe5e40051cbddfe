import PushSealPlatform
import PushSealCLIKit
import PushSealDelivery

// The delivering half of `pushseal send` (Docs/CLI.md): configuration line, then frames on
// standard input; one JSON result line per input line on standard output.
signal(SIGPIPE, SIG_IGN)

func fail(_ error: CLIError) -> Never {
    StandardStreams.writeStandardError("pushseal: error: \(error)\n")
    if case let .failure(diagnostic) = error {
        for hint in diagnostic.hints { StandardStreams.writeStandardError("pushseal: hint: \(hint)\n") }
    }
    exit(1)
}

if isatty(0) == 1 {
    fail(.failure("pushseal-deliver is started by 'pushseal send', not by hand", hints: "run: pushseal send --help"))
}
var reader = FrameReader(descriptor: 0)
guard let configurationLine = reader.configurationLine() else { exit(1) }
let configuration: DeliverConfiguration
do {
    configuration = try DeliverConfiguration(line: configurationLine)
} catch {
    fail(error)
}
let sender: PushSender
do {
    sender = try PushSender(apns: configuration.apns, fcm: configuration.fcm, options: configuration.options)
} catch {
    fail(.failure("\(error)"))
}
var writer = ReportWriter()
writer.jsonSummary = configuration.jsonSummary
if configuration.dryRun {
    // Every frame read (blocking) and checked as for sending; its request printed, none made.
    readFrames: while true {
        switch reader.next() {
        case .waiting: continue   // a read interrupted by a signal (the descriptor blocks)
        case .finished: break readFrames
        case let .frame(.notification(notification, transport)):
            let line = Transport.split(notification.tag).line
            if let request = sender.plannedRequest(for: notification) {
                writer.writePlanned(line: line, transport: transport, request: request)
            } else {
                writer.writeInvalid(line: line, error: FrameReader.errorObject(
                    code: DeliveryError.transportNotConfigured("").code,
                    message: "no \(transport == .apns ? "APNs" : "FCM") credentials were configured"))
            }
        case let .frame(.invalid(line, error)): writer.writeInvalid(line: line, error: error)
        case let .frame(.malformed(problem)):
            writer.finish()
            fail(.failure("pushseal-deliver: \(problem)", hints: "pushseal and pushseal-deliver must come from the same build"))
        }
    }
    writer.finish()
    exit(writer.notDelivered > 0 || writer.writeFailed ? 1 : 0)
}
reader.makeNonBlocking()
var malformed: String?
/// The services configured, and those stopped by a `configuration` answer (with the error printed).
var configured: Set<PushService> = []
if configuration.apns != nil { configured.insert(.apns) }
if configuration.fcm != nil { configured.insert(.fcm) }
var stoppedServices: Set<PushService> = []
sender.send(input: { () -> PushInput in
    writer.flush()
    if stoppedServices == configured { return .finished }  // every service is misconfigured: stop reading
    while true {
        switch reader.next() {
        case .waiting: return .waiting
        case .finished: return .finished
        case let .frame(.notification(notification, transport)):
            // --validate-only: FCM checks its messages; APNs has no such request, so its lines are a dry run.
            if configuration.options.fcmValidateOnly, transport == .apns, let request = sender.plannedRequest(for: notification) {
                writer.writePlanned(line: Transport.split(notification.tag).line, transport: transport, request: request)
                continue
            }
            return .notification(notification)
        case let .frame(.invalid(line, error)): writer.writeInvalid(line: line, error: error)
        case let .frame(.malformed(problem)):
            malformed = problem
            return .finished
        }
    }
}, readiness: 0, report: { report in
    writer.write(report)
    if report.outcome == .configuration {
        let (line, transport) = Transport.split(report.tag)
        let service: PushService = transport == .apns ? .apns : .fcm
        if !stoppedServices.contains(service) {
            stoppedServices.insert(service)
            writer.flush()
            let problem = sender.configurationProblem(service) ?? report.reason ?? "configuration error"
            let options = service == .apns
                ? "--apns-url or --apns-environment, --apns-topic, --apns-key-id, --apns-team-id, --apns-key-file, --ca-file"
                : "--fcm-url, --fcm-token-url, --fcm-service-account, --ca-file"
            writer.message("""
                pushseal: error: \(service == .apns ? "APNs" : "FCM"): stopped at line \(line): \(problem)
                pushseal: hint: no token was reported dead; fix the configuration (\(options)) and send the undelivered lines again

                """)
        }
    }
    if reader.atEnd { writer.flush() }  // the input is done: nothing else flushes now
})
writer.finish()
if let malformed { fail(.failure("pushseal-deliver: \(malformed)", hints: "pushseal and pushseal-deliver must come from the same build")) }
exit(writer.notDelivered > 0 || writer.writeFailed ? 1 : 0)
