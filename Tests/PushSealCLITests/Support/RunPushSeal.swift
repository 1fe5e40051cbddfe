import Dispatch
import PushSealPlatform
import Foundation
import PushSealCore
import Testing
import PushSealJSON

/// What one run of the built `pushseal` executable produced.
struct PushSealRun: Sendable, CustomStringConvertible {
    /// The exit status (or 128 + signal when it was killed).
    let status: Int32
    /// Standard output, raw.
    let stdoutBytes: [UInt8]
    /// Standard error, raw.
    let stderrBytes: [UInt8]

    /// Standard output as text.
    var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
    /// Standard error as text.
    var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }
    /// Standard error split into lines (no empty last line).
    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

    /// Standard output parsed as one strict JSON object (PushSeal's own parser: output must be
    /// strict JSON, not merely acceptable to a lenient one).
    func stdoutJSONObject(sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
        let trimmed = stdout.hasSuffix("\n") ? Array(stdoutBytes.dropLast()) : stdoutBytes
        let value = try JSONParser.parse(trimmed)
        return try #require(value.objectValue, "stdout is not a JSON object: \(stdout)", sourceLocation: sourceLocation)
    }

    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// Why a run could not happen.
struct RunPushSealError: Error, CustomStringConvertible {
    let description: String
}

/// The built executable: `pushseal` in the same products directory as this test binary
/// (`.build/<triple>/debug/`), or `$PUSHSEAL_EXECUTABLE`.
enum PushSealExecutable {
    static let path: String? = locate()

    private static func locate() -> String? {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment["PUSHSEAL_EXECUTABLE"] { return override }
        var directories: [URL] = []
        #if os(Linux)
        if let exe = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        #endif
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        if let first = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        for directory in directories {
            let candidate = directory.appendingPathComponent("pushseal").path
            if fileManager.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// Reference box filled by one reader thread and read after it finished (the dispatch group
/// orders the accesses).
private final class Collected: @unchecked Sendable {
    var bytes: [UInt8] = []
}

/// Ignore SIGPIPE once, so a child that stops reading its input makes our write fail instead of
/// killing the test process.
private let ignoreSIGPIPE: Void = {
    signal(SIGPIPE, SIG_IGN)
}()

/// Runs the built `pushseal` with `arguments`, feeding `stdin` through a pipe (or /dev/null when
/// nil), and collects everything it writes. Reused by every CLI test, including round trips
/// (`seal` output as `open` input).
///
/// Spawned with `posix_spawn`, not Foundation's `Process`: on Swift 6.3.1 `Process.run()`
/// over-reads a `dirent` in `findMaximumOpenFromProcSelfFD()` and crashed the whole test process
/// in about one full suite run in five (swift-corelibs-foundation pull request 5472).
///
/// - Parameters:
///   - environment: replaces the child's environment when given (default: inherited).
///   - timeout: the child is killed after this many seconds (a hang fails instead of blocking CI).
///   - executable: another program to run instead (`/bin/sh` around `pushseal`, say).
func runPushSeal(
    _ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String]? = nil,
    timeout: Double = 60, executable: String? = nil
) throws -> PushSealRun {
    _ = ignoreSIGPIPE
    guard let path = executable ?? PushSealExecutable.path else {
        throw RunPushSealError(description: "the pushseal executable was not found next to the test binary; run 'swift build' first or set PUSHSEAL_EXECUTABLE")
    }
    let child = try ChildPipes.spawn(path, arguments, environment: environment, feedsInput: stdin != nil)

    let group = DispatchGroup()
    let collectedOutput = Collected(), collectedErrors = Collected()
    DispatchQueue.global().async(group: group) { collectedOutput.bytes = readToEnd(child.output) }
    DispatchQueue.global().async(group: group) { collectedErrors.bytes = readToEnd(child.errors) }
    if let input = child.input, let stdin {
        DispatchQueue.global().async(group: group) {
            // The child may exit without reading everything (EPIPE): that is its business.
            writeAll(stdin, to: input)
            close(input)
        }
    }
    let watchdog = DispatchWorkItem { ProcessSpawner.send(SIGKILL, to: child.pid) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    let raw = ProcessSpawner.wait(for: child.pid)
    watchdog.cancel()
    group.wait()
    close(child.output)
    close(child.errors)
    // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
    let status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
    return PushSealRun(status: status, stdoutBytes: collectedOutput.bytes, stderrBytes: collectedErrors.bytes)
}

/// A spawned child's pid and the parent's ends of its standard streams.
struct ChildPipes {
    let pid: pid_t
    /// Write end of the child's standard input (nil: the child reads /dev/null).
    let input: Int32?
    let output: Int32
    let errors: Int32

    /// Serializes making close-on-exec pipes with spawning, so no child spawned here inherits
    /// another child's pipe (which would keep it open and delay that pipe's end of file).
    private static let spawnLock = NSLock()

    /// Spawns `path` with `arguments` (and `environment`, or this process's), its standard output
    /// and error on pipes, its standard input on a pipe when `feedsInput`, else on /dev/null.
    static func spawn(_ path: String, _ arguments: [String], environment: [String: String]?, feedsInput: Bool) throws -> ChildPipes {
        spawnLock.lock()
        defer { spawnLock.unlock() }
        func closeOnExecPipe() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0, fcntl(fds[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(fds[1], F_SETFD, FD_CLOEXEC) == 0 else {
                throw RunPushSealError(description: "pipe: \(Errno.message(errno))")
            }
            return (fds[0], fds[1])
        }
        let output = try closeOnExecPipe(), errors = try closeOnExecPipe()
        let input = feedsInput ? try closeOnExecPipe() : nil
        let nullInput = feedsInput ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC)

        // dup2 clears close-on-exec on the child's 0, 1 and 2 only.
        let (pid, status) = ProcessSpawner.spawn(
            [path] + arguments, descriptors: [(input?.read ?? nullInput, 0), (output.write, 1), (errors.write, 2)],
            environment: environment.map { $0.map { "\($0.key)=\($0.value)" } })

        for descriptor in [output.write, errors.write, input?.read ?? -1, nullInput] where descriptor >= 0 { close(descriptor) }
        guard status == 0 else {
            for descriptor in [output.read, errors.read, input?.write ?? -1] where descriptor >= 0 { close(descriptor) }
            throw RunPushSealError(description: "cannot start \(path): \(Errno.message(status))")
        }
        return ChildPipes(pid: pid, input: input?.write, output: output.read, errors: errors.read)
    }
}

/// Everything readable from `descriptor` until end of file.
private func readToEnd(_ descriptor: Int32) -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return bytes }
        bytes += chunk[..<count]
    }
}

/// Writes all of `bytes` to `descriptor`, stopping at the first error (EPIPE: the reader left).
private func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}

/// `runPushSeal` with text on standard input.
func runPushSeal(_ arguments: [String], stdin text: String, environment: [String: String]? = nil) throws -> PushSealRun {
    try runPushSeal(arguments, stdin: Array(text.utf8), environment: environment)
}

/// A fresh private temporary directory for one test (removed by the caller with `removeTemporaryDirectory`).
func makeTemporaryDirectory() throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pushseal-cli-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
}

/// Removes a directory made by ``makeTemporaryDirectory()``.
func removeTemporaryDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}
