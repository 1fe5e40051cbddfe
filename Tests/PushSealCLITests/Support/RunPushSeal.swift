import Dispatch
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
/// - Parameters:
///   - environment: replaces the child's environment when given (default: inherited).
///   - currentDirectory: the child's working directory.
///   - timeout: the child is killed after this many seconds (a hang fails instead of blocking CI).
///   - executable: another program to run instead (`/bin/sh` around `pushseal`, say).
func runPushSeal(
    _ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String]? = nil,
    currentDirectory: String? = nil, timeout: Double = 60, executable: String? = nil
) throws -> PushSealRun {
    _ = ignoreSIGPIPE
    guard let path = executable ?? PushSealExecutable.path else {
        throw RunPushSealError(description: "the pushseal executable was not found next to the test binary; run 'swift build' first or set PUSHSEAL_EXECUTABLE")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let input: Pipe? = stdin == nil ? nil : Pipe()
    process.standardInput = input ?? FileHandle.nullDevice
    try process.run()

    let group = DispatchGroup()
    let collectedOutput = Collected(), collectedErrors = Collected()
    DispatchQueue.global().async(group: group) {
        collectedOutput.bytes = Array(output.fileHandleForReading.readDataToEndOfFile())
    }
    DispatchQueue.global().async(group: group) {
        collectedErrors.bytes = Array(errors.fileHandleForReading.readDataToEndOfFile())
    }
    if let input, let stdin {
        DispatchQueue.global().async(group: group) {
            // The child may exit without reading everything (EPIPE): that is its business.
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
    }
    let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    process.waitUntilExit()
    watchdog.cancel()
    group.wait()
    let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    return PushSealRun(status: status, stdoutBytes: collectedOutput.bytes, stderrBytes: collectedErrors.bytes)
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
