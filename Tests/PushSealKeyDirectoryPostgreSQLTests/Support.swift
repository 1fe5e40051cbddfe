import PushSealCore
import PushSealKeyDirectory
import PushSealKeyDirectoryPostgreSQL
import Testing
import PushSealPlatform

/// The throwaway cluster of scripts/with-postgres.sh. Tests that need it FAIL (never skip) when
/// it is not there.
enum TestServer {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// PUSHSEAL_TEST_POSTGRES_URI, or a failure saying how to provide it.
    static func uri() throws -> String {
        guard let pointer = getenv("PUSHSEAL_TEST_POSTGRES_URI"), case let uri = String(cString: pointer), !uri.isEmpty else {
            throw Missing(description: """
                PUSHSEAL_TEST_POSTGRES_URI is not set: these tests need the throwaway PostgreSQL cluster; \
                run them as: scripts/with-postgres.sh swift test --skip-build --filter PostgreSQL
                """)
        }
        return uri
    }

    /// PUSHSEAL_TEST_POSTGRES_CTL (pg_ctl for the cluster, as its user).
    static func ctl() throws -> String {
        guard let pointer = getenv("PUSHSEAL_TEST_POSTGRES_CTL") else {
            throw Missing(description: "PUSHSEAL_TEST_POSTGRES_CTL is not set: run the tests under scripts/with-postgres.sh")
        }
        return String(cString: pointer)
    }

    /// A URI whose sessions use a fresh, empty schema of their own (search_path passed through
    /// libpq's `options`), so tests running at once never see each other's tables.
    static func freshSchemaURI() throws -> String {
        let base = try uri()
        let name = "t_" + SystemRandom.bytes(count: 8).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        try psql(base, "CREATE SCHEMA \(name)")
        return base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(name)"
    }

    /// Runs one SQL command with psql against `uri`; returns its unaligned output.
    @discardableResult
    static func psql(_ uri: String, _ sql: String) throws -> String {
        try run("/usr/bin/env", ["psql", uri, "-v", "ON_ERROR_STOP=1", "-qAtc", sql])
    }

    /// Runs a program, returns its standard output; throws when it fails.
    static func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = try ChildProcess(program, arguments)
        let output = process.readAll()
        let status = process.wait()
        guard status == 0 else { throw Missing(description: "\(arguments.prefix(2)) failed (status \(status)): \(output)") }
        return output
    }

    static func masterKey() -> [UInt8] { SystemRandom.bytes(count: 32) }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The built worker next to the test bundle.
    static var workerPath: String {
        var path = CommandLine.arguments[0]
        // swift-testing's runner: .build/<config>/PushSealPackageTests.xctest
        while !path.isEmpty, !path.hasSuffix("/") { path.removeLast() }
        if path.hasSuffix(".xctest/") || path.isEmpty { path = ".build/debug/" }
        let candidates = [path + "pushseal-keydir-worker", ".build/debug/pushseal-keydir-worker"]
        return candidates.first { access($0, X_OK) == 0 } ?? candidates[1]
    }
}

/// A child process with its standard output on a pipe (stderr merged), started with posix_spawn.
final class ChildProcess {
    static let spawnLock = Lock()
    let pid: pid_t
    private let output: Int32
    private var buffer: [UInt8] = []

    init(_ program: String, _ arguments: [String]) throws {
        var pipes: [Int32] = [0, 0]
        // Close-on-exec: no other child (a restarted server above all) may inherit a write end,
        // or this pipe would never reach end of file. dup2 onto 1 and 2 clears the flag there.
        let made = ChildProcess.spawnLock.withLock { () -> Bool in
            guard pipe(&pipes) == 0 else { return false }
            return fcntl(pipes[0], F_SETFD, FD_CLOEXEC) == 0 && fcntl(pipes[1], F_SETFD, FD_CLOEXEC) == 0
        }
        guard made else { throw TestServer.Missing(description: "pipe failed") }
        let (child, status) = ProcessSpawner.spawn(
            [program] + arguments, fileActions: [.duplicate(pipes[1], onto: 1), .duplicate(pipes[1], onto: 2)], searchingPath: true)
        close(pipes[1])
        guard status == 0 else {
            close(pipes[0])
            throw TestServer.Missing(description: "cannot start \(program): error \(status)")
        }
        pid = child
        output = pipes[0]
    }

    deinit { close(output) }

    /// The next line (without its newline), nil at end of output.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                if buffer.isEmpty { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            buffer += chunk[..<count]
        }
    }

    func readAll() -> String {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        return lines.joined(separator: "\n")
    }

    func kill(_ signal: Int32) { ProcessSpawner.send(signal, to: pid) }

    /// The exit status (128 + signal when killed).
    @discardableResult
    func wait() -> Int32 {
        let status = ProcessSpawner.wait(for: pid)
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }
}

/// The `KeyDirectoryError` `body` throws, nil when it throws none.
func directoryError(_ body: () throws -> Void) -> KeyDirectoryError? {
    do {
        try body()
        return nil
    } catch let error as KeyDirectoryError {
        return error
    } catch {
        Issue.record("not a KeyDirectoryError: \(error)")
        return nil
    }
}

/// Every suite against the throwaway cluster, one at a time: the fault tests restart the server
/// and terminate sessions, which must not hit another suite's psql calls.
@Suite("PostgreSQL key directory", .serialized)
struct PostgreSQLTests {}
