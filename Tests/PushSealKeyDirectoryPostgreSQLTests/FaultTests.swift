import Foundation
import PushSealCore
import PushSealKeyDirectory
import PushSealProvider
import PushSealKeyDirectoryPostgreSQL
import Testing
import PushSealPlatform

/// Faults against the throwaway cluster: each is a clear error or a retry, never a silent
/// fallback, never a lost or duplicate epoch, never a password in a message. Serialized: the
/// server restarts affect every connection.
extension PostgreSQLTests {
@Suite("faults")
struct FaultTests {
    /// The epochs a worker's output reports committed.
    static func committedEpochs(_ lines: [String]) -> [Int64] {
        lines.compactMap { line in
            let parts = line.split(separator: " ")
            return parts.count == 3 && parts[0] == "rot" ? Int64(parts[2]) : nil
        }
    }

    /// Epochs 1...n, exactly one without a not-after time (the newest), every row authentic.
    static func expectConsistent(_ directory: PostgreSQLKeyDirectory, _ conversation: String, committed: [Int64]) throws {
        let items = try directory.items(conversation: conversation)
        #expect(items.map(\.epoch) == Array(1...Int64(items.count)))
        #expect(items.filter { $0.notAfter == nil }.map(\.epoch) == [Int64(items.count)])
        // Every epoch a worker saw committed is there, each once.
        #expect(Set(committed).count == committed.count)
        #expect(Set(committed).isSubset(of: Set(items.map(\.epoch))))
    }

    @Test func wrongPasswordBadURIAndUnreachableServerAreClearErrorsWithoutThePassword() throws {
        let uri = try TestServer.uri()
        let master = MasterKeySource.bytes(TestServer.masterKey())
        // Wrong password: same URI with the password changed.
        let wrong = uri.replacing("pushseal:", with: "pushseal:WRONGsecret", maxReplacements: 1)
        guard case let .serverUnavailable(why)? = directoryError({ _ = try PostgreSQLKeyDirectory(uri: wrong, masterKey: master) }) else {
            Issue.record("wrong password must be serverUnavailable")
            return
        }
        #expect(why.contains("password authentication failed"))
        #expect(!why.contains("WRONGsecret"))

        guard case let .serverUnavailable(bad)? = directoryError({
            _ = try PostgreSQLKeyDirectory(uri: "postgresql://u:hunter2@/db?host=/tmp&no_such_parameter=1", masterKey: master)
        }) else {
            Issue.record("bad URI")
            return
        }
        #expect(bad.contains("no_such_parameter") && !bad.contains("hunter2"))
        guard case .invalidArgument? = directoryError({ _ = try PostgreSQLKeyDirectory(uri: "/var/lib/keys", masterKey: master) }) else {
            Issue.record("a path is not a URI")
            return
        }

        // Nothing listens on port 1 of loopback: refused at once, no retry, no fallback.
        guard case let .serverUnavailable(down)? = directoryError({
            _ = try PostgreSQLKeyDirectory(uri: "postgres://pushseal:hunter2@127.0.0.1:1/pushseal?sslmode=disable", masterKey: master)
        }) else {
            Issue.record("unreachable")
            return
        }
        #expect(down.contains("127.0.0.1") && !down.contains("hunter2"))
    }

    @Test func aStatementOverTheTimeoutIsAClearErrorAndChangesNothing() throws {
        let uri = try TestServer.freshSchemaURI()
        let master = TestServer.masterKey()
        let directory = try PostgreSQLKeyDirectory(
            uri: uri, masterKey: .bytes(master), create: true, options: .init(statementTimeoutMilliseconds: 300))
        try directory.rotate(conversation: "c")
        // Another session holds the conversation's rotation lock for 3 s.
        let holder = try ChildProcess("/usr/bin/env", [
            "psql", uri, "-qAt", "-c", "SELECT pg_advisory_lock(hashtextextended('c', 0))", "-c", "SELECT pg_sleep(3)",
        ])
        defer { holder.wait() }
        let held = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()"
        #expect(try PostgreSQLTests.CacheTests.eventually(10) { try TestServer.psql(uri, held) == "1" })
        #expect(directoryError({ try directory.rotate(conversation: "c") }) == .server(sqlState: "57014", message: "canceling statement due to statement timeout"))
        #expect(try directory.items(conversation: "c").map(\.epoch) == [1])
    }

