import PushSealCore
import PushSealKeyDirectory
import PushSealPlatform
import PushSealProvider

/// The PostgreSQL key directory as `pushseal bench --postgres URI` measures it. The bench
/// module links no database client: the executable that has the backend (`pushseal-full`)
/// gives these functions.
package struct PostgreSQLBenchBackend: Sendable {
    /// Opens the directory (with `create`: creating the schema and the master key file when
    /// missing), on connections of its own.
    package var open: @Sendable (_ create: Bool) throws(KeyDirectoryError) -> any KeyDirectory
    /// A node's listening current-key cache over a directory ``open`` returned, entries living
    /// at most `timeToLive` seconds (`PostgreSQLKeyProvider`).
    package var listeningCache: @Sendable (_ directory: any KeyDirectory, _ timeToLive: Double) throws(KeyDirectoryError) -> any CurrentKeyProvider
    /// The command line of a peer process on the same directory and master key
    /// (``PostgreSQLPeer``), to which the peer's own arguments are appended.
    package var peer: [String]

    /// A backend from its functions and the peer's command line.
    package init(
        open: @escaping @Sendable (Bool) throws(KeyDirectoryError) -> any KeyDirectory,
        listeningCache: @escaping @Sendable (any KeyDirectory, Double) throws(KeyDirectoryError) -> any CurrentKeyProvider,
        peer: [String]
    ) {
        self.open = open
        self.listeningCache = listeningCache
        self.peer = peer
    }
}

/// The directory under test: opened once, with a fresh conversation rotated to epoch 1 (removed,
/// with the concurrent-rotation conversation, by ``remove()``).
final class PostgreSQLFixture: @unchecked Sendable {
    let backend: PostgreSQLBenchBackend
    let directory: any KeyDirectory
    /// The conversation every seal and lookup figure uses.
    let conversation: String
    /// The conversation the concurrent rotations share.
    var concurrentConversation: String { conversation + "-conc" }

    init(_ backend: PostgreSQLBenchBackend) throws(BenchError) {
        self.backend = backend
        conversation = "bench-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        do throws(KeyDirectoryError) {
            directory = try backend.open(true)
            _ = try directory.rotate(conversation: conversation, label: nil, key: nil)
        } catch {
            throw BenchError("cannot prepare the PostgreSQL key directory: \(error)")
        }
    }

    /// Removes the bench's conversations from the directory.
    func remove() {
        _ = try? directory.removeConversation(conversation)
        _ = try? directory.removeConversation(concurrentConversation)
    }
}

/// The PostgreSQL figures (`pushseal bench --postgres URI`). In the rounds, with every other
/// in-process figure: `seal.postgres.N` (see ``SealWorkloads/throughProvider(name:contentBytes:attributes:conversation:makeProvider:)``),
/// `postgres.lookup` and `postgres.connect`. After the rounds, across processes (each a peer,
/// ``PostgreSQLPeer``): `postgres.rotation.use` and `postgres.rotations.conc`.
enum PostgreSQLFigures {
    static func sealName(_ contentBytes: Int) -> String { "seal.postgres.\(contentBytes)" }
    static let lookupName = "postgres.lookup"
    static let connectName = "postgres.connect"
    static let rotationUseName = "postgres.rotation.use"
    static let concurrentRotationsName = "postgres.rotations.conc"
    /// The peer processes rotating at once, and the rotations each makes (`--quick`: 10).
    static let concurrentProcesses = 4
    static func rotationsPerProcess(quick: Bool) -> Int { quick ? 10 : 50 }
    /// Rotations timed for `postgres.rotation.use` (`--quick`: 5).
    static func rotationsUsed(quick: Bool) -> Int { quick ? 5 : 20 }
    /// The time to live of the caches (long: a rotation reaches them by notification).
    static let timeToLive = PostgreSQLPeer.timeToLive

