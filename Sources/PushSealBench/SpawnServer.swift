import PushSealPlatform
import PushSealProvider

/// One finished child process.
struct SpawnResult {
    /// From just before `fork` to just after `wait4` returned.
    var wallNanoseconds: UInt64
    /// The child's peak resident set size (`ru_maxrss`), in KiB.
    var maximumResidentKiB: Int
    /// Exit status, or 128 + signal.
    var status: Int32
}

/// Spawns the measured commands from a small helper process (`pushseal bench --spawn-server`).
///
/// Why a helper: Linux counts the memory a process had *before* `execve` in its `ru_maxrss`
/// (`exec_mmap` folds the old mm's high-water mark into the process's maximum). A child spawned
/// with `posix_spawn` (which shares the parent's memory until exec) therefore reports at least the
/// spawning process's RSS — the benchmark's own tens of megabytes, even for `/bin/true`. The
/// helper is a fresh `pushseal` process that `fork`s each child: the child's pre-exec memory is
/// then a copy of the helper's few hundred KiB of private pages, so `ru_maxrss` from `wait4` is
/// the command's own peak (plus at most that; the `/bin/true` baseline shows the floor).
final class SpawnClient {
    private let pid: pid_t
    private let requests: Int32
    private let responses: Int32
    private let lines: JSONLineReader<Never>

    /// Starts `executable bench --spawn-server`.
    init(executable: String) throws(BenchError) {
        var toServer: [Int32] = [0, 0]
        var fromServer: [Int32] = [0, 0]
        guard pipe(&toServer) == 0, pipe(&fromServer) == 0 else { throw BenchError("cannot create pipes") }
        for fd in [toServer[1], fromServer[0]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let (child, status) = ProcessSpawner.spawn([executable, "bench", "--spawn-server"], descriptors: [(toServer[0], 0), (fromServer[1], 1)])
        close(toServer[0])
        close(fromServer[1])
        guard status == 0 else {
            close(toServer[1])
            close(fromServer[0])
            throw BenchError("cannot spawn \(executable) bench --spawn-server: \(Errno.message(status))")
        }
        pid = child
        requests = toServer[1]
        responses = fromServer[0]
        lines = .pipe(fromServer[0])
    }

    deinit {
        close(requests)
        close(responses)
        ProcessSpawner.wait(for: pid)
    }

    /// Runs `path arguments…` with stdin from `standardInput`, stdout discarded, stderr to
    /// `standardError`; nil when the helper failed.
    func run(_ path: String, arguments: [String], standardInput: String, standardError: String) -> SpawnResult? {
        let fields = [standardInput, standardError, path] + arguments
        precondition(fields.allSatisfy { !$0.utf8.contains(9) && !$0.utf8.contains(10) }, "tab or newline in a spawn argument")
        let line = Array((fields.joined(separator: "\t") + "\n").utf8)
        guard SpawnServer.writeAll(requests, line), let response = lines.nextText() else { return nil }
        let numbers = response.split(separator: " ").compactMap { Int64($0) }
        guard numbers.count == 3 else { return nil }
        return SpawnResult(wallNanoseconds: UInt64(numbers[1]), maximumResidentKiB: Int(numbers[2]), status: Int32(numbers[0]))
    }

}

/// The helper's side: one request per line on stdin (TAB-separated: stdin file, stderr file,
/// executable, arguments), one `status wall_ns maxrss_kib` line per request on stdout.
package enum SpawnServer {
    /// Serves until end of input; returns the exit status.
    package static func serve() -> Int32 {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let fields = pending[..<newline].split(separator: 9, omittingEmptySubsequences: false).map {
                    String(decoding: $0, as: UTF8.self)
                }
                pending.removeSubrange(...newline)
                guard fields.count >= 3 else { return 1 }
                let result = spawn(fields[2], arguments: Array(fields[3...]), standardInput: fields[0], standardError: fields[1])
                let line = "\(result.status) \(result.wallNanoseconds) \(result.maximumResidentKiB)\n"
                guard writeAll(1, Array(line.utf8)) else { return 1 }
                continue
            }
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return 0 }
            pending += chunk[0..<count]
        }
    }

    /// fork + execve + wait4. Everything the child touches is prepared before `fork`: between
    /// `fork` and `execve` it only calls async-signal-safe functions.
    static func spawn(_ path: String, arguments: [String], standardInput: String, standardError: String) -> SpawnResult {
        #if os(Linux)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let cPath = strdup(path)!, cInput = strdup(standardInput)!, cError = strdup(standardError)!, cNull = strdup("/dev/null")!
        defer {
            for pointer in argv { free(pointer) }
            for pointer in [cPath, cInput, cError, cNull] { free(pointer) }
        }
        let environment = ProcessSpawner.currentEnvironment()
        let start = MonotonicClock.nanoseconds()
        let pid = argv.withUnsafeBufferPointer { args -> pid_t in
            let child = fork()
            if child == 0 {
                let input = open(cInput, O_RDONLY)
                let output = open(cNull, O_WRONLY)
                let error = open(cError, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                if input < 0 || output < 0 || error < 0 || dup2(input, 0) < 0 || dup2(output, 1) < 0 || dup2(error, 2) < 0 {
                    _exit(126)
                }
                execve(cPath, args.baseAddress!, environment)
                _exit(127)
            }
            return child
        }
        #else
        // Apple platforms do not offer fork to Swift; their posix_spawn does not share the
        // parent's memory, and ru_maxrss is in bytes there.
        let start = MonotonicClock.nanoseconds()
        let (spawned, spawnStatus) = ProcessSpawner.spawn(
            [path] + arguments,
            fileActions: [
                .open(standardInput, onto: 0, flags: O_RDONLY, mode: 0), .open("/dev/null", onto: 1, flags: O_WRONLY, mode: 0),
                .open(standardError, onto: 2, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600),
            ])
        let pid = spawnStatus == 0 ? spawned : -1
        #endif
        guard pid > 0 else { return SpawnResult(wallNanoseconds: 0, maximumResidentKiB: 0, status: 125) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { return SpawnResult(wallNanoseconds: 0, maximumResidentKiB: 0, status: 125) }
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        let signal = status & 0x7F
        #if canImport(Darwin)
        let residentKiB = Int(usage.ru_maxrss) / 1_024   // bytes on Darwin
        #else
        let residentKiB = Int(usage.ru_maxrss)           // KiB on Linux
        #endif
        return SpawnResult(wallNanoseconds: elapsed, maximumResidentKiB: residentKiB, status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
    }

    /// Writes all of `bytes` to `fd`; false when that failed.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        let result: Result<Void, IOError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(IOError) in try FileDescriptor.write(buffer, to: fd) }
        }
        return (try? result.get()) != nil
    }
}
