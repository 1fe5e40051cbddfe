import PushSealCore
import Testing
import PushSealJSON

/// Functional checks of `pushseal bench` (never its timings: those belong to the benchmark).
@Suite struct BenchTests {
    /// Every figure a quick run emits, by exact name or (key store sizes) by prefix.
    static let exactNames = [
        "aead.encrypt.256", "aead.encrypt.768", "aead.encrypt.2304",
        "aead.decrypt.256", "aead.decrypt.768", "aead.decrypt.2304", "aead.decrypt.32",
        "seal.apns.128", "seal.apns.512", "seal.apns.2048",
        "seal.batch.128", "seal.batch.512", "seal.batch.2048",
        "seal.batch.128.deliver", "seal.batch.512.deliver", "seal.batch.2048.deliver",
        "seal.loop.128", "seal.loop.512", "seal.loop.2048",
        "open.key.128", "open.key.512", "open.key.2048",
        "open.store.cold.512", "open.store.warm.512", "seal.store.512",
        "process.true", "process.open.512", "process.open.4k",
        "x25519.keygen+2dh", "x25519.2dh", "bundle.seal", "bundle.open", "bundle.fanout.1000",
    ]
    /// Figures that are limits or baselines themselves (no ratio).
    static func isReference(_ name: String) -> Bool {
        name.hasPrefix("aead.") || name.hasPrefix("x25519.") || name == "process.true"
    }

