import PushSealCore
import PushSealJSON

/// One measured figure: a median, and its ratio to the raw AEAD of the same padded size.
package struct Figure: Sendable {
    /// Stable name, e.g. `seal.apns.512`.
    package var name: String
    /// `limit`, `seal`, `open`, `keystore`, `process`.
    package var group: String
    /// Cores used (1, or every core).
    package var cores: Int
    /// Median nanoseconds per operation (per item for batches; wall time per process).
    package var medianNanoseconds: Double
    /// Median CPU nanoseconds per operation (the whole process; for I/O-bound figures less than
    /// the wall time).
    package var cpuMedianNanoseconds: Double?
    /// Throughput relative to the limit figure in the same run: limit time / this time
    /// (the median of the per-round ratios when both are measured in every round).
    package var ratio: Double?
    /// The same ratio computed from CPU times (insensitive to other processes taking the CPU).
    package var cpuRatio: Double?
    /// The limit figure the ratio refers to.
    package var limit: String?
    /// For an all-core figure: single-core time / this time.
    package var speedup: Double?
    /// For an all-core figure: cores × single-core CPU time per operation / this CPU time per
    /// operation, capped at the cores — the speedup an otherwise idle machine would show.
    package var cpuScaling: Double?
    /// The single-core figure the speedup refers to.
    package var speedupBase: String?
    /// Number of samples the median is taken over.
    package var samples: Int
    /// Operations per sample (1 for processes).
    package var iterations: Int
    /// A target this figure is judged against, e.g. `ratio >= 0.33`.
    package var target: String?
    /// Whether ``target`` was met.
    package var targetMet: Bool?
    /// Further fields: sizes, key counts, peak RSS.
    var attributes: [(String, Attribute)] = []

    /// Operations per second (aggregate over the figure's cores).
    package var operationsPerSecond: Double { medianNanoseconds > 0 ? 1e9 / medianNanoseconds : 0 }

    /// An integer attribute (`content_bytes`, `padded_bytes`, `keys`, `rss_kib_max`, …).
    package func integer(_ name: String) -> Int? {
        for (key, value) in attributes where key == name {
            if case let .integer(number) = value { return number }
        }
        return nil
    }

    /// The figure as one compact JSON object (no newline).
    package var jsonLine: String {
        var writer = JSONWriter(capacity: 256)
        writer.appendRaw("{\"figure\":")
        writer.appendString(name)
        writer.appendRaw(",\"group\":")
        writer.appendString(group)
        writer.appendRaw(",\"cores\":")
        writer.appendInteger(Int64(cores))
        writer.appendRaw(",\"median_ns\":")
        writer.appendRaw(bytes: Decimal.fixed(medianNanoseconds, decimals: 1).utf8)
        if let cpuMedianNanoseconds {
            writer.appendRaw(",\"cpu_median_ns\":")
            writer.appendRaw(bytes: Decimal.fixed(cpuMedianNanoseconds, decimals: 1).utf8)
        }
        writer.appendRaw(",\"ops_per_second\":")
        writer.appendRaw(bytes: Decimal.fixed(operationsPerSecond, decimals: 0).utf8)
        writer.appendRaw(",\"ratio\":")
        writer.appendRaw(bytes: (ratio.map { Decimal.significant($0, digits: 4) } ?? "null").utf8)
        if let cpuRatio {
            writer.appendRaw(",\"cpu_ratio\":")
            writer.appendRaw(bytes: Decimal.significant(cpuRatio, digits: 4).utf8)
        }
        writer.appendRaw(",\"limit\":")
        if let limit { writer.appendString(limit) } else { writer.appendRaw("null") }
        if let speedup {
            writer.appendRaw(",\"speedup\":")
            writer.appendRaw(bytes: Decimal.fixed(speedup, decimals: 3).utf8)
            if let cpuScaling {
                writer.appendRaw(",\"cpu_scaling\":")
                writer.appendRaw(bytes: Decimal.fixed(cpuScaling, decimals: 3).utf8)
            }
            writer.appendRaw(",\"speedup_base\":")
            writer.appendString(speedupBase ?? "")
        }
        writer.appendRaw(",\"samples\":")
        writer.appendInteger(Int64(samples))
        writer.appendRaw(",\"iterations\":")
        writer.appendInteger(Int64(iterations))
        for (key, value) in attributes {
            writer.appendRaw(",")
            writer.appendString(key)
            writer.appendRaw(":")
            switch value {
            case let .integer(number): writer.appendInteger(Int64(number))
            case let .number(number): writer.appendRaw(bytes: Decimal.fixed(number, decimals: 3).utf8)
            case let .text(text): writer.appendString(text)
            case let .numbers(numbers):
                writer.appendRaw("[")
                for (offset, number) in numbers.enumerated() {
                    if offset > 0 { writer.appendRaw(",") }
                    writer.appendRaw(bytes: Decimal.fixed(number, decimals: 1).utf8)
                }
                writer.appendRaw("]")
            }
        }
        if let target {
            writer.appendRaw(",\"target\":")
            writer.appendString(target)
            writer.appendRaw(",\"target_met\":")
            writer.appendRaw(targetMet == true ? "true" : "false")
        }
        writer.appendRaw("}")
        return writer.text
    }
}

/// Fixed-point decimal text without Foundation.
enum Decimal {
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return String(value) }
        let units = UInt64(scaled)
        let divisor = UInt64(scale)
        var text = String(units / divisor)
        if decimals > 0 {
            var fraction = String(units % divisor)
            while fraction.utf8.count < decimals { fraction = "0" + fraction }
            text += "." + fraction
        }
        return (value < 0 && units != 0 ? "-" : "") + text
    }

    /// `value` with `digits` significant digits in fixed notation (at least 4 decimals), so
    /// that a small ratio such as 0.00002 is not printed as 0.
    static func significant(_ value: Double, digits: Int) -> String {
        guard value.isFinite, value != 0 else { return "0" }
        var decimals = digits
        var magnitude = abs(value)
        while magnitude < 1, decimals < 12 {
            magnitude *= 10
            decimals += 1
        }
        return fixed(value, decimals: max(4, decimals - 1))
    }

    /// 1234567 → "1,234,567".
    static func grouped(_ value: Double) -> String {
        let digits = Array(String(UInt64(max(0, value.rounded()))))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }

    /// A duration in the most readable unit.
    static func duration(_ nanoseconds: Double) -> String {
        if nanoseconds < 1_000 { return fixed(nanoseconds, decimals: 0) + " ns" }
        if nanoseconds < 1_000_000 { return fixed(nanoseconds / 1_000, decimals: 2) + " µs" }
        return fixed(nanoseconds / 1_000_000, decimals: 2) + " ms"
    }
}