    /// `seal.apns.N` with the conversation's current key from the listening cache, asked on
    /// every seal: what a long-lived provider node on PostgreSQL does per notification.
    static func seal(_ fixture: PostgreSQLFixture, contentBytes: Int) -> Workload {
        SealWorkloads.throughProvider(
            name: sealName(contentBytes), contentBytes: contentBytes, attributes: [],
            conversation: fixture.conversation
        ) {
            try! fixture.backend.listeningCache(fixture.directory, timeToLive)
        }
    }

    /// A cache miss: the directory's `currentKey` (one round trip on a pooled connection, and
    /// the unseal), next to the raw decryption of a key.
    static func lookup(_ fixture: PostgreSQLFixture) -> Workload {
        currentKey(name: lookupName, fixture, maximumIterations: 2_000) { fixture.directory }
    }

    /// A node's first lookup: the directory opened on new connections (schema check, master
    /// key) and its `currentKey`.
    static func connect(_ fixture: PostgreSQLFixture) -> Workload {
        currentKey(name: connectName, fixture, maximumIterations: 20) { try! fixture.backend.open(false) }
    }

    /// `currentKey` of the fixture's conversation, per operation, on the directory `directory`
    /// gives (asked once per operation).
    private static func currentKey(
        name: String, _ fixture: PostgreSQLFixture, maximumIterations: Int, directory: @escaping () -> any KeyDirectory
    ) -> Workload {
        Workload(
            name: name, group: "postgres", limit: RawAEAD.decryptName(ConversationKey.byteCount), maximumIterations: maximumIterations,
            makeWorker: {
                Worker { iterations in
                    var total = 0
                    for _ in 0..<iterations {
                        total &+= Int(try! directory().currentKey(conversation: fixture.conversation).item.epoch)
                    }
                    return total
                }
            })
    }

    /// `postgres.rotation.use`: a rotation committed here until a peer process (its listening
    /// cache, time to live 60 s: by notification) hands out the new key; median and maximum.
    static func rotationUse(_ fixture: PostgreSQLFixture, quick: Bool) throws(BenchError) -> Figure {
        let watcher = try PeerProcess(fixture.backend.peer + ["--conversation", fixture.conversation, "--watch"])
        defer { watcher.kill() }
        guard watcher.readLine()?.hasPrefix("ready ") == true else { throw BenchError("the watching peer process did not start") }
        var latencies: [Double] = []
        for _ in 0..<rotationsUsed(quick: quick) {
            let rotated: StoredKey
            do throws(KeyDirectoryError) {
                rotated = try fixture.directory.rotate(conversation: fixture.conversation, label: nil, key: nil)
            } catch {
                throw BenchError("rotating \(fixture.conversation) failed: \(error)")
            }
            let committed = MonotonicClock.nanoseconds()
            guard watcher.readLine() == "kid \(rotated.item.keyID)" else { throw BenchError("the watching peer process missed a rotation") }
            latencies.append(Double(MonotonicClock.nanoseconds() - committed))
        }
        var figure = Figure(
            name: rotationUseName, group: "postgres", cores: 1, medianNanoseconds: median(latencies), samples: latencies.count, iterations: 1)
        figure.attributes = [("max_ns", .number(latencies.max() ?? 0)), ("processes", .integer(2))]
        return figure
    }

