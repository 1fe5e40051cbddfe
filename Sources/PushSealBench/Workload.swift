import Dispatch
import PushSealPlatform

/// One thread's share of a workload: `prepare` runs untimed before every sample (fresh inputs),
/// `run` is what is timed. `run` returns a value derived from its results, so the optimizer
/// cannot drop the work. Unchecked `Sendable`: a worker is only ever used by one thread at a
/// time (its own thread during a sample; the sampler's thread before and after the join).
final class Worker: @unchecked Sendable {
    let prepare: (Int) -> Void
    let run: (Int) -> Int

    init(prepare: @escaping (Int) -> Void = { _ in }, run: @escaping (Int) -> Int) {
        self.prepare = prepare
        self.run = run
    }
}

/// An in-process figure: what is measured, and what it is compared with.
struct Workload {
    /// Figure name (stable; used in JSON lines and by `--only`).
    var name: String
    /// `limit`, `seal`, `open`, `keystore`.
    var group: String
    /// Threads running `Worker`s side by side (1, or every core).
    var threads: Int = 1
    /// Cores the figure uses (a batch API uses every core from one calling thread).
    var cores: Int = 1
    /// Operations per `run` iteration (a batch call seals many items).
    var operationsPerIteration: Int = 1
    /// The raw AEAD figure of the same padded size.
    var limit: String?
    /// For an all-core figure: the single-core figure it is compared with (speedup).
    var speedupBase: String?
    /// Upper bound on iterations per sample (slow, I/O-bound operations).
    var maximumIterations: Int = 1 << 30
    /// Extra fields for the report (content and padded sizes, key counts).
    var attributes: [(String, Attribute)] = []
    /// Makes one worker (called once per thread, before any timing).
    var makeWorker: () -> Worker
}

/// A report field value.
enum Attribute: Sendable {
    case integer(Int)
    case number(Double)
    case text(String)
    case numbers([Double])
}

/// Runs samples of a workload.
///
/// A single-thread figure is measured on each processor in turn, pinned there, and its time is
/// the average processor's (the harmonic mean of the per-processor times: the mean of their
/// throughputs). The processors of a virtual machine can differ in speed from one second to the
/// next (a neighbour on the host's core), so "one core" means the average one; an all-core
/// figure runs on all of them at once and is compared with that.
final class Sampler {
    private let workload: Workload
    private let workers: [Worker]
    /// The processors a single-thread figure is measured on in turn (empty: unpinned).
    private let processors: [Int]
    /// Keeps results observable (never read for anything but this).
    private(set) var checksum = 0

    init(_ workload: Workload, processors: [Int]) {
        self.workload = workload
        workers = (0..<workload.threads).map { _ in workload.makeWorker() }
        self.processors = workload.threads == 1 && workload.cores == 1 && processors.count > 1 ? processors : []
    }

    /// Wall and CPU nanoseconds per operation for one sample of `iterations` iterations per
    /// thread (per processor, for a figure measured on each processor in turn).
    func sample(iterations: Int) -> Sample {
        guard !processors.isEmpty else { return measure(iterations: iterations) }
        let perProcessor = processors.map { processor in
            Affinity.pinned(to: processor) { measure(iterations: iterations) }
        }
        func averageProcessor(_ time: (Sample) -> Double) -> Double {
            Double(perProcessor.count) / perProcessor.reduce(0) { $0 + 1 / time($1) }
        }
        return Sample(wall: averageProcessor(\.wall), cpu: averageProcessor(\.cpu), wallPerProcessor: perProcessor.map(\.wall))
    }

    private func measure(iterations: Int) -> Sample {
        for worker in workers { worker.prepare(iterations) }
        let startCPU = MonotonicClock.processCPUNanoseconds()
        let start = MonotonicClock.nanoseconds()
        if workers.count == 1 {
            checksum &+= workers[0].run(iterations)
        } else {
            let results = ResultSlots(count: workers.count)
            let workers = self.workers
            DispatchQueue.concurrentPerform(iterations: workers.count) { index in
                results.store(workers[index].run(iterations), at: index)
            }
            checksum &+= results.sum
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        let cpu = MonotonicClock.processCPUNanoseconds() - startCPU
        let operations = Double(iterations * workers.count * workload.operationsPerIteration)
        return Sample(wall: Double(elapsed) / operations, cpu: Double(cpu) / operations)
    }

    /// Iterations per thread (per processor) so that one sample takes about `targetNanoseconds`.
    func calibrate(targetNanoseconds: Double) -> Int {
        let target = targetNanoseconds / Double(max(1, processors.count))
        var iterations = 1
        while true {
            let perOperation = sample(iterations: iterations).wall
            let elapsed = perOperation * Double(iterations * workload.operationsPerIteration)
            if elapsed >= target / 8 || iterations >= workload.maximumIterations {
                let scaled = Int((Double(iterations) * target / max(elapsed, 1)).rounded())
                return min(workload.maximumIterations, max(1, scaled))
            }
            iterations = min(workload.maximumIterations, iterations * 4)
        }
    }
}

/// One sample: nanoseconds per operation, by the wall clock and in CPU time of the whole process
/// (every thread; nothing else runs in the process while a sample is taken).
struct Sample {
    var wall: Double
    var cpu: Double
    /// For a figure measured on each processor in turn: its wall time on each.
    var wallPerProcessor: [Double] = []
}

/// One result slot per thread (each thread writes only its own slot; read after the join).
private final class ResultSlots: @unchecked Sendable {
    private let values: UnsafeMutableBufferPointer<Int>
    init(count: Int) { values = .allocate(capacity: count); values.initialize(repeating: 0) }
    deinit { values.deallocate() }
    func store(_ value: Int, at index: Int) { values[index] = value }
    var sum: Int { values.reduce(0, &+) }
}
