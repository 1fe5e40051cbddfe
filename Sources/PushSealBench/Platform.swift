internal import CBenchAffinity
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic time in nanoseconds (`CLOCK_MONOTONIC`).
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

/// CPU time consumed by this process (all threads), in nanoseconds.
@inline(__always)
func processCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

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

/// Small file helpers over the C library (the bench's own temporary files only).
enum Files {
    /// The whole file at `path`, or nil.
    static func readAll(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes `bytes` to `path` (created 0600 or truncated). Returns false on failure.
    @discardableResult
    static func writeAll(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return SpawnServer.writeAll(fd, bytes)
    }

    /// A new private directory under `$TMPDIR` (or /tmp).
    static func makeTemporaryDirectory() -> String? {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/pushseal-bench.XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
    }

    /// Removes `directory` and the regular files directly inside it (the bench never nests).
    static func removeDirectory(_ directory: String) {
        guard let handle = opendir(directory) else { return }
        var names: [String] = []
        while let entry = readdir(handle) {
            // Read in place (copying `d_name` reads 256 bytes past a short dirent record).
            let name = String(cString: (UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(handle)
        for name in names { unlink(directory + "/" + name) }
        rmdir(directory)
    }
}

/// The running executable's path (for spawning `pushseal` itself).
public func currentExecutablePath() -> String? {
    #if os(Linux)
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    if count > 0 {
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    #endif
    return CommandLine.arguments.first.flatMap { $0.contains("/") ? $0 : nil }
}
