/// What to measure and how long.
package struct BenchOptions: Sendable {
    /// Short run for tests and CI: few repetitions, tiny samples, small key stores. The figures
    /// are only indicative.
    package var quick = false
    /// Iterations per sample for every in-process figure; nil calibrates each figure to
    /// ``sampleMilliseconds``.
    package var iterations: Int?
    /// Samples per figure (rounds); nil: 9, or 3 with ``quick``.
    package var repetitions: Int?
    /// Spawns of each cold-process command per round; nil: 12, or 1 with ``quick``.
    package var spawnsPerRound: Int?
    /// Threads for the all-core figures; nil: every processor this process may run on.
    package var threads: Int?
    /// Items per `seal(batch:)` call in the batch figures (and their one-by-one bases).
    package var batchSize = BenchOptions.defaultBatchSize
    /// A server's batch: a message to a large group, or the notifications of a busy moment.
    /// Waking a second core for a call costs tens of microseconds on a virtual machine, which
    /// 1,024 items (about 2 ms of work on 2 cores) make small (Docs/PERFORMANCE.md §5.2).
    package static let defaultBatchSize = 1_024
    /// Only figures whose name starts with one of these (their limit and baseline figures are
    /// always measured too); empty: everything.
    package var only: [String] = []
    /// Key counts of the key stores; nil: 10,000 and 100,000 (1,000 and 10,000 with ``quick``).
    package var storeSizes: [Int]?
    /// A profiling run (for callgrind): exactly the ``only`` figures, ``iterations`` operations
    /// once, no calibration, no limit figures.
    package var profile = false
    /// The `pushseal` executable spawned for the cold-process figures (and their spawning
    /// helper); nil: this process's own.
    package var executable: String?
    /// The PostgreSQL key directory to measure too (`--postgres URI`); nil: no server needed.
    package var postgreSQL: PostgreSQLBenchBackend?

    /// The defaults: every figure, calibrated samples.
    package init() {}

    var effectiveRepetitions: Int { repetitions ?? (quick ? 3 : 9) }
    var effectiveSpawns: Int { spawnsPerRound ?? (quick ? 1 : 12) }
    var effectiveStoreSizes: [Int] { storeSizes ?? (quick ? [1_000, 10_000] : [10_000, 100_000]) }
    /// Target duration of one sample.
    var sampleNanoseconds: Double { quick ? 2_000_000 : 50_000_000 }

    func selects(_ name: String) -> Bool {
        only.isEmpty || only.contains { name.hasPrefix($0) }
    }

    /// Whether some PostgreSQL figure (`seal.postgres.*`, `postgres.*`) may be selected: only
    /// then is the directory of ``postgreSQL`` opened.
    package var selectsPostgreSQL: Bool { selectsSome("seal.postgres.") || selectsSome("postgres.") }

    /// Whether some figure whose name starts with `group` may be selected.
    func selectsSome(_ group: String) -> Bool {
        only.isEmpty || only.contains { group.hasPrefix($0) || $0.hasPrefix(group) }
    }
}