    /// `postgres.rotations.conc`: ``concurrentProcesses`` peers rotating one conversation at
    /// once (process start included), per rotation; its target is the consistency check: epochs
    /// 1...total, each reported once, exactly one current.
    static func concurrentRotations(_ fixture: PostgreSQLFixture, quick: Bool) throws(BenchError) -> Figure {
        let each = rotationsPerProcess(quick: quick)
        let total = concurrentProcesses * each
        let start = MonotonicClock.nanoseconds()
        var rotators: [PeerProcess] = []
        defer { for rotator in rotators { rotator.kill() } }
        for _ in 0..<concurrentProcesses {
            rotators.append(try PeerProcess(fixture.backend.peer + ["--conversation", fixture.concurrentConversation, "--rotations", String(each)]))
        }
        var epochs: [Int64] = []
        for rotator in rotators {
            while let line = rotator.readLine() {
                let parts = line.split(separator: " ")
                if parts.count == 3, parts[0] == "rot", let epoch = Int64(parts[2]) { epochs.append(epoch) }
            }
        }
        let elapsed = Double(MonotonicClock.nanoseconds() - start)
        let items: [KeyItem]
        do throws(KeyDirectoryError) {
            items = try fixture.directory.items(conversation: fixture.concurrentConversation)
        } catch {
            throw BenchError("listing \(fixture.concurrentConversation) failed: \(error)")
        }
        let consistent = epochs.sorted() == Array(1...Int64(total)) && items.map(\.epoch) == Array(1...Int64(total))
            && items.filter { $0.notAfter == nil }.count == 1
        var figure = Figure(
            name: concurrentRotationsName, group: "postgres", cores: concurrentProcesses, medianNanoseconds: elapsed / Double(max(1, epochs.count)),
            samples: 1, iterations: epochs.count)
        figure.attributes = [("processes", .integer(concurrentProcesses)), ("rotations", .integer(epochs.count))]
        figure.target = "epochs 1...\(total) once each, one current"
        figure.targetMet = consistent
        return figure
    }
}

/// The peer's side (`pushseal bench postgres-peer`, hidden; its command line is
/// ``PostgreSQLBenchBackend/peer``): one line per event on standard output, each written with
/// one `write(2)` right after the operation returned.
package enum PostgreSQLPeer {
    /// The time to live of the bench's listening caches, the watching peer's too (60 s: long,
    /// so that a rotation reaches them by notification, never by expiry).
    package static let timeToLive = 60.0

    /// Prints `ready KID` once the listening cache `provider` serves `conversation`, then `kid
    /// KID` whenever the key it hands out changes (asked every millisecond), until killed.
    package static func watch(_ provider: any CurrentKeyProvider, conversation: String) throws -> Never {
        var last = try provider.currentKey(conversation: conversation).id
        emit("ready \(last)")
        while true {
            let now = try provider.currentKey(conversation: conversation).id
            if now != last {
                emit("kid \(now)")
                last = now
            }
            usleep(1_000)
        }
    }

    /// Rotates `conversation` `count` times, printing `rot KID EPOCH` after each commit.
    package static func rotate(_ directory: any KeyDirectory, conversation: String, count: Int) throws(KeyDirectoryError) {
        for _ in 0..<count {
            let stored = try directory.rotate(conversation: conversation, label: nil, key: nil)
            emit("rot \(stored.item.keyID) \(stored.item.epoch)")
        }
    }

    private static func emit(_ line: String) {
        _ = SpawnServer.writeAll(1, Array((line + "\n").utf8))
    }
}

/// A peer process with its standard output on a pipe, read line by line.
final class PeerProcess {
    private let pid: pid_t
    private let output: Int32
    private let lines: JSONLineReader<Never>
    private var finished = false

    init(_ arguments: [String]) throws(BenchError) {
        var pipes: [Int32] = [0, 0]
        guard pipe(&pipes) == 0 else { throw BenchError("cannot create a pipe: \(Errno.message(errno))") }
        _ = fcntl(pipes[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipes[1], F_SETFD, FD_CLOEXEC)
        let (child, status) = ProcessSpawner.spawn(arguments, descriptors: [(pipes[1], 1)])
        close(pipes[1])
        guard status == 0 else {
            close(pipes[0])
            throw BenchError("cannot start \(arguments[0]): \(Errno.message(status))")
        }
        pid = child
        output = pipes[0]
        lines = .pipe(pipes[0])
    }

    deinit { close(output) }

    /// The next line (without its newline); nil at the end of the output.
    func readLine() -> String? { lines.nextText() }

    /// Kills the process (when it has not exited) and reaps it.
    func kill() {
        guard !finished else { return }
        finished = true
        ProcessSpawner.send(SIGKILL, to: pid)
        ProcessSpawner.wait(for: pid)
    }
}
