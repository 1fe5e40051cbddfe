internal import PushSealPlatform
internal import PushSealCore
public import PushSealProvider

/// Sends sealed notifications to APNs and FCM over HTTP/2: one connection per service, many
/// streams on it, at most ``SenderOptions/maximumInFlight`` notifications in progress, retries
/// with exponential backoff and jitter (the same bytes resent), one token refresh on an
/// authentication failure, and one ``DeliveryReport`` per notification.
///
/// ```swift
/// var p8 = try Array(readFile("AuthKey_ABC123DEFG.p8"))
/// let credentials = try APNsCredentials(privateKeyPEM: &p8, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
/// let sender = try PushSender(apns: APNsConfiguration(credentials: credentials, environment: .sandbox))
/// let request = try sealer.seal(content, with: key, options: APNsOptions(topic: "com.example.chat"))
/// let reports = sender.send([try PushNotification(tag: 1, apns: request, deviceToken: token)])
/// if reports[0].outcome == .tokenDead { forget(token) }
/// ```
///
/// A sender is driven by one thread at a time (``send(next:report:)`` runs until its input is
/// done); use one sender per thread.
public final class PushSender {
    private let client: HTTPClient
    private let options: SenderOptions
    private let apns: (configuration: APNsConfiguration, tokens: APNsTokenCache)?
    private let fcm: (configuration: FCMConfiguration, tokens: FCMAccessTokens)?

    /// A notification in progress.
    private struct Pending {
        var notification: PushNotification
        var attempts = 0
        var refreshedCredentials = false
        /// The authorization token the last attempt carried.
        var credential = ""
    }

    private var pending: [Int: Pending] = [:]
    /// Notifications waiting for a retry: (due time in monotonic milliseconds, id).
    private var waiting: [(due: UInt64, id: Int)] = []
    private var nextID = 0
    /// The services stopped by a configuration answer, with its reason.
    private var stopped: [PushService: String] = [:]
    /// When a service's connection failures began (monotonic milliseconds), until it answers.
    private var unreachableSince: [PushService: UInt64] = [:]

    /// A sender for the configured services (at least one).
    public init(apns: APNsConfiguration? = nil, fcm: FCMConfiguration? = nil, options: SenderOptions = SenderOptions()) throws(DeliveryError) {
        try options.validate()
        guard apns != nil || fcm != nil else { throw .invalidOption(field: "services", detail: "configure APNs, FCM or both") }
        self.options = options
        self.client = try HTTPClient(options: HTTPClient.Options(
            caFile: options.caFile, requestTimeoutMilliseconds: options.requestTimeoutMilliseconds,
            connectTimeoutMilliseconds: options.connectTimeoutMilliseconds, maximumStreams: options.maximumInFlight))
        self.apns = apns.map {
            ($0, APNsTokenCache(credentials: $0.credentials, lifetime: options.apnsTokenLifetime, minimumRefreshInterval: options.apnsMinimumRefreshInterval))
        }
        self.fcm = fcm.map { ($0, FCMAccessTokens(configuration: $0, refreshMargin: options.fcmTokenRefreshMargin)) }
    }

    /// Sends every notification and returns their reports in the same order.
    public func send(_ notifications: [PushNotification]) -> [DeliveryReport] {
        var iterator = notifications.enumerated().makeIterator()
        var reports = [DeliveryReport?](repeating: nil, count: notifications.count)
        var tags: [Int] = []
        tags.reserveCapacity(notifications.count)
        send(next: { () -> PushNotification? in
            guard let (index, notification) = iterator.next() else { return nil }
            tags.append(notification.tag)
            var renumbered = notification
            renumbered.tag = index
            return renumbered
        }, report: { report in
            reports[report.tag] = DeliveryReport(
                tag: tags[report.tag], outcome: report.outcome, status: report.status, reason: report.reason,
                identifier: report.identifier, attempts: report.attempts, retryAfter: report.retryAfter, timestamp: report.timestamp)
        })
        return reports.map { $0! }
    }

    /// Pulls notifications from `next` (until it returns nil) while fewer than
    /// ``SenderOptions/maximumInFlight`` are in progress, and calls `report` for each as it
    /// settles (in completion order, on this thread). Returns when every one is reported.
    public func send(next: () -> PushNotification?, report: (DeliveryReport) -> Void) {
        send(input: { next().map(PushInput.notification) ?? .finished }, report: report)
    }

