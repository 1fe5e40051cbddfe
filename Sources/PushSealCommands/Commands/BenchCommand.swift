import PushSealBench
import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealPlatform

/// `pushseal bench`: the benchmark (the measuring lives in the PushSealBench module).
enum BenchCommand {
    static let iterations = Option<Int?>(
        "iterations", valueName: "n",
        abstract: "Operations per sample for every in-process figure (default: calibrated to ~50 ms per sample).", in: 1...1_000_000_000)
    static let repetitions = Option<Int?>(
        "repetitions", valueName: "n", abstract: "Samples (interleaved rounds) per figure (default: 9; 3 with --quick).", in: 1...10_000)
    static let spawns = Option<Int?>(
        "spawns", valueName: "n", abstract: "Spawns of each cold-process command per round (default: 12; 1 with --quick).", in: 1...10_000)
    static let threads = Option<Int?>(
        "threads", valueName: "n", abstract: "Threads for the all-core figures (default: every processor this process may run on).",
        in: 1...1_024)
    static let batchSize = Option<Int?>(
        "batch-size", valueName: "n", abstract: "Items per seal(batch:) call in the batch figures (default: \(BenchOptions.defaultBatchSize)).",
        in: 1...65_536)
    static let only = Option<String?>(
        "only", valueName: "prefixes",
        abstract: "Only figures whose name starts with one of these comma-separated prefixes (with what they are compared with).")
    static let storeKeys = Option<[Int]?>(
        "store-keys", valueName: "counts",
        abstract: "Key counts of the key stores, comma-separated (default: 10000,100000; 1000,10000 with --quick)."
    ) { (text) throws(ValueError) -> [Int] in
        let sizes = text.split(separator: ",").compactMap { Int($0) }
        guard !sizes.isEmpty, sizes.count == text.split(separator: ",").count, sizes.allSatisfy({ $0 >= 1 && $0 <= 10_000_000 })
        else { throw ValueError("expected comma-separated key counts from 1 to 10000000") }
        return sizes
    }
    static let postgres = Option<String?>(
        "postgres", valueName: "uri",
        abstract: "Also measure the PostgreSQL key directory at this server (postgresql://…; run by pushseal-full): sealing with the key from its listening cache vs a key in memory, a lookup, a new connection, rotation-to-use across two processes, concurrent rotations.")
    static let masterKeyFile = Option<FilePath?>(
        "master-key-file", valueName: "file",
        abstract: "With --postgres: the master key file of the key directory already in that database (the bench adds and removes conversations of its own). Without it, the bench creates the directory under a new key, in a database that has none.")
    static let quick = Flag("quick", abstract: "A short run for tests and CI (indicative figures only).")
    static let json = Flag("json", abstract: "Print one JSON object per figure, one per line.")
    static let profile = Flag("profile", abstract: "Run exactly the --only figures once for --iterations operations (for callgrind).", hidden: true)
    static let spawnServer = Flag("spawn-server", abstract: "Internal: the helper that spawns the cold-process commands.", hidden: true)

