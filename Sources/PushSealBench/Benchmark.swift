import PushSealCore
import PushSealPlatform

/// `pushseal bench`: every figure in one run, interleaved round by round so that a figure and
/// the raw AEAD it is compared with see the same machine conditions.
package enum Benchmark {
    /// Content sizes of the seal and open figures (encoded content bytes).
    package static let contentSizes = [128, 512, 2048]
    /// The content size of the store and cold-process figures, and of the targets.
    package static let referenceContentSize = 512

    /// The targets (ratios within one run).
    package enum Targets {
        /// seal.apns.512 throughput ≥ this × raw encryption of its padded size.
        package static let sealRatio = 0.33
        /// open.key.512 ≥ this × raw decryption.
        package static let openRatio = 0.25
        /// Batch sealing on every core, `seal(batch:deliver:)`, ≥ this × cores × one core (1.8 on
        /// 2 cores).
        package static let batchSpeedupPerCore = 0.9
        /// A key lookup by kid on a kept `DeviceKeyStore` (`keystore.get.warm.*`): median wall time
        /// (10 µs; a kept connection with prepared statements, issue 24 item 7).
        package static let warmLookupMedianNanoseconds = 10_000.0
        /// `Receiver.open` through a kept `DeviceKeyStore` (`open.store.warm.512`: key lookup plus the
        /// duplicate-log write): median wall time (30 µs).
        package static let warmStoreOpenMedianNanoseconds = 30_000.0
        /// `seal.store.512` (the current key from a kept `KeyStore` through a
        /// `CachingKeyProvider`) ≥ this × `seal.apns.512` (the key in memory).
        package static let storeSealRatio = 0.9
        /// `seal.postgres.512` (the current key from `PostgreSQLKeyProvider`'s listening cache)
        /// ≥ this × `seal.apns.512` (issue 24 item 7: "on both backends").
        package static let postgreSQLSealRatio = 0.9
        /// Cold `pushseal open --store`: median wall time.
        package static let coldOpenMedianNanoseconds = 5_000_000.0
        /// Cold `pushseal open --store`: peak RSS (24 MiB).
        package static let coldOpenResidentKiB = 24 * 1_024
        /// Bundle seal and open: within 1.3× of their raw X25519 operations (ratio ≥ 1 / 1.3).
        package static let bundleRatio = 1 / 1.3
        /// Fan-out of one key to 1,000 devices on every core ≥ this × cores × one core.
        package static let fanOutSpeedupPerCore = 0.9
    }

    /// Runs the benchmark. `progress` receives one line per step (for a terminal).
    package static func run(_ options: BenchOptions, progress: (String) -> Void = { _ in }) throws(BenchError) -> BenchReport {
        var machine = MachineInfo.current()
        let cores = options.threads ?? machine.usableProcessors
        let key = ConversationKey.generate()
        let reference = referenceContentSize
        let referencePadded = Fixtures.paddedByteCount(contentByteCount: reference)
        let wantsProcess = options.selectsSome("process.")
        let wantsStore = options.selectsSome("keystore.") || options.selectsSome("open.store.") || options.selectsSome("seal.store.")
            || wantsProcess

        // The figures and their limits, in measuring order (each next to what it is compared with).
        var workloads: [Workload] = []
        for size in contentSizes {
            let padded = Fixtures.paddedByteCount(contentByteCount: size)
            workloads.append(RawAEAD.encrypt(paddedBytes: padded, threads: 1))
            workloads.append(SealWorkloads.single(contentBytes: size, key: key))
            workloads.append(RawAEAD.decrypt(paddedBytes: padded))
            workloads.append(OpenWorkloads.inMemory(contentBytes: size, key: key))
            if cores > 1 { workloads.append(RawAEAD.encrypt(paddedBytes: padded, threads: cores)) }
            workloads.append(SealWorkloads.loop(contentBytes: size, key: key, batchSize: options.batchSize))
            for delivering in [false, true] {
                workloads.append(SealWorkloads.batch(contentBytes: size, key: key, batchSize: options.batchSize, cores: cores, delivering: delivering))
            }
            if cores > 1 { workloads.append(SealWorkloads.loop(contentBytes: size, key: key, batchSize: options.batchSize, cores: cores)) }
            if size == 512 {
                workloads.append(PerDeviceWorkloads.single(contentBytes: size, key: key))
                workloads.append(PerDeviceWorkloads.fanOut(contentBytes: size, key: key, cores: cores))
            }
        }
        workloads.append(RawAEAD.decrypt(paddedBytes: ConversationKey.byteCount))
        if options.selectsSome("bundle.") || options.selectsSome("x25519.") {
            let identities = BundleWorkloads.Identities()
            workloads.append(BundleWorkloads.sealLimit(identities))
            workloads.append(BundleWorkloads.seal(identities))
            workloads.append(BundleWorkloads.openLimit(identities))
            workloads.append(BundleWorkloads.open(identities))
            workloads.append(BundleWorkloads.fanOut(identities, cores: 1))
            if cores > 1 { workloads.append(BundleWorkloads.fanOut(identities, cores: cores)) }
        }
        if wantsProcess {
            workloads.append(RawAEAD.decrypt(paddedBytes: ColdProcess.largePaddedByteCount()))
        }

        var fixtures: [StoreFixture] = []
        defer { for fixture in fixtures { fixture.remove() } }
        if wantsStore {
            for size in options.effectiveStoreSizes {
                progress("creating a key store with \(size) keys")
                let fixture = try StoreFixture(keyCount: size)
                fixtures.append(fixture)
                let label = storeLabel(size)
                workloads.append(KeyStoreWorkloads.get(fixture, cold: true, label: label))
                workloads.append(KeyStoreWorkloads.get(fixture, cold: false, label: label))
            }
            workloads.append(OpenWorkloads.throughStore(fixtures[0], cold: true, contentBytes: reference))
            workloads.append(OpenWorkloads.throughStore(fixtures[0], cold: false, contentBytes: reference))
            workloads.append(SealWorkloads.throughStore(fixtures[0], contentBytes: reference))
        }
        var postgreSQL: PostgreSQLFixture?
        defer { postgreSQL?.remove() }
        if let backend = options.postgreSQL, options.selectsPostgreSQL {
            progress("preparing the PostgreSQL key directory")
            let fixture = try PostgreSQLFixture(backend)
            postgreSQL = fixture
            workloads.append(PostgreSQLFigures.seal(fixture, contentBytes: reference))
            workloads.append(PostgreSQLFigures.lookup(fixture))
            workloads.append(PostgreSQLFigures.connect(fixture))
        }

        // Keep the selected figures and everything they are compared with (a profile run keeps
        // exactly the selected ones).
        var needed = Set(workloads.map(\.name).filter(options.selects))
        if !options.profile {
            for workload in workloads where needed.contains(workload.name) {
                if let limit = workload.limit { needed.insert(limit) }
                if let base = workload.speedupBase { needed.insert(base) }
            }
            if wantsProcess {
                needed.insert(RawAEAD.decryptName(referencePadded))
                needed.insert(RawAEAD.decryptName(ColdProcess.largePaddedByteCount()))
            }
            for workload in workloads where needed.contains(workload.name) {
                if let limit = workload.limit { needed.insert(limit) }
            }
        }
        workloads = workloads.filter { needed.contains($0.name) }

        var coldProcess: ColdProcess?
        if wantsProcess {
            guard let executable = options.executable ?? ProcessSpawner.currentExecutablePath() else {
                throw BenchError("cannot find the pushseal executable to spawn")
            }
            progress("checking \(executable) open")
            coldProcess = try ColdProcess(executable: executable, helper: executable, fixture: fixtures[0], contentBytes: reference)
        }

        // Calibrate (this also warms up every code path, cache and thread).
        // Single-thread figures are measured on each processor in turn (Sampler); a profile run
        // leaves the scheduler alone.
        let processors = options.profile ? [] : machine.allowedProcessors
        let samplers = workloads.map { Sampler($0, processors: processors) }
        let iterations: [Int]
        if let fixed = options.iterations {
            iterations = [Int](repeating: fixed, count: samplers.count)
        } else {
            progress("calibrating \(workloads.count) figures")
            iterations = samplers.map { $0.calibrate(targetNanoseconds: options.sampleNanoseconds) }
        }

        // Rounds: every figure once per round, then the process spawns.
        let rounds = options.profile ? 1 : options.effectiveRepetitions
        var samples = [[Sample]](repeating: [], count: workloads.count)
        for round in 0..<rounds {
            progress("round \(round + 1) of \(rounds)")
            for (index, sampler) in samplers.enumerated() {
                samples[index].append(sampler.sample(iterations: iterations[index]))
            }
            try coldProcess?.round(count: options.effectiveSpawns)
        }
        machine.loadAverageAtEnd = MachineInfo.loadAverage()

        // Medians and paired (same-round) ratios.
        let indexByName = Dictionary(uniqueKeysWithValues: workloads.enumerated().map { ($1.name, $0) })
        func pairedMedian(_ numerator: Int, _ denominator: Int, _ time: (Sample) -> Double) -> Double {
            median(zip(samples[numerator], samples[denominator]).map { time($0) / time($1) })
        }
        var figures: [Figure] = []
        for (index, workload) in workloads.enumerated() {
            var figure = Figure(
                name: workload.name, group: workload.group, cores: workload.cores,
                medianNanoseconds: median(samples[index].map(\.wall)), samples: samples[index].count,
                iterations: iterations[index] * workload.operationsPerIteration)
            figure.cpuMedianNanoseconds = median(samples[index].map(\.cpu))
            figure.attributes = workload.attributes
            if let processorCount = samples[index].first?.wallPerProcessor.count, processorCount > 1 {
                let perProcessor = (0..<processorCount).map { processor in median(samples[index].map { $0.wallPerProcessor[processor] }) }
                figure.attributes.append(("processor_median_ns", .numbers(perProcessor)))
            }
            if let limit = workload.limit, let limitIndex = indexByName[limit] {
                figure.limit = limit
                figure.ratio = pairedMedian(limitIndex, index, \.wall)
                figure.cpuRatio = pairedMedian(limitIndex, index, \.cpu)
            }
            if let base = workload.speedupBase, let baseIndex = indexByName[base] {
                figure.speedupBase = base
                figure.speedup = pairedMedian(baseIndex, index, \.wall)
                // CPU time per operation on one core vs on all cores: the speedup an otherwise idle
                // machine would show (capped at the number of cores).
                figure.cpuScaling = min(Double(workload.cores), Double(workload.cores) * pairedMedian(baseIndex, index, \.cpu))
            }
            figures.append(figure)
        }
        if let postgreSQL {
            // Across processes, after the rounds (peers would take the CPU from the other figures).
            if options.selects(PostgreSQLFigures.rotationUseName) {
                progress("timing rotations until a second process uses them")
                figures.append(try PostgreSQLFigures.rotationUse(postgreSQL, quick: options.quick))
                needed.insert(PostgreSQLFigures.rotationUseName)
            }
            if options.selects(PostgreSQLFigures.concurrentRotationsName) {
                progress("rotating one conversation from \(PostgreSQLFigures.concurrentProcesses) processes at once")
                figures.append(try PostgreSQLFigures.concurrentRotations(postgreSQL, quick: options.quick))
                needed.insert(PostgreSQLFigures.concurrentRotationsName)
            }
        }
        if let coldProcess {
            figures += processFigures(coldProcess, limits: { name in indexByName[name].map { median(samples[$0].map(\.wall)) } })
        }
        judge(&figures, cores: cores)
        return BenchReport(machine: machine, cores: cores, options: options, figures: figures.filter { needed.contains($0.name) || $0.group == "process" })
    }

    static func storeLabel(_ size: Int) -> String {
        size % 1_000 == 0 ? "\(size / 1_000)k" : String(size)
    }

    private static func processFigures(_ cold: ColdProcess, limits: (String) -> Double?) -> [Figure] {
        let baselineMedian = median(cold.baseline.results.map { Double($0.wallNanoseconds) })
        return [cold.baseline, cold.open, cold.openLarge].map { series in
            let walls = series.results.map { Double($0.wallNanoseconds) }
            let resident = series.results.map { Double($0.maximumResidentKiB) }
            var figure = Figure(
                name: series.name, group: "process", cores: 1, medianNanoseconds: median(walls), samples: walls.count, iterations: 1)
            let isBaseline = series === cold.baseline
            if !isBaseline {
                let limit = RawAEAD.decryptName(series.paddedBytes)
                if let limitMedian = limits(limit) {
                    figure.limit = limit
                    figure.ratio = limitMedian / figure.medianNanoseconds
                }
                figure.attributes = [
                    ("key_source", .text(cold.keySource)), ("content_bytes", .integer(series.contentBytes)),
                    ("padded_bytes", .integer(series.paddedBytes)), ("payload_bytes", .integer(series.payloadBytes)),
                ]
            }
            figure.attributes += [
                ("rss_kib_median", .integer(Int(median(resident)))),
                ("rss_kib_max", .integer(Int(resident.max() ?? 0))),
            ]
            if !isBaseline {
                figure.attributes.append(("over_baseline_ns", .number(figure.medianNanoseconds - baselineMedian)))
            }
            return figure
        }
    }

    /// Marks the figures the targets apply to.
    private static func judge(_ figures: inout [Figure], cores: Int) {
        let reference = referenceContentSize
        for index in figures.indices {
            let figure = figures[index]
            switch figure.name {
            case SealWorkloads.singleName(reference):
                figures[index].target = "ratio >= \(Targets.sealRatio)"
                figures[index].targetMet = (figure.ratio ?? 0) >= Targets.sealRatio
            case OpenWorkloads.keyName(reference):
                figures[index].target = "ratio >= \(Targets.openRatio)"
                figures[index].targetMet = (figure.ratio ?? 0) >= Targets.openRatio
            case SealWorkloads.deliveringBatchName(reference) where cores > 1:
                let wanted = Targets.batchSpeedupPerCore * Double(cores)
                figures[index].target = "speedup >= \(Decimal.fixed(wanted, decimals: 2))"
                figures[index].targetMet = (figure.speedup ?? 0) >= wanted
            case BundleWorkloads.sealName, BundleWorkloads.openName:
                figures[index].target = "ratio >= \(Decimal.fixed(Targets.bundleRatio, decimals: 2)) (within 1.3x of X25519)"
                figures[index].targetMet = (figure.ratio ?? 0) >= Targets.bundleRatio
            case BundleWorkloads.fanOutName(allCores: true) where cores > 1:
                let wanted = Targets.fanOutSpeedupPerCore * Double(cores)
                figures[index].target = "speedup >= \(Decimal.fixed(wanted, decimals: 2))"
                figures[index].targetMet = (figure.speedup ?? 0) >= wanted
            case SealWorkloads.storeName(reference):
                figures[index].target = "ratio >= \(Targets.storeSealRatio) (x seal.apns.\(reference))"
                figures[index].targetMet = (figure.ratio ?? 0) >= Targets.storeSealRatio
            case PostgreSQLFigures.sealName(reference):
                figures[index].target = "ratio >= \(Targets.postgreSQLSealRatio) (x seal.apns.\(reference))"
                figures[index].targetMet = (figure.ratio ?? 0) >= Targets.postgreSQLSealRatio
            case let name where name.hasPrefix("keystore.get.warm."):
                figures[index].target = "median <= 10 µs"
                figures[index].targetMet = figure.medianNanoseconds <= Targets.warmLookupMedianNanoseconds
            case "open.store.warm.\(reference)":
                figures[index].target = "median <= 30 µs"
                figures[index].targetMet = figure.medianNanoseconds <= Targets.warmStoreOpenMedianNanoseconds
            case "process.open.\(reference)":
                let maximum = figure.integer("rss_kib_max") ?? Int.max
                figures[index].target = "median <= 5 ms, peak RSS <= 24 MiB"
                figures[index].targetMet = figure.medianNanoseconds <= Targets.coldOpenMedianNanoseconds
                    && maximum <= Targets.coldOpenResidentKiB
            default:
                break
            }
        }
    }
}

/// The median of `values` (0 when empty).
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