    /// Like ``send(next:report:)`` for a source that may have nothing ready yet (a pipe, a
    /// queue): when `input` answers ``PushInput/waiting``, the sender keeps the transfers in
    /// flight moving and asks again when `readiness` is readable (or within a second).
    public func send(input: () -> PushInput, readiness: Int32? = nil, report: (DeliveryReport) -> Void) {
        var exhausted = false
        while true {
            var inputWaiting = false
            while !exhausted && !inputWaiting && pending.count < options.maximumInFlight {
                switch input() {
                case let .notification(notification): admit(notification, report: report)
                case .waiting: inputWaiting = true
                case .finished: exhausted = true
                }
            }
            var now = MonotonicClock.milliseconds()
            if !waiting.isEmpty {
                let due = waiting.filter { $0.due <= now }
                waiting.removeAll { $0.due <= now }
                for entry in due { startAttempt(entry.id, report: report) }
            }
            if pending.isEmpty && exhausted { return }
            if pending.isEmpty && !inputWaiting { continue }
            now = MonotonicClock.milliseconds()
            var wait: UInt64 = 1000
            if let soonest = waiting.lazy.map(\.due).min() { wait = min(wait, soonest > now ? soonest - now : 0) }
            let wake = inputWaiting ? readiness : nil
            client.run(waitMilliseconds: Int(wait), wakeOn: wake) { id, result in complete(id, result, report: report) }
        }
    }

    private func admit(_ notification: PushNotification, report: (DeliveryReport) -> Void) {
        let id = nextID
        nextID += 1
        pending[id] = Pending(notification: notification)
        switch notification.destination {
        case .apns where apns == nil: finish(id, .rejected, status: nil, reason: "no APNs credentials configured", report: report)
        case .fcm where fcm == nil: finish(id, .rejected, status: nil, reason: "no FCM service account configured", report: report)
        default: startAttempt(id, report: report)
        }
    }

