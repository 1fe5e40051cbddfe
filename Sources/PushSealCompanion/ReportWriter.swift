import PushSealPlatform
import PushSealCLIKit
import PushSealCommands
import PushSealCore
import PushSealDelivery
import PushSealJSON

/// Writes one JSON line per input line as each settles, counts outcomes, and shows progress on
/// standard error when it is a terminal and standard output is not (results on the same
/// terminal would land inside the progress line). Lines are written in one batch per turn of
/// the sender's loop (``flush()``), so a co-process sees each result within that turn. Every
/// other line on standard error (``message(_:)``, the summary) starts on a line of its own and
/// ends with a newline.
struct ReportWriter {
    private var pending: [UInt8] = []
    private var counts: [String: Int] = [:]
    private(set) var total = 0
    private(set) var notDelivered = 0
    private(set) var writeFailed = false
    private let showsProgress = isatty(2) == 1 && isatty(1) != 1
    /// A progress line is on the terminal without its newline.
    private var progressOpen = false
    private let started = MonotonicClock.seconds()
    private var lastProgress = 0.0
    /// `--json-summary`: a last stdout line of counts per outcome.
    var jsonSummary = false

    /// `{"line":N,"outcome":…,"transport":…[,"status":…][,"timestamp":…][,"reason":…][,"id":…],"attempts":…[,"retry_after":…]}`.
    mutating func write(_ report: DeliveryReport) {
        let (line, transport) = Transport.split(report.tag)
        var writer = JSONWriter(capacity: 160)
        writer.appendRaw("{\"line\":")
        writer.appendInteger(Int64(line))
        writer.appendRaw(",\"outcome\":")
        writer.appendString(report.outcome.rawValue)
        writer.appendRaw(",\"transport\":")
        writer.appendString(transport.name)
        if let status = report.status {
            writer.appendRaw(",\"status\":")
            writer.appendInteger(Int64(status))
        }
        if let timestamp = report.timestamp {
            writer.appendRaw(",\"timestamp\":")
            writer.appendInteger(timestamp)
        }
        if let reason = report.reason {
            writer.appendRaw(",\"reason\":")
            writer.appendString(reason)
        }
        if let identifier = report.identifier {
            writer.appendRaw(",\"id\":")
            writer.appendString(identifier)
        }
        writer.appendRaw(",\"attempts\":")
        writer.appendInteger(Int64(report.attempts))
        if let retryAfter = report.retryAfter {
            writer.appendRaw(",\"retry_after\":")
            writer.appendInteger(Int64(retryAfter))
        }
        writer.appendRaw("}\n")
        emit(writer.bytes, outcome: report.outcome.rawValue)
    }

    /// A dry run's line: `{"line":N,"outcome":"dry_run","transport":…,"url":…,"headers":{…},"bytes":N}`
    /// (no `authorization` header: it would hold a token).
    mutating func writePlanned(line: Int, transport: Transport, request: PlannedRequest) {
        var writer = JSONWriter(capacity: 256)
        writer.appendRaw("{\"line\":")
        writer.appendInteger(Int64(line))
        writer.appendRaw(",\"outcome\":\"dry_run\",\"transport\":")
        writer.appendString(transport.name)
        writer.appendRaw(",\"url\":")
        writer.appendString(request.url)
        writer.appendRaw(",\"headers\":{")
        for (index, header) in request.headers.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendString(header.name)
            writer.appendRaw(":")
            writer.appendString(header.value)
        }
        writer.appendRaw("},\"bytes\":")
        writer.appendInteger(Int64(request.bodyByteCount))
        writer.appendRaw("}\n")
        emit(writer.bytes, outcome: "dry_run")
    }

    /// `{"line":N,"outcome":"invalid","error":{"code":…,"message":…}}`.
    mutating func writeInvalid(line: Int, error: [UInt8]) {
        var writer = JSONWriter(capacity: 64 + error.count)
        writer.appendRaw("{\"line\":")
        writer.appendInteger(Int64(line))
        writer.appendRaw(",\"outcome\":\"invalid\",\"error\":")
        writer.appendRaw(bytes: error)
        writer.appendRaw("}\n")
        emit(writer.bytes, outcome: "invalid")
    }

    private mutating func emit(_ bytes: [UInt8], outcome: String) {
        total += 1
        counts[outcome, default: 0] += 1
        if !Self.successes.contains(outcome) { notDelivered += 1 }
        pending.append(contentsOf: bytes)
        if pending.count >= 32 * 1024 { flush() }
        if showsProgress {
            let now = MonotonicClock.seconds()
            if now - lastProgress >= 0.5 {
                lastProgress = now
                progress(now: now, final: false)
            }
        }
    }

    /// Writes the lines not yet written.
    mutating func flush() {
        defer { pending.removeAll(keepingCapacity: true) }
        if !writeFailed && !pending.isEmpty {
            let failure: IOError? = pending.withUnsafeBytes { buffer in
                do throws(IOError) {
                    try FileDescriptor.write(buffer, to: 1)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure {
                writeFailed = true
                message("pushseal: error: \(failure)\n")
            }
        }
    }

    private mutating func progress(now: Double, final: Bool) {
        let rate = Double(total) / max(now - started, 0.001)
        let text = "\rpushseal: sent \(total) (\(Int(rate))/s), \(counts["delivered", default: 0]) delivered, \(notDelivered) not delivered"
        StandardStreams.writeStandardError(text + (final ? "\n" : ""))
        progressOpen = !final
    }

    /// Writes `text` (whole lines) to standard error, on a line of its own after an open
    /// progress line.
    mutating func message(_ text: String) {
        StandardStreams.writeStandardError((progressOpen ? "\n" : "") + text)
        progressOpen = false
    }

    /// Every outcome's name, in the documented order (then `invalid` and `dry_run`).
    static let outcomeNames = DeliveryOutcome.allCases.map(\.rawValue) + ["invalid", "dry_run"]
    /// The outcomes that are what was asked for (the rest make the exit status 1).
    static let successes: Set<String> = [DeliveryOutcome.delivered.rawValue, DeliveryOutcome.validated.rawValue, "dry_run"]

    /// The closing progress line, a summary of what was not delivered, and with `--json-summary`
    /// `{"summary":{"lines":N,"delivered":…,…,"invalid":…}}` as the last line of standard output.
    mutating func finish() {
        if jsonSummary {
            var writer = JSONWriter(capacity: 200)
            writer.appendRaw("{\"summary\":{\"lines\":")
            writer.appendInteger(Int64(total))
            for name in Self.outcomeNames {
                writer.appendRaw(",")
                writer.appendString(name)
                writer.appendRaw(":")
                writer.appendInteger(Int64(counts[name, default: 0]))
            }
            writer.appendRaw("}}\n")
            pending.append(contentsOf: writer.bytes)
        }
        flush()
        if showsProgress { progress(now: MonotonicClock.seconds(), final: true) }
        guard notDelivered > 0 else { return }
        let parts = Self.outcomeNames.filter { !Self.successes.contains($0) }.compactMap { name in
            counts[name].map { "\(name) \($0)" }
        }
        message("pushseal: note: \(notDelivered) of \(total) notifications not delivered (\(parts.joined(separator: ", ")))\n")
    }
}
