#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PushSealCLIKit
import PushSealCore
import PushSealDelivery
import PushSealJSON

/// Writes one JSON line per input line as each settles, counts outcomes, and shows progress on
/// standard error when it is a terminal. Lines are written in one batch per turn of the
/// sender's loop (``flush()``), so a co-process sees each result within that turn.
struct ReportWriter {
    private var pending: [UInt8] = []
    private var counts: [String: Int] = [:]
    private(set) var total = 0
    private(set) var notDelivered = 0
    private(set) var writeFailed = false
    private let showsProgress = isatty(2) == 1
    private let started = monotonicSeconds()
    private var lastProgress = 0.0

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
        if outcome != DeliveryOutcome.delivered.rawValue { notDelivered += 1 }
        pending.append(contentsOf: bytes)
        if pending.count >= 32 * 1024 { flush() }
        if showsProgress {
            let now = monotonicSeconds()
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
                    try StandardStreams.write(buffer, to: 1)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure {
                writeFailed = true
                StandardStreams.writeStandardError("pushseal: error: \(failure)\n")
            }
        }
    }

    private func progress(now: Double, final: Bool) {
        let rate = Double(total) / max(now - started, 0.001)
        let text = "\rpushseal: sent \(total) (\(Int(rate))/s), \(counts["delivered", default: 0]) delivered, \(notDelivered) not delivered"
        StandardStreams.writeStandardError(text + (final ? "\n" : ""))
    }

    /// The closing progress line, and a summary of what was not delivered.
    mutating func finish() {
        flush()
        if showsProgress { progress(now: monotonicSeconds(), final: true) }
        guard notDelivered > 0 else { return }
        let parts = (DeliveryOutcome.allCases.map(\.rawValue) + ["invalid"]).filter { $0 != "delivered" }.compactMap { name in
            counts[name].map { "\(name) \($0)" }
        }
        StandardStreams.writeStandardError(
            "pushseal: note: \(notDelivered) of \(total) notifications not delivered (\(parts.joined(separator: ", ")))\n")
    }
}

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