    /// `{"validate_only":true,"message":…}` from the sealed `{"message":…}` (FCM checks the
    /// message and the credentials and sends nothing).
    static func validateOnly(_ body: [UInt8]) -> [UInt8] {
        guard body.first == UInt8(ascii: "{") else { return body }
        return Array(#"{"validate_only":true,"#.utf8) + body.dropFirst()
    }

    /// The request the sender would make for `notification`, without sending it (a dry run):
    /// the URL, the headers other than `authorization`, and the body's size. Nil for a service
    /// the sender has no credentials for.
    public func plannedRequest(for notification: PushNotification) -> PlannedRequest? {
        switch notification.destination {
        case let .apns(deviceToken, headers):
            guard let apns else { return nil }
            return PlannedRequest(
                service: .apns, url: apns.configuration.environment.baseURL + "/3/device/" + deviceToken,
                headers: [HTTPHeader(name: "content-type", value: "application/json")] + headers, bodyByteCount: notification.body.count)
        case .fcm:
            guard let fcm else { return nil }
            let count = options.fcmValidateOnly ? Self.validateOnly(notification.body).count : notification.body.count
            return PlannedRequest(
                service: .fcm, url: fcm.configuration.sendURL,
                headers: [HTTPHeader(name: "content-type", value: "application/json; charset=UTF-8")], bodyByteCount: count)
        }
    }

    /// The service a notification goes to.
    private static func service(of notification: PushNotification) -> PushService {
        if case .apns = notification.destination { .apns } else { .fcm }
    }

    /// Why the sender stopped sending to `service` (its first ``DeliveryOutcome/configuration``
    /// answer), or nil while it sends. Once stopped, every further notification for that service
    /// is reported `configuration` without a request.
    public func configurationProblem(_ service: PushService) -> String? {
        stopped[service]
    }

    private func startAttempt(_ id: Int, report: (DeliveryReport) -> Void) {
        guard var entry = pending[id] else { return }
        if let problem = stopped[Self.service(of: entry.notification)] {
            finish(id, .configuration, status: nil, reason: "not sent: \(problem)", report: report)
            return
        }
        let now = options.clock()
        let request: HTTPRequest
        switch entry.notification.destination {
        case let .apns(deviceToken, headers):
            guard let apns else { return }
            do {
                entry.credential = try apns.tokens.current(now: now)
            } catch {
                stop(.apns, id, status: nil, reason: "\(error)", report: report)
                return
            }
            var lines = ["authorization: bearer \(entry.credential)", "content-type: application/json"]
            for header in headers { lines.append("\(header.name): \(header.value)") }
            request = HTTPRequest(url: apns.configuration.environment.baseURL + "/3/device/" + deviceToken, headers: lines, body: entry.notification.body)
        case .fcm:
            guard let fcm else { return }
            do {
                entry.credential = try fcm.tokens.current(now: now, client: client)
            } catch {
                entry.attempts += 1
                pending[id] = entry
                tokenUnavailable(id, error, report: report)
                return
            }
            request = HTTPRequest(
                url: fcm.configuration.sendURL,
                headers: ["authorization: Bearer \(entry.credential)", "content-type: application/json; charset=UTF-8"],
                body: options.fcmValidateOnly ? Self.validateOnly(entry.notification.body) : entry.notification.body)
        }
        entry.attempts += 1
        pending[id] = entry
        client.start(request, tag: id)
    }

    private func tokenUnavailable(_ id: Int, _ failure: FCMAccessTokens.Failure, report: (DeliveryReport) -> Void) {
        switch failure {
        case let .refused(status, reason):
            stop(.fcm, id, status: status == 0 ? nil : status,
                 reason: status == 0 ? reason : "\(reason): the token endpoint refused the service account; check the service-account file and the token URL",
                 report: report)
        case let .unavailable(status, reason):
            retryOrFinish(id, status: status, reason: reason, retryAfter: nil, report: report)
        case let .transport(transport):
            transportFailed(id, transport, service: .fcm, report: report)
        }
    }

    private func complete(_ id: Int, _ result: Result<HTTPResponse, TransportFailure>, report: (DeliveryReport) -> Void) {
        guard var entry = pending[id] else { return }
        let service = Self.service(of: entry.notification)
        let response: HTTPResponse
        switch result {
        case let .failure(failure):
            transportFailed(id, failure, service: service, report: report)
            return
        case let .success(answer):
            response = answer
        }
        unreachableSince[service] = nil
        let (kind, reason) = service == .apns ? ResponseClassifier.apns(response) : ResponseClassifier.fcm(response)
        switch kind {
        case let .delivered(identifier):
            let outcome: DeliveryOutcome = service == .fcm && options.fcmValidateOnly ? .validated : .delivered
            finish(id, outcome, status: response.status, reason: nil, identifier: identifier, report: report)
        case .retry:
            retryOrFinish(id, status: response.status, reason: reason, retryAfter: response.retryAfter, report: report)
        case let .tokenDead(timestamp):
            finish(id, .tokenDead, status: response.status, reason: reason, timestamp: timestamp, report: report)
        case .tokenInvalid:
            finish(id, .tokenInvalid, status: response.status, reason: reason, report: report)
        case .rejected:
            finish(id, .rejected, status: response.status, reason: reason, report: report)
        case .configuration:
            stop(service, id, status: response.status, reason: reason ?? "HTTP \(response.status)", report: report)
        case .authentication:
            let refused = "\(reason ?? "HTTP \(response.status)"): " + (service == .apns
                ? "APNs refused the provider token; check the key id, the team id, the .p8 key and the environment"
                : "FCM refused the access token; check the service account and its project")
            guard !entry.refreshedCredentials, entry.attempts < options.maximumAttempts, stopped[service] == nil else {
                stop(service, id, status: response.status, reason: refused, report: report)
                return
            }
            entry.refreshedCredentials = true
            pending[id] = entry
            let now = options.clock()
            if let apns, service == .apns {
                let fresh: String?
                do { fresh = try apns.tokens.afterRejection(of: entry.credential, now: now) } catch { fresh = nil }
                guard fresh != nil else {
                    stop(service, id, status: response.status, reason: refused, report: report)
                    return
                }
            } else if let fcm {
                do {
                    _ = try fcm.tokens.afterRejection(of: entry.credential, now: now, client: client)
                } catch {
                    tokenUnavailable(id, error, report: report)
                    return
                }
            }
            startAttempt(id, report: report)
        }
    }

    /// A transfer without an answer: a certificate, host-name or URL failure stops the service
    /// at once; a refused or reset connection is retried with backoff until the service has been
    /// unreachable for ``SenderOptions/connectionRetryMilliseconds``, then stops it; anything
    /// else (a stream reset, a timeout) is retried like a 5xx.
    private func transportFailed(_ id: Int, _ failure: TransportFailure, service: PushService, report: (DeliveryReport) -> Void) {
        switch ResponseClassifier.transport(failure) {
        case .configuration:
            stop(service, id, status: nil, reason: ResponseClassifier.transportReason(failure), report: report)
        case .connection:
            let now = MonotonicClock.milliseconds()
            let since = unreachableSince[service] ?? now
            unreachableSince[service] = since
            let elapsed = now - since
            guard elapsed < UInt64(options.connectionRetryMilliseconds) else {
                stop(service, id, status: nil,
                     reason: "\(failure.message) (for \(elapsed / 1000) s): check the URL's host and port, and that the service is reachable from here",
                     report: report)
                return
            }
            retryOrFinish(id, status: nil, reason: failure.message, retryAfter: nil, unbounded: true, report: report)
        case .retry:
            retryOrFinish(id, status: nil, reason: failure.message, retryAfter: nil, report: report)
        }
    }

    /// Reports `configuration` for `id` and stops sending to `service`: the notifications
    /// waiting for a retry there are reported at once, later ones when they come.
    private func stop(_ service: PushService, _ id: Int, status: Int?, reason: String, report: (DeliveryReport) -> Void) {
        if stopped[service] == nil { stopped[service] = reason }
        finish(id, .configuration, status: status, reason: reason, report: report)
        let problem = stopped[service]!
        let halted = waiting.filter { pending[$0.id].map { Self.service(of: $0.notification) == service } ?? true }
        waiting.removeAll { entry in halted.contains { $0.id == entry.id } }
        for entry in halted {
            finish(entry.id, .configuration, status: nil, reason: "not sent again: \(problem)", report: report)
        }
    }

    /// Schedules another attempt after the backoff (at least `Retry-After`), or reports `retry`
    /// when the attempts are used up (unless `unbounded`: a connection failure, bounded in time
    /// instead) or the service asks for a longer wait than allowed.
    private func retryOrFinish(
        _ id: Int, status: Int?, reason: String?, retryAfter: Int?, unbounded: Bool = false, report: (DeliveryReport) -> Void
    ) {
        guard let entry = pending[id] else { return }
        if let problem = stopped[Self.service(of: entry.notification)] {
            finish(id, .configuration, status: status, reason: "not sent again: \(problem)", report: report)
            return
        }
        if (!unbounded && entry.attempts >= options.maximumAttempts) || (retryAfter ?? 0) > options.maximumRetryAfterSeconds {
            finish(id, .retry, status: status, reason: reason, retryAfter: retryAfter, report: report)
            return
        }
        let exponent = min(entry.attempts - 1, 30)
        let ceiling = min(UInt64(options.initialBackoffMilliseconds) << UInt64(max(exponent, 0)), UInt64(options.maximumBackoffMilliseconds))
        var delay = ceiling / 2 + (ceiling > 1 ? UInt64.random(in: 0...(ceiling - ceiling / 2)) : ceiling)
        if let retryAfter { delay = max(delay, UInt64(retryAfter) * 1000) }
        waiting.append((MonotonicClock.milliseconds() + delay, id))
    }

    private func finish(
        _ id: Int, _ outcome: DeliveryOutcome, status: Int?, reason: String?, identifier: String? = nil, retryAfter: Int? = nil,
        timestamp: Int64? = nil, report: (DeliveryReport) -> Void
    ) {
        guard let entry = pending.removeValue(forKey: id) else { return }
        report(DeliveryReport(
            tag: entry.notification.tag, outcome: outcome, status: status, reason: reason, identifier: identifier,
            attempts: entry.attempts, retryAfter: retryAfter, timestamp: timestamp))
    }
}

/// A request a ``PushSender`` would make (``PushSender/plannedRequest(for:)``): everything but
/// the `authorization` header, which holds a token and is never shown.
public struct PlannedRequest: Sendable, Equatable {
    /// The service.
    public let service: PushService
    /// The URL it would POST to.
    public let url: String
    /// The request headers, `authorization` left out.
    public let headers: [HTTPHeader]
    /// The body's size in bytes.
    public let bodyByteCount: Int
}

/// What a source of notifications has for a ``PushSender`` right now.
public enum PushInput: Sendable {
    /// The next notification.
    case notification(PushNotification)
    /// Nothing yet; more may come.
    case waiting
    /// No more.
    case finished
}
