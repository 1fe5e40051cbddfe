/// The result of a run: the machine and every figure.
package struct BenchReport: Sendable {
    /// Where it ran.
    package var machine: MachineInfo
    /// Cores used by the all-core figures.
    package var cores: Int
    /// How it ran.
    package var options: BenchOptions
    /// The figures, in measuring order.
    package var figures: [Figure]

    /// One JSON object per figure, each followed by a newline.
    package var jsonLines: String {
        figures.map { $0.jsonLine + "\n" }.joined()
    }

    /// A description of the machine and the settings, one line each.
    package var header: [String] {
        func load(_ values: [Double]) -> String {
            values.isEmpty ? "unknown" : values.map { Decimal.fixed($0, decimals: 2) }.joined(separator: " ")
        }
        return [
            "machine: \(machine.processors) online processors"
                + (machine.usableProcessors < machine.processors ? " (this process may run on \(machine.usableProcessors))" : "")
                + ", \(machine.cpuModel), \(machine.cryptoBackend)",
            "load average (1/5/15 min): \(load(machine.loadAverageAtStart)) at start, \(load(machine.loadAverageAtEnd)) at end",
            options.profile ? "profile run: one sample of \(options.iterations ?? 0) iterations per figure" :
            "samples: median of \(options.effectiveRepetitions) rounds"
                + (options.iterations.map { ", \($0) iterations each" } ?? ", each calibrated to ~\(Int(options.sampleNanoseconds / 1_000_000)) ms")
                + "; \(options.effectiveRepetitions * options.effectiveSpawns) spawns per process figure"
                + (options.quick ? " (--quick: indicative only)" : ""),
            "ratio = raw AEAD time / figure time (throughput relative to the backend's ChaCha20-Poly1305-IETF on the same padded size), median of per-round ratios;",
            "median and ratio by the wall clock, CPU and CPU ratio by process CPU time (not slowed down by other processes);",
            "a 1-core figure is measured on each processor in turn, pinned, and is the average processor's time (harmonic mean); an all-core figure's speedup is over that average processor",
        ]
    }

    /// A fixed-width table for people.
    package var table: String {
        var lines = header
        lines.append("")
        let columns = ["figure", "cores", "median", "CPU", "ops/s", "ratio", "CPU ratio", "compared with", "notes"]
        var rows: [[String]] = [columns]
        for figure in figures {
            var notes: [String] = []
            for (name, value) in figure.attributes where name == "processor_median_ns" {
                if case let .numbers(times) = value { notes.append("per processor " + times.map(Decimal.duration).joined(separator: " / ")) }
            }
            if let speedup = figure.speedup { notes.append("speedup \(Decimal.fixed(speedup, decimals: 2))x") }
            if let scaling = figure.cpuScaling { notes.append("CPU-time scaling \(Decimal.fixed(scaling, decimals: 2))x") }
            if let rss = figure.integer("rss_kib_max") { notes.append("peak RSS \(Decimal.fixed(Double(rss) / 1_024, decimals: 1)) MiB") }
            if let keys = figure.integer("keys") { notes.append("\(Decimal.grouped(Double(keys))) keys") }
            for (name, value) in figure.attributes where name == "max_ns" {
                if case let .number(time) = value { notes.append("max \(Decimal.duration(time))") }
            }
            if let processes = figure.integer("processes") { notes.append("\(processes) processes") }
            if let rotations = figure.integer("rotations") { notes.append("\(rotations) rotations") }
            if let payload = figure.integer("payload_bytes") { notes.append("\(payload)-byte payload") }
            for (name, value) in figure.attributes where name == "key_source" {
                if case let .text(source) = value, source != "store" { notes.append("open --\(source) (no --store in this build)") }
            }
            if let target = figure.target { notes.append("target \(target): \(figure.targetMet == true ? "met" : "MISSED")") }
            rows.append([
                figure.name, String(figure.cores), Decimal.duration(figure.medianNanoseconds),
                figure.cpuMedianNanoseconds.map(Decimal.duration) ?? "-",
                Decimal.grouped(figure.operationsPerSecond), figure.ratio.map { Decimal.fixed($0, decimals: 3) } ?? "-",
                figure.cpuRatio.map { Decimal.fixed($0, decimals: 3) } ?? "-",
                figure.limit ?? "-", notes.joined(separator: "; "),
            ])
        }
        var widths = [Int](repeating: 0, count: columns.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        let rightAligned: Set<Int> = [1, 2, 3, 4, 5, 6]
        for row in rows {
            var line = ""
            for (index, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                if index > 0 { line += "  " }
                line += rightAligned.contains(index) ? padding + cell : (index == row.count - 1 ? cell : cell + padding)
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
