import PushSealCore
import PushSealProvider
import PushSealPlatform

/// The cold-process figures: `pushseal open` spawned as a fresh process per notification (what
/// an iOS extension launch costs), interleaved with spawns of `/bin/true` as the baseline.
final class ColdProcess {
    /// One spawned command and its samples.
    final class Series {
        let name: String
        let contentBytes: Int
        let paddedBytes: Int
        let payloadBytes: Int
        var results: [SpawnResult] = []

        init(name: String, contentBytes: Int, paddedBytes: Int, payloadBytes: Int) {
            self.name = name
            self.contentBytes = contentBytes
            self.paddedBytes = paddedBytes
            self.payloadBytes = payloadBytes
        }
    }

    static let baselineName = "process.true"
    static let baselineExecutable = "/bin/true"
    /// Content of the ~4 KB payload: with the default pad block it is padded to the largest
    /// envelope that still fits APNs' 4096 bytes.
    static let largeContentBytes = 2_900

    let executable: String
    let fixture: StoreFixture
    private let spawner: SpawnClient
    /// "store" (`open --store`), or "key" when this build does not have `open --store` yet.
    private(set) var keySource = "store"
    let baseline: Series
    let open: Series
    let openLarge: Series
    private let payloadPath: String
    private let errorPath: String
    private let keyFilePath: String

    init(executable: String, helper: String, fixture: StoreFixture, contentBytes: Int) throws(BenchError) {
        self.executable = executable
        spawner = try SpawnClient(executable: helper)
        self.fixture = fixture
        payloadPath = fixture.directory + "/payload.json"
        errorPath = fixture.directory + "/stderr.txt"
        keyFilePath = fixture.directory + "/probe.key"
        let padded = Fixtures.paddedByteCount(contentByteCount: contentBytes)
        let sample = fixture.nextPayload(contentBytes: contentBytes)
        let large = Self.largePayload(fixture)
        baseline = Series(name: Self.baselineName, contentBytes: contentBytes, paddedBytes: padded, payloadBytes: sample.count)
        open = Series(name: "process.open.\(contentBytes)", contentBytes: contentBytes, paddedBytes: padded, payloadBytes: sample.count)
        openLarge = Series(
            name: "process.open.4k", contentBytes: Self.largeContentBytes, paddedBytes: large.sizes.paddedByteCount,
            payloadBytes: large.body.count)
        let keyText = fixture.probeKey.withUnsafeBytes { Base64URL.encode($0) }
        try? FileSystem.writeFile(Array((keyText + "\n").utf8), to: keyFilePath)
        try checkCommand()
    }

    /// The padded size of the large payload, computed without spawning.
    static func largePaddedByteCount() -> Int {
        let key = ConversationKey.generate()
        let content = Fixtures.content(byteCount: largeContentBytes)
        return try! NotificationSealer().seal(content, with: key, options: Fixtures.apnsOptions).sizes.paddedByteCount
    }

    private static func largePayload(_ fixture: StoreFixture) -> APNsRequest {
        let content = Fixtures.content(byteCount: largeContentBytes, conversation: fixture.probeConversation, message: 0)
        return try! NotificationSealer().seal(content, with: fixture.probeKey, options: Fixtures.apnsOptions)
    }

    private var openArguments: [String] {
        let now = ["--now", String(Fixtures.sentAt)]
        if keySource == "store" {
            return ["open", "--store", fixture.directory, "--master-key-file", fixture.masterKeyPath] + now
        }
        return ["open", "--key-file", keyFilePath, "--conversation", fixture.probeConversation] + now
    }

    /// Runs `open` once; falls back to `--key` when `--store` is not wired in this build.
    private func checkCommand() throws(BenchError) {
        try? FileSystem.writeFile(fixture.nextPayload(contentBytes: open.contentBytes), to: payloadPath)
        guard let first = spawner.run(executable, arguments: openArguments, standardInput: payloadPath, standardError: errorPath) else {
            throw BenchError("cannot spawn \(executable)")
        }
        if first.status == 0 { return }
        let message = String(decoding: (try? FileSystem.readFile(at: errorPath, limit: 1 << 26)) ?? [], as: UTF8.self)
        if message.contains("not wired") {
            keySource = "key"
            if spawner.run(executable, arguments: openArguments, standardInput: payloadPath, standardError: errorPath)?.status == 0 {
                return
            }
        }
        let detail = String(decoding: (try? FileSystem.readFile(at: errorPath, limit: 1 << 26)) ?? [], as: UTF8.self)
        throw BenchError("'\(executable) \(openArguments.joined(separator: " "))' failed (exit \(first.status)): \(detail)")
    }

    /// `count` spawns of each series, interleaved; every `open` gets a new message.
    func round(count: Int) throws(BenchError) {
        for _ in 0..<count {
            try spawn(baseline, Self.baselineExecutable, [])
            try? FileSystem.writeFile(fixture.nextPayload(contentBytes: open.contentBytes), to: payloadPath)
            try spawn(open, executable, openArguments)
            let content = Fixtures.content(byteCount: Self.largeContentBytes, conversation: fixture.probeConversation, message: nextLarge())
            try? FileSystem.writeFile(Fixtures.payload(content, key: fixture.probeKey), to: payloadPath)
            try spawn(openLarge, executable, openArguments)
        }
    }

    private var largeMessages = 1_000_000_000
    private func nextLarge() -> Int {
        largeMessages += 1
        return largeMessages
    }

    private func spawn(_ series: Series, _ path: String, _ arguments: [String]) throws(BenchError) {
        guard let result = spawner.run(path, arguments: arguments, standardInput: payloadPath, standardError: errorPath) else {
            throw BenchError("cannot spawn \(path)")
        }
        guard result.status == 0 else {
            let detail = String(decoding: (try? FileSystem.readFile(at: errorPath, limit: 1 << 26)) ?? [], as: UTF8.self)
            throw BenchError("'\(path) \(arguments.joined(separator: " "))' exited with \(result.status): \(detail)")
        }
        series.results.append(result)
    }
}
