import PushSealPlatform
import PushSealCLIKit
import PushSealCommands
import PushSealDelivery
import PushSealJSON

/// `send`'s delivery in process: the lines the command seals, sent with a ``PushSender`` as they
/// come, one result line per input line as each settles (Docs/CLI.md, `send`).
enum SendDelivery {
    /// Delivers every line of `input` with `configuration` (asking again for input when
    /// `readiness` is readable); the exit status (1 when any line was not delivered).
    static func run(_ configuration: SendConfiguration, readiness: Int32?, input: () -> SendInput) throws(CLIError) -> ExitCode {
        let configuration = try DeliveryConfiguration(configuration)
        let sender: PushSender
        do {
            sender = try PushSender(apns: configuration.apns, fcm: configuration.fcm, options: configuration.options)
        } catch {
            throw .failure("\(error)")
        }
        signal(SIGPIPE, SIG_IGN)
        var writer = ReportWriter()
        writer.jsonSummary = configuration.jsonSummary
        if configuration.dryRun {
            // Every line read (blocking) and checked as for sending; its request printed, none made.
            readLines: while true {
                switch input() {
                case .waiting: continue  // not given without a readiness descriptor, which a dry run has none of
                case .finished: break readLines
                case let .line(line):
                    switch notification(line) {
                    case let .invalid(line, error): writer.writeInvalid(line: line, error: error)
                    case let .notification(notification, transport):
                        let line = Transport.split(notification.tag).line
                        if let request = sender.plannedRequest(for: notification) {
                            writer.writePlanned(line: line, transport: transport, request: request)
                        } else {
                            writer.writeInvalid(line: line, error: errorObject(
                                code: DeliveryError.transportNotConfigured("").code,
                                message: "no \(transport == .apns ? "APNs" : "FCM") credentials were configured"))
                        }
                    }
                }
            }
            writer.finish()
            return writer.notDelivered > 0 || writer.writeFailed ? .failure : .success
        }
        // The services configured, and those stopped by a `configuration` answer (with the error printed).
        var configured: Set<PushService> = []
        if configuration.apns != nil { configured.insert(.apns) }
        if configuration.fcm != nil { configured.insert(.fcm) }
        var stoppedServices: Set<PushService> = []
        var atEnd = false
        sender.send(input: { () -> PushInput in
            writer.flush()
            if stoppedServices == configured { return .finished }  // every service is misconfigured: stop reading
            while true {
                switch input() {
                case .waiting: return .waiting
                case .finished:
                    atEnd = true
                    return .finished
                case let .line(line):
                    switch notification(line) {
                    case let .invalid(line, error): writer.writeInvalid(line: line, error: error)
                    case let .notification(notification, transport):
                        // --validate-only: FCM checks its messages; APNs has no such request, so its lines are a dry run.
                        if configuration.options.fcmValidateOnly, transport == .apns, let request = sender.plannedRequest(for: notification) {
                            writer.writePlanned(line: Transport.split(notification.tag).line, transport: transport, request: request)
                            continue
                        }
                        return .notification(notification)
                    }
                }
            }
        }, readiness: readiness, report: { report in
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
            if atEnd { writer.flush() }  // the input is done: nothing else flushes now
        })
        writer.finish()
        return writer.notDelivered > 0 || writer.writeFailed ? .failure : .success
    }

    /// A sealed line as the sender's notification, or its `invalid` result (an APNs device
    /// token or header the sender refuses).
    private enum Prepared {
        case notification(PushNotification, transport: Transport)
        case invalid(line: Int, error: [UInt8])
    }

    private static func notification(_ line: SealedSend) -> Prepared {
        switch line {
        case let .apns(number, token, headers, body):
            do {
                let notification = try PushNotification(tag: Transport.tag(line: number, .apns), apnsBody: body, deviceToken: token, headers: headers)
                return .notification(notification, transport: .apns)
            } catch {
                return .invalid(line: number, error: errorObject(code: error.code, message: "\(error)"))
            }
        case let .fcm(number, transport, body):
            return .notification(PushNotification(tag: Transport.tag(line: number, transport), fcmBody: body), transport: transport)
        case let .invalid(number, code, message):
            return .invalid(line: number, error: errorObject(code: code, message: message))
        }
    }

    /// `{"code":…,"message":…}`, the error object of an `invalid` result.
    private static func errorObject(code: String, message: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + message.utf8.count)
        writer.appendRaw("{\"code\":")
        writer.appendString(code)
        writer.appendRaw(",\"message\":")
        writer.appendString(message)
        writer.appendRaw("}")
        return writer.bytes
    }
}