    @Test func aTerminatedConnectionIsReplacedOnTheNextCall() throws {
        let uri = try TestServer.freshSchemaURI()
        let master = TestServer.masterKey()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
        try directory.rotate(conversation: "c")
        // Kill every other session of the test database: the directory's pooled connection dies.
        try TestServer.psql(uri, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND application_name = 'pushseal'")
        #expect(try directory.rotate(conversation: "c").item.epoch == 2)
        try Self.expectConsistent(directory, "c", committed: [1, 2])
    }

    @Test func aConnectionDroppedMidTransactionIsRetriedWithExactlyOneNewEpoch() throws {
        let uri = try TestServer.freshSchemaURI()
        let master = TestServer.masterKey()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
        try directory.rotate(conversation: "m")
        // Another session holds the conversation's lock, so the rotation below stops inside its
        // transaction (BEGIN done, waiting in pg_advisory_xact_lock) until its backend is killed.
        let holder = try ChildProcess("/usr/bin/env", [
            "psql", uri, "-qAt", "-c", "SELECT pg_advisory_lock(hashtextextended('m', 0))", "-c", "SELECT pg_sleep(60)",
        ])
        defer {
            holder.kill(SIGTERM)
            holder.wait()
        }
        let held = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()"
        #expect(try PostgreSQLTests.CacheTests.eventually(30) { try TestServer.psql(uri, held) == "1" })
        // On a thread of its own: the test's cooperative pool may be busy with other suites.
        let outcome = Outcome()
        let thread = Thread { outcome.set(Result { try directory.rotate(conversation: "m").item.epoch }) }
        thread.start()
        let blocked = "FROM pg_stat_activity WHERE application_name = 'pushseal' AND state = 'active' AND wait_event_type = 'Lock' AND datname = current_database()"
        #expect(try PostgreSQLTests.CacheTests.eventually(30) { try TestServer.psql(uri, "SELECT count(*) \(blocked)") == "1" })
        #expect(try TestServer.psql(uri, "SELECT count(pg_terminate_backend(pid)) \(blocked)") == "1")
        // The rotation reconnects and waits for the lock again; once the holder's session is
        // gone it commits exactly once.
        try TestServer.psql(uri, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()")
        #expect(PostgreSQLTests.CacheTests.eventually(30) { outcome.value != nil })
        #expect(try outcome.value?.get() == 2)
        try Self.expectConsistent(directory, "m", committed: [1, 2])
    }

    @Test func rotationsSurviveAServerRestartWithNothingLostOrDuplicated() throws {
        let uri = try TestServer.freshSchemaURI()
        let master = TestServer.masterKey()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
        let provider = try PostgreSQLKeyProvider(directory: try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master)), timeToLive: 3600)
        defer { provider.stop() }
        let workers = try (0..<3).map { _ in
            try ChildProcess(TestServer.workerPath, ["rotate", "--uri", uri, "--key-hex", TestServer.hex(master), "--conversation", "r", "--count", "40"])
        }
        var outputs = [[String]](repeating: [], count: workers.count)
        for (index, worker) in workers.enumerated() {
            for _ in 0..<5 { if let line = worker.readLine() { outputs[index].append(line) } }
        }
        _ = try TestServer.run(try TestServer.ctl(), ["restart", "-m", "fast", "-w"])
        for (index, worker) in workers.enumerated() {
            while let line = worker.readLine() { outputs[index].append(line) }
            #expect(worker.wait() == 0, "\(outputs[index].suffix(3))")
            #expect(outputs[index].last == "done")
        }
        let committed = outputs.flatMap(Self.committedEpochs)
        #expect(committed.count == 120)
        try Self.expectConsistent(directory, "r", committed: committed)
        #expect(try directory.items(conversation: "r").count == 120)
        // The listener came back and the cache follows the directory again.
        #expect(PostgreSQLTests.CacheTests.eventually(10) { provider.listener.isListening })
        #expect(provider.listener.reconnectCount >= 1)
        let rotated = try directory.rotate(conversation: "r").key
        #expect(try PostgreSQLTests.CacheTests.eventually(5) { try provider.currentKey(conversation: "r") == rotated })
    }

    @Test func killingProvidersMidRotationLosesNothing() throws {
        let uri = try TestServer.freshSchemaURI()
        let master = TestServer.masterKey()
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
        var committed: [Int64] = []
        for round in 0..<3 {
            let workers = try (0..<3).map { _ in
                try ChildProcess(TestServer.workerPath, ["rotate-loop", "--uri", uri, "--key-hex", TestServer.hex(master), "--conversation", "k"])
            }
            for worker in workers {
                for _ in 0..<(3 + round) { if let line = worker.readLine() { committed += Self.committedEpochs([line]) } }
            }
            for worker in workers { worker.kill(SIGKILL) }
            for worker in workers {
                while let line = worker.readLine() { committed += Self.committedEpochs([line]) }
                #expect(worker.wait() == 128 + SIGKILL)
            }
        }
        try Self.expectConsistent(directory, "k", committed: committed)
        // The directory goes on from the last epoch.
        let next = try directory.rotate(conversation: "k").item.epoch
        #expect(next == Int64(try directory.items(conversation: "k").count))
    }
}
}

/// A result handed over from another thread.
final class Outcome: @unchecked Sendable {
    private let lock = Lock()
    private var result: Result<Int64, any Error>?
    var value: Result<Int64, any Error>? { lock.withLock { result } }
    func set(_ value: Result<Int64, any Error>) { lock.withLock { result = value } }
}
