#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif
import Foundation
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import Synchronization
import Testing
import PushSealPlatform

/// A fresh directory under /tmp, removed when the test process exits (not when the value goes
/// away: Swift may release a value after its last use, while a store still uses the directory).
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        var template = Array("/tmp/pushseal-keystore-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        TemporaryDirectory.register(path)
    }

    /// `path/name`.
    func file(_ name: String) -> String { path + "/" + name }

    /// The store directory used by most tests.
    var store: String { file("store") }
    /// The master key file used by most tests.
    var keyFile: String { file("master.key") }
    /// The database file of ``store``.
    var database: String { store + "/" + DeviceKeyStore.fileName }
    /// The duplicate log file of ``store``.
    var deliveryLog: String { store + "/pushseal-deliveries" }

    private static let created = Mutex<[String]>([])

    private static func register(_ path: String) {
        let first = created.withLock { list in
            list.append(path)
            return list.count == 1
        }
        if first { atexit { TemporaryDirectory.removeAll() } }
    }

    private static func removeAll() {
        for path in created.withLock({ $0 }) {
            // Undo the permission games some tests play, then remove everything.
            _ = system("chmod -R u+rwx '\(path)' 2>/dev/null")
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let value: Atomic<Int64>

    init(_ start: Int64 = 1_700_000_000) { value = Atomic(start) }

    var now: Int64 { value.load(ordering: .sequentiallyConsistent) }
    func set(_ seconds: Int64) { value.store(seconds, ordering: .sequentiallyConsistent) }
    func advance(_ seconds: Int64) { value.add(seconds, ordering: .sequentiallyConsistent) }

    var clock: SecondsClock { { [self] in self.now } }
}

/// Opens (creating) a store with a key file in `directory`.
func makeStore(_ directory: TemporaryDirectory, clock: ManualClock? = nil) throws -> DeviceKeyStore {
    try DeviceKeyStore(
        directory: directory.store, masterKey: .keyFile(path: directory.keyFile, createIfMissing: true), create: true,
        clock: clock?.clock ?? systemClock)
}

/// Reopens the store of `directory` with its key file.
func reopen(_ directory: TemporaryDirectory, clock: ManualClock? = nil) throws -> DeviceKeyStore {
    try DeviceKeyStore(directory: directory.store, masterKey: .keyFile(path: directory.keyFile), clock: clock?.clock ?? systemClock)
}

/// Runs `body` and returns the KeyDirectoryError it threw (nil if it did not throw). Any other
/// error type is a test failure.
func storeError<R>(_ body: () throws -> R, sourceLocation: SourceLocation = #_sourceLocation) -> KeyDirectoryError? {
    do {
        _ = try body()
        return nil
    } catch let error as KeyDirectoryError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension KeyDirectoryError {
    /// The message of a `.locked` error, nil for other cases.
    var lockedReason: String? {
        if case let .locked(why) = self { return why }
        return nil
    }
}

/// Direct access to the database file with the SQLite C API, bypassing the store (tampering).
final class RawDatabase: @unchecked Sendable {
    private var db: OpaquePointer?

    init(_ path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw RawError(message: db.map { String(cString: sqlite3_errmsg($0)) } ?? "open failed")
        }
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit { sqlite3_close_v2(db) }

    struct RawError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Runs SQL without results.
    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw RawError(message: String(cString: sqlite3_errmsg(db)))
        }
    }

    /// Rows of the first column of `sql` as bytes.
    func column(_ sql: String) throws -> [[UInt8]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw RawError(message: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        var rows: [[UInt8]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let count = Int(sqlite3_column_bytes(statement, 0))
            if let pointer = sqlite3_column_blob(statement, 0) {
                rows.append(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
            } else {
                rows.append([])
            }
        }
        return rows
    }

    /// The single integer `sql` returns.
    func integer(_ sql: String) throws -> Int64 {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw RawError(message: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw RawError(message: "no row") }
        return sqlite3_column_int64(statement, 0)
    }
}

/// SQL literal for bytes.
func sqlBlob(_ bytes: [UInt8]) -> String { "x'\(Hex.encode(bytes))'" }

/// The tags of the record slots of the duplicate log at `path`, read with the documented layout
/// (Docs/KEY-STORE.md §2.1: a 128-byte header, then 128-byte slots: state 1 = record, the tag at
/// bytes 16..<48), independently of the store's code.
func recordedTags(_ path: String) throws -> [[UInt8]] {
    let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    return stride(from: 128, to: data.count - 127, by: 128).compactMap { start in
        data[start] == 1 ? Array(data[(start + 16)..<(start + 48)]) : nil
    }
}

/// Whether `needle` occurs anywhere in the file at `path`.
func fileContains(_ path: String, _ needle: [UInt8]) throws -> Bool {
    let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    guard !needle.isEmpty, data.count >= needle.count else { return false }
    var index = 0
    while index + needle.count <= data.count {
        if data[index] == needle[0], Array(data[index..<(index + needle.count)]) == needle { return true }
        index += 1
    }
    return false
}

// MARK: - Helper processes

/// The `pushseal-store-worker` executable, built next to the test binary.
let workerPath: String = {
    if let override = ProcessInfo.processInfo.environment["PUSHSEAL_STORE_WORKER"] { return override }
    var candidates: [String] = []
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        candidates.append((exe as NSString).deletingLastPathComponent)
    }
    // Apple platforms: the directory holding the .xctest bundle.
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        candidates.append((bundle.bundlePath as NSString).deletingLastPathComponent)
    }
    let argv0 = CommandLine.arguments.first ?? ""
    var directory = (argv0 as NSString).deletingLastPathComponent
    // On Apple platforms the test binary sits inside a bundle (…/X.xctest/Contents/MacOS).
    for _ in 0..<4 {
        candidates.append(directory)
        directory = (directory as NSString).deletingLastPathComponent
    }
    for candidate in candidates {
        let path = candidate + "/pushseal-store-worker"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return (candidates.first ?? ".") + "/pushseal-store-worker"
}()

/// A spawned worker (or, with `executable`, another program) whose stdout and stderr go to files.
/// Spawned with `posix_spawn`, never Foundation's `Process`, whose `run()` crashes intermittently
/// on Swift 6.3.1 (swift-corelibs-foundation pull request 5472).
final class Worker {
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String

    /// Spawns the worker with `arguments`; output goes to `outputPrefix.out` / `.err`.
    init(_ arguments: [String], outputPrefix: String, executable: String = workerPath) throws {
        stdoutPath = outputPrefix + ".out"
        stderrPath = outputPrefix + ".err"
        let (pid, status) = ProcessSpawner.spawn(
            [executable] + arguments,
            fileActions: [
                .open(stdoutPath, onto: 1, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644),
                .open(stderrPath, onto: 2, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644),
            ])
        guard status == 0 else {
            throw RawDatabase.RawError(message: "posix_spawn \(executable): \(Errno.message(status))")
        }
        self.pid = pid
    }

    /// How the process ended.
    enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    /// Waits for the process to end.
    func wait() -> Termination {
        let status = ProcessSpawner.wait(for: pid)
        if status & 0x7F == 0 { return .exited((status >> 8) & 0xFF) }
        return .signaled(status & 0x7F)
    }

    /// SIGKILL, then wait.
    func kill9() -> Termination {
        ProcessSpawner.send(SIGKILL, to: pid)
        return wait()
    }

    /// Waits until the process has written something to stdout; false on timeout or exit.
    func waitForOutput(timeout seconds: Double) -> Bool {
        let deadline = MonotonicClock.seconds() + seconds
        var info = stat()
        while MonotonicClock.seconds() < deadline {
            if stat(stdoutPath, &info) == 0, info.st_size > 0 { return true }
            if kill(pid, 0) != 0 { return false }
            usleep(200)
        }
        return false
    }

    /// Everything written to stdout, as lines.
    var outputLines: [String] {
        let text = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Everything written to stderr.
    var errorOutput: String {
        (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    }
}