    static let spec = CommandSpec(
        name: "bench",
        abstract: "Measure sealing, opening and key store lookups on this machine.",
        discussion: """
            Measures, in one run, on one core and on all cores: the crypto backend's raw (libsodium on Linux) \
            ChaCha20-Poly1305-IETF encryption and decryption of the padded sizes the envelopes \
            use (the limit); provider sealing from content to complete APNs payload bytes for \
            contents of 128, 512 and 2048 bytes, single and batched (results returned to the \
            caller, and delivered on the threads that sealed them); receiver opening from \
            payload bytes to display content, with the key in memory and through the key store; \
            key store get-by-kid with 10,000 and 100,000 keys, cold (open, look up, close) and \
            warm (a kept DeviceKeyStore); key bundles (SPEC §16): sealing and opening one, each next \
            to the raw X25519 operations it needs (a key pair and two DH; two DH), and one \
            epoch key sealed to 1,000 devices on one core and on all cores; and a cold \
            process: 'pushseal open --store' spawned repeatedly next to '/bin/true', with the \
            child's peak RSS.

            Figures are medians over interleaved rounds; each figure's ratio is the raw AEAD time \
            of the same padded size divided by the figure's time, in the same run (the median of \
            the per-round ratios). A one-core figure is measured on each processor in turn, \
            pinned there, and is the average processor's time: the processors of a virtual \
            machine can differ in speed. An all-core figure's speedup is over that average \
            processor. Use a release build (on Linux it is one static executable):
              swift build -c release --product pushseal
              .build/release/pushseal bench
            """,
        options: [iterations, repetitions, spawns, threads, batchSize, only, storeKeys, postgres, masterKeyFile, quick, json, profile, spawnServer],
        subcommands: [BenchPeerCommand.spec],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        if arguments[spawnServer] {
            // A fresh, small process that forks the measured commands (see SpawnClient).
            return SpawnServer.serve() == 0 ? .success : .failure
        }
        var options = BenchOptions()
        options.quick = arguments[quick]
        options.iterations = try arguments[iterations]
        options.repetitions = try arguments[repetitions]
        options.spawnsPerRound = try arguments[spawns]
        options.threads = try arguments[threads]
        if let batchSize = try arguments[Self.batchSize] { options.batchSize = batchSize }
        if let only = try arguments[Self.only] {
            options.only = only.split(separator: ",").map { String($0) }.filter { !$0.isEmpty }
        }
        if let storeSizes = try arguments[storeKeys] { options.storeSizes = storeSizes }
        options.profile = arguments[profile]
        if options.profile, options.iterations == nil || options.only.isEmpty {
            throw .usage("'--profile' needs '--only <prefixes>' and '--iterations <n>'.")
        }
        let json = arguments[Self.json]
        var temporary: String?
        defer { if let temporary { FileSystem.removeTree(temporary) } }
        let existingKey = try arguments[Self.masterKeyFile]?.path
        if let uri = try arguments[Self.postgres] {
            guard Companion.isConnectionURI(uri) else {
                throw .usage("'--postgres <uri>' takes a connection URI starting with postgresql:// or postgres://.")
            }
            guard options.selectsPostgreSQL else {
                throw .usage("'--postgres <uri>' measures the figures seal.postgres.* and postgres.*, which '--only' leaves out.")
            }
            var keyFile = existingKey
            if keyFile == nil {
                let directory: String
                do throws(IOError) { directory = try FileSystem.makeTemporaryDirectory(prefix: "pushseal-bench-postgres") } catch { throw .io(error) }
                temporary = directory
                keyFile = directory + "/master.key"
            }
            options.postgreSQL = try postgreSQLBackend(context, uri: uri, masterKeyFile: keyFile!, existing: existingKey != nil)
        } else if existingKey != nil {
            throw .usage("'--master-key-file <file>' goes with '--postgres <uri>' (the key of the directory there).")
        }
        // In the companion, the cold-process figures still measure the static pushseal next to it.
        options.executable = staticExecutable()
        let report: BenchReport
        do throws(BenchError) {
            report = try Benchmark.run(options) { step in context.note(step) }
        } catch {
            throw .failure("benchmark failed: \(error)")
        }
        if json {
            for line in report.header { context.note(line) }
            context.write(report.jsonLines)
        } else {
            context.write(report.table)
        }
        return .success
    }

    /// The PostgreSQL directory at `uri` as the bench measures it, from the executable's backend
    /// (`pushseal-full` links it): the directory already there under the key in `masterKeyFile`
    /// (`existing`), or a new one created under a new key written there. Opened once here, so
    /// that a database that cannot be used fails before anything is measured. Its peer
    /// processes are this executable's hidden `bench postgres-peer`.
    static func postgreSQLBackend(_ context: CommandContext, uri: String, masterKeyFile: String, existing: Bool) throws(CLIError) -> PostgreSQLBenchBackend {
        let backend = try context.postgreSQLBackend()
        do throws(KeyDirectoryError) {
            _ = try backend.open(uri, masterKeyFile, !existing, systemClock)
        } catch {
            let hints = existing ? [] : [
                "a database that already has a PushSeal key directory needs its master key: --master-key-file <file>",
                "or give a database (or a schema: options=-csearch_path%3D<schema> in the URI) without one",
            ]
            throw .failure(Diagnostic("cannot use the PostgreSQL key directory at \(backend.redacted(uri)) for the bench: \(error)", hints: hints))
        }
        guard let executable = ProcessSpawner.currentExecutablePath() else { throw .failure("cannot find the running executable to start its peers") }
        return PostgreSQLBenchBackend(
            open: { (create) throws(KeyDirectoryError) in try backend.open(uri, masterKeyFile, create && !existing, systemClock).directory },
            listeningCache: backend.listeningCache,
            peer: [executable, "bench", BenchPeerCommand.spec.name, "--postgres", uri, "--master-key-file", masterKeyFile])
    }

    /// When this is the companion `pushseal-full`, the static `pushseal` next to it (if there):
    /// the executable a device's cold `open --store` runs. Otherwise nil (this executable).
    static func staticExecutable() -> String? {
        guard let current = ProcessSpawner.currentExecutablePath(), FileSystem.baseName(of: current) == Companion.executableName else { return nil }
        let sibling = FileSystem.join(FileSystem.directoryName(of: current), "pushseal")
        return access(sibling, X_OK) == 0 ? sibling : nil
    }
}
