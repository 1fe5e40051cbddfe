import PushSealCore
import PushSealProvider
import PushSealKeyDirectoryPostgreSQL
import PushSealPlatform

/// `bench`: the PostgreSQL directory's figures, each against a baseline in the same run:
///
///   seal.cached     seals/s with the key from PostgreSQLKeyProvider's cache vs with the key in
///                   memory through the same sealing path (FixedKeyProvider) (ratio; target >= 0.8)
///   lookup.cold     one cache miss: the directory's currentKey (round trip, unseal), median µs;
///                   and a fresh connection + currentKey
///   rotation.use    rotation committed here -> a second process (watch) seals with the new key,
///                   median and max ms
///   rotations.conc  N processes rotating one conversation at once: rotations/s, and the check
///                   that the epochs are 1...total with one current
enum Bench {

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    static func run(uri: String, master: [UInt8], worker: String) throws {
        let conversation = "bench-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master), create: true)
        let key = try directory.rotate(conversation: conversation).key
        let provider = try PostgreSQLKeyProvider(directory: directory, timeToLive: 60)
        defer { provider.stop() }
        let sealer = try NotificationSealer()
        let content = NotificationContent(
            conversationID: conversation, messageID: "m_0000000001", sentAt: 1_700_000_000, title: "Ana", body: String(repeating: "x", count: 200))
        let options = APNsOptions()

        // seal.cached: interleaved rounds, best round of each.
        // Baseline: the same sealing path with the key in memory (FixedKeyProvider).
        let inMemory = FixedKeyProvider([(conversation, key)])
        var memoryBest = 0.0, cachedBest = 0.0, directBest = 0.0
        let perRound = 2000
        for _ in 0..<7 {
            var start = MonotonicClock.seconds()
            for _ in 0..<perRound { _ = try sealer.seal(content, with: key, options: options) }
            directBest = max(directBest, Double(perRound) / (MonotonicClock.seconds() - start))
            start = MonotonicClock.seconds()
            for _ in 0..<perRound { _ = try sealer.seal(content, keyProvider: inMemory, options: options) }
            memoryBest = max(memoryBest, Double(perRound) / (MonotonicClock.seconds() - start))
            start = MonotonicClock.seconds()
            for _ in 0..<perRound { _ = try sealer.seal(content, keyProvider: provider, options: options) }
            cachedBest = max(cachedBest, Double(perRound) / (MonotonicClock.seconds() - start))
        }
        emit("seal.direct \(Int(directBest)) seals/s (seal(_:with:), no key provider)")
        emit("seal.memory \(Int(memoryBest)) seals/s (key in memory: FixedKeyProvider)")
        emit("seal.cached \(Int(cachedBest)) seals/s  ratio \(String(cachedBest / memoryBest).prefix(5)) (target >= 0.8)")

        // lookup.cold
        var lookups: [Double] = []
        for _ in 0..<200 {
            let start = MonotonicClock.seconds()
            _ = try directory.currentKey(conversation: conversation)
            lookups.append(MonotonicClock.seconds() - start)
        }
        var connects: [Double] = []
        for _ in 0..<20 {
            let start = MonotonicClock.seconds()
            let fresh = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(master))
            _ = try fresh.currentKey(conversation: conversation)
            connects.append(MonotonicClock.seconds() - start)
        }
        emit("lookup.cold \(Int(median(lookups) * 1e6)) us median (pooled connection); \(Int(median(connects) * 1e3)) ms with a new connection and schema check")

        // rotation.use across two processes
        let watcher = try Spawned(worker, ["watch", "--uri", uri, "--key-hex", hex(master), "--conversation", conversation, "--ttl", "60"])
        defer { watcher.kill() }
        guard watcher.readLine()?.hasPrefix("ready") == true else { fail("the watching process did not start") }
        var latencies: [Double] = []
        for _ in 0..<20 {
            let start = MonotonicClock.seconds()
            let rotated = try directory.rotate(conversation: conversation)
            let committed = MonotonicClock.seconds()
            guard watcher.readLine() == "kid \(rotated.item.keyID)" else { fail("the watching process missed a rotation") }
            latencies.append(MonotonicClock.seconds() - committed)
            _ = start
        }
        emit("rotation.use \(String(median(latencies) * 1e3).prefix(6)) ms median, \(String(latencies.max()! * 1e3).prefix(6)) ms max after commit (20 rotations, TTL 60 s: by notification)")

        // rotations.conc
        let shared = conversation + "-conc"
        let processes = 4, each = 50
        let start = MonotonicClock.seconds()
        let rotators = try (0..<processes).map { _ in
            try Spawned(worker, ["rotate", "--uri", uri, "--key-hex", hex(master), "--conversation", shared, "--count", String(each)])
        }
        var epochs: [Int64] = []
        for rotator in rotators {
            while let line = rotator.readLine() {
                let parts = line.split(separator: " ")
                if parts.count == 3, parts[0] == "rot", let epoch = Int64(parts[2]) { epochs.append(epoch) }
            }
            rotator.wait()
        }
        let elapsed = MonotonicClock.seconds() - start
        let items = try directory.items(conversation: shared)
        let consistent = epochs.sorted() == Array(1...Int64(processes * each)) && items.map(\.epoch) == Array(1...Int64(processes * each))
            && items.filter { $0.notAfter == nil }.count == 1
        emit("rotations.conc \(Int(Double(epochs.count) / elapsed)) rotations/s (\(processes) processes x \(each), one conversation, process start included); epochs 1...\(epochs.count) \(consistent ? "consistent" : "INCONSISTENT"), lost 0")
        _ = try directory.removeConversation(conversation)
        _ = try directory.removeConversation(shared)
    }
}

/// A worker process with its standard output on a close-on-exec pipe.
final class Spawned {
    let pid: pid_t
    private let output: Int32
    private var buffer: [UInt8] = []

    init(_ program: String, _ arguments: [String]) throws {
        var pipes: [Int32] = [0, 0]
        guard pipe(&pipes) == 0 else { fail("pipe failed") }
        _ = fcntl(pipes[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipes[1], F_SETFD, FD_CLOEXEC)
        let (child, status) = ProcessSpawner.spawn([program] + arguments, descriptors: [(pipes[1], 1)])
        close(pipes[1])
        guard status == 0 else { fail("cannot start \(program): error \(status)") }
        pid = child
        output = pipes[0]
    }

    deinit { close(output) }

    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                defer { buffer.removeSubrange(...newline) }
                return String(decoding: buffer[..<newline], as: UTF8.self)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }

    func kill() {
        ProcessSpawner.send(SIGKILL, to: pid)
        wait()
    }

    func wait() {
        ProcessSpawner.wait(for: pid)
    }
}

func hex(_ bytes: [UInt8]) -> String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
