internal import CBenchAffinity

/// Processor affinity of the calling thread (Linux; elsewhere nothing can be pinned).
enum Affinity {
    /// The processors this thread may run on, in order; empty where affinity cannot be read.
    static func allowedProcessors() -> [Int] {
        var processors = [Int32](repeating: 0, count: 1_024)
        let count = pushseal_bench_allowed_processors(&processors, Int32(processors.count))
        return count > 0 ? processors[0..<Int(count)].map(Int.init) : []
    }

    /// Runs `body` with the calling thread pinned to `processor`, then restores the thread's
    /// previous affinity. Runs `body` unpinned where pinning is not possible.
    static func pinned<Result>(to processor: Int, _ body: () -> Result) -> Result {
        withUnsafeTemporaryAllocation(byteCount: pushseal_bench_affinity_size(), alignment: 16) { saved in
            guard let processor = Int32(exactly: processor), pushseal_bench_pin(processor, saved.baseAddress) == 0 else {
                return body()
            }
            defer { pushseal_bench_restore(saved.baseAddress) }
            return body()
        }
    }
}
