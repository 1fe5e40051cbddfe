import PushSealPlatform
import PushSealCLIKit

/// The `pushseal-deliver` helper that `pushseal send` streams its sealed requests to. It sits
/// next to the `pushseal` executable; it links libcurl, which the static `pushseal` cannot.
struct DeliverProcess {
    /// The helper's file name.
    static let executableName = "pushseal-deliver"

    /// Frames are written in batches of about this many bytes (one pipe write for hundreds).
    static let batchByteCount = 64 * 1024

    private let pid: pid_t
    private let input: Int32
    private var pending: [UInt8] = []
    private(set) var broken = false

    /// Starts the helper with its standard input on a pipe; its output and errors are ours.
    init() throws(CLIError) {
        let path = try HelperExecutable.path(
            Self.executableName, neededBy: "'pushseal send'",
            hints: "build or install both products: swift build --product pushseal --product \(Self.executableName)")
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw .failure("cannot create a pipe: \(Errno.message(errno))") }
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        let (child, status) = ProcessSpawner.spawn([path], descriptors: [(pipeEnds[0], 0)])
        close(pipeEnds[0])
        guard status == 0 else {
            close(pipeEnds[1])
            throw .failure("cannot start \(path): \(Errno.message(status))")
        }
        signal(SIGPIPE, SIG_IGN)
        pid = child
        input = pipeEnds[1]
    }

    /// Queues `bytes` for the helper, writing when a batch is full; false (from then on) once
    /// it has stopped reading.
    @discardableResult
    mutating func send(_ bytes: [UInt8]) -> Bool {
        guard !broken else { return false }
        pending.append(contentsOf: bytes)
        return pending.count < Self.batchByteCount || flush()
    }

    /// Writes what is queued (before waiting for more input, so a co-process's line is sent at
    /// once); false once the helper has stopped reading.
    @discardableResult
    mutating func flush() -> Bool {
        guard !broken else { return false }
        defer { pending.removeAll(keepingCapacity: true) }
        let bytes = pending
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(input, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                broken = true
                return false
            }
            offset += count
        }
        return true
    }

    /// Ends the input and waits; the helper's exit status.
    mutating func finish() -> ExitCode {
        flush()
        close(input)
        let status = ProcessSpawner.wait(for: pid)
        let exited = status & 0x7F == 0
        return ExitCode(rawValue: exited ? (status >> 8) & 0xFF : 1)
    }
}