    static func figures(_ run: PushSealRun) throws -> [String: JSONObject] {
        var figures: [String: JSONObject] = [:]
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "output ends with a newline")
        for line in lines.dropLast() {
            let object = try #require(try JSONParser.parse(Array(line.utf8)).objectValue, "not an object: \(line)")
            let name = try #require(object["figure"]?.stringValue, "no figure name: \(line)")
            #expect(figures[name] == nil, "\(name) emitted twice")
            figures[name] = object
        }
        return figures
    }

    static func number(_ value: JSONValue?) -> Double? {
        guard case let .number(literal)? = value else { return nil }
        return Double(literal)
    }

    @Test func quickJSONEmitsEveryFigureWithAMedianAndARatio() throws {
        let run = try runPushSeal(["bench", "--quick", "--json"], timeout: 600)
        #expect(run.status == 0, "\(run)")
        let figures = try Self.figures(run)
        for name in Self.exactNames { #expect(figures[name] != nil, "missing \(name)\n\(run.stdout)") }
        // The key store figures at both store sizes, cold and warm.
        for kind in ["cold", "warm"] {
            #expect(figures.keys.filter { $0.hasPrefix("keystore.get.\(kind).") }.count == 2, "\(figures.keys.sorted())")
        }
        // The raw decryption of the ~4 KB payload's padded size, for the process.open.4k ratio.
        let large = try #require(figures["process.open.4k"])
        let largeLimit = try #require(large["limit"]?.stringValue)
        #expect(figures[largeLimit] != nil)

        for (name, figure) in figures {
            let median = try #require(Self.number(figure["median_ns"]), "\(name): median_ns")
            #expect(median > 0, "\(name)")
            if Self.isReference(name) {
                #expect(figure["ratio"] == .null, "\(name)")
            } else {
                let ratio = try #require(Self.number(figure["ratio"]), "\(name): ratio")
                #expect(ratio > 0, "\(name)")
                let limit = try #require(figure["limit"]?.stringValue, "\(name): limit")
                #expect(figures[limit] != nil, "\(name) is compared with \(limit), which is not reported")
            }
        }
        // All-core figures say which single-core figure they scale from.
        for size in [128, 512, 2048] {
            for name in ["seal.batch.\(size)", "seal.batch.\(size).deliver"] {
                let batch = try #require(figures[name])
                // Against the same items sealed one by one on one core.
                #expect(batch["speedup_base"]?.stringValue == "seal.loop.\(size)", "\(name)")
                #expect(Self.number(batch["speedup"]) != nil, "\(name)")
            }
            // With more than one core: the same work one by one on every core (each thread its
            // own items), and the raw AEAD's own speedup: what the machine offers the batch.
            if let loop = figures["seal.loop.\(size).allcores"] {
                #expect(loop["speedup_base"]?.stringValue == "seal.loop.\(size)")
                #expect(Self.number(loop["speedup"]) != nil)
                let padded = try #require(Self.number(loop["padded_bytes"]))
                let allCores = try #require(figures["aead.encrypt.\(Int(padded)).allcores"])
                #expect(allCores["speedup_base"]?.stringValue == "aead.encrypt.\(Int(padded))")
            }
        }
        // One-core figures are measured on each processor in turn when there are several: all of
        // them or none, with one positive time per processor; all-core figures never.
        let measuredPerProcessor = figures.filter { $0.value["processor_median_ns"] != nil }
        for (name, figure) in measuredPerProcessor {
            #expect(Self.number(figure["cores"]) == 1, "\(name)")
            guard case let .array(times)? = figure["processor_median_ns"] else {
                Issue.record("\(name): processor_median_ns is not an array")
                continue
            }
            #expect(times.count >= 2, "\(name)")
            for time in times { #expect((Self.number(time) ?? 0) > 0, "\(name)") }
        }
        if !measuredPerProcessor.isEmpty {
            let inProcessOneCore = figures.filter { !$0.key.hasPrefix("process.") && Self.number($0.value["cores"]) == 1 }
            #expect(Set(measuredPerProcessor.keys) == Set(inProcessOneCore.keys))
        }
        // The cold process reports the child's peak RSS.
        for name in ["process.true", "process.open.512", "process.open.4k"] {
            let figure = try #require(figures[name])
            #expect((Self.number(figure["rss_kib_max"]) ?? 0) > 0, "\(name)")
        }
        // The targets are marked on their figures.
        for name in ["seal.apns.512", "open.key.512", "process.open.512", "bundle.seal", "bundle.open", "open.store.warm.512", "seal.store.512"] {
            #expect(figures[name]?["target_met"] != nil, "\(name)")
        }
        // Sealing with a directory key is compared with sealing with the key in memory.
        #expect(figures["seal.store.512"]?["limit"] == .string("seal.apns.512"))
        let warmLookups = figures.filter { $0.key.hasPrefix("keystore.get.warm.") }
        #expect(!warmLookups.isEmpty)
        for (name, figure) in warmLookups { #expect(figure["target_met"] != nil, "\(name)") }
        // The batch target is on the delivering batch, on a machine with several cores.
        if Self.number(figures["seal.batch.512"]?["cores"]) ?? 1 > 1 {
            #expect(figures["seal.batch.512.deliver"]?["target_met"] != nil)
            #expect(figures["seal.batch.512"]?["target_met"] == nil)
        }
    }

    @Test func onlyMeasuresTheSelectedFiguresAndTheirLimits() throws {
        let run = try runPushSeal(["bench", "--quick", "--json", "--only", "seal.apns.128", "--iterations", "3"])
        #expect(run.status == 0, "\(run)")
        let figures = try Self.figures(run)
        #expect(Set(figures.keys) == ["seal.apns.128", "aead.encrypt.256"])
        #expect(Self.number(figures["seal.apns.128"]?["iterations"]) == 3)
    }

    @Test func bundleFiguresComeWithTheirX25519LimitsAndTheFanOutBase() throws {
        let run = try runPushSeal(["bench", "--quick", "--json", "--only", "bundle.", "--iterations", "2"])
        #expect(run.status == 0, "\(run)")
        let figures = try Self.figures(run)
        #expect(figures["bundle.seal"]?["limit"] == .string("x25519.keygen+2dh"))
        #expect(figures["bundle.open"]?["limit"] == .string("x25519.2dh"))
        #expect(figures["x25519.keygen+2dh"] != nil && figures["x25519.2dh"] != nil && figures["bundle.fanout.1000"] != nil)
        // Two iterations of 1,000 bundles each.
        #expect(Self.number(figures["bundle.fanout.1000"]?["iterations"]) == 2_000)
        for name in ["bundle.seal", "bundle.open"] {
            #expect((Self.number(figures[name]?["ratio"]) ?? 0) > 0, "\(name)")
        }
    }

    @Test func batchSizeSetsTheItemsPerCallOfTheBatchAndItsBases() throws {
        let run = try runPushSeal(["bench", "--quick", "--json", "--only", "seal.batch.128", "--iterations", "2", "--batch-size", "5"])
        #expect(run.status == 0, "\(run)")
        let figures = try Self.figures(run)
        #expect(figures["seal.batch.128"] != nil && figures["seal.batch.128.deliver"] != nil && figures["seal.loop.128"] != nil)
        for (name, figure) in figures where name.hasPrefix("seal.") {
            #expect(Self.number(figure["batch"]) == 5, "\(name)")
            // Two iterations of five items each per sample (per thread, or per processor).
            #expect(Self.number(figure["iterations"]) == 10, "\(name)")
        }
        expectUsageError(
            try runPushSeal(["bench", "--batch-size", "0"]), command: "pushseal bench",
            message: "The value '0' is invalid for '--batch-size <n>': must be between 1 and 65536")
    }

    @Test func textOutputIsATableWithTheMachine() throws {
        let run = try runPushSeal(["bench", "--quick", "--only", "open.key.128", "--iterations", "2"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.hasPrefix("machine: "))
        #expect(run.stdout.contains("\nopen.key.128 "))
        #expect(run.stdout.contains("\naead.decrypt.256 "))
    }

    @Test func profileNeedsOnlyAndIterations() throws {
        expectUsageError(
            try runPushSeal(["bench", "--profile", "--iterations", "5"]), command: "pushseal bench",
            message: "'--profile' needs '--only <prefixes>' and '--iterations <n>'.")
        let run = try runPushSeal(["bench", "--profile", "--only", "seal.apns.128", "--iterations", "5", "--json"])
        #expect(run.status == 0, "\(run)")
        #expect(Set(try Self.figures(run).keys) == ["seal.apns.128"])
    }

    @Test func rejectsBadNumbers() throws {
        expectUsageError(
            try runPushSeal(["bench", "--iterations", "0"]), command: "pushseal bench",
            message: "The value '0' is invalid for '--iterations <n>': must be between 1 and 1000000000")
        let keys = try runPushSeal(["bench", "--store-keys", "10,x"])
        #expect(keys.status == 64, "\(keys)")
        #expect(keys.stderrLines.first?.hasPrefix("Error: The value '10,x' is invalid for '--store-keys <counts>'") == true, "\(keys)")
    }
}
