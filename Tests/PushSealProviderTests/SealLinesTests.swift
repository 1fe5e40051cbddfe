import Testing
import PushSealCore
import PushSealJSON
import PushSealProvider

/// A stream in memory, read in pieces of at most `piece` bytes (as from a pipe), counting reads.
final class MemoryStream: @unchecked Sendable {
    private let bytes: [UInt8]
    private let piece: Int
    private var offset = 0

    init(_ bytes: [UInt8], piece: Int = 7_000) {
        self.bytes = bytes
        self.piece = piece
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, piece, bytes.count - offset)
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
        offset += count
        return count
    }

    func reader(maximumLine: Int) -> JSONLineReader<Never> {
        JSONLineReader(maximumLineByteCount: maximumLine) { self.read(into: $0) }
    }
}

/// Bounded-memory line reading (issue 16, defect 2; moved from the CLI with the reader).
@Suite struct JSONLineReaderTests {
    private func all(_ reader: JSONLineReader<Never>, count: Int = 3, bytes: Int = 1 << 20) -> [[JSONLine]] {
        var groups: [[JSONLine]] = []
        while let lines = reader.nextLines(maximumCount: count, maximumByteCount: bytes) { groups.append(lines) }
        return groups
    }

    @Test func linesComeInOrderInBoundedGroups() {
        let input = Array("a\n\nbb\nccc\ndddd".utf8)
        let groups = all(MemoryStream(input).reader(maximumLine: 100), count: 2)
        #expect(groups.joined().map { $0 } == [
            .complete(Array("a".utf8)), .complete([]), .complete(Array("bb".utf8)), .complete(Array("ccc".utf8)),
            .complete(Array("dddd".utf8)),
        ])
        #expect(groups.allSatisfy { $0.count <= 2 })
        #expect(all(MemoryStream([]).reader(maximumLine: 10)).isEmpty)
    }

    @Test func tooLongLinesAreCountedNotKept() {
        let long = [UInt8](repeating: 0x61, count: 300_000)
        let input = Array("ok\n".utf8) + long + [0x0A] + Array("x\n".utf8) + long
        let reader = MemoryStream(input).reader(maximumLine: 1000)
        var lines: [JSONLine] = []
        var largestHeld = 0
        while let group = reader.nextLines(maximumCount: 1, maximumByteCount: .max) {
            lines += group
            largestHeld = max(largestHeld, reader.bufferedByteCount)
        }
        #expect(lines == [.complete(Array("ok".utf8)), .tooLong(byteCount: 300_000), .complete(Array("x".utf8)), .tooLong(byteCount: 300_000)])
        #expect(largestHeld <= 1000 + JSONLineReader<Never>.readSize)
    }
}

/// `NotificationSealer.seal(lines:…)`: the streaming JSON-lines sealer.
@Suite struct SealLinesTests {
    static let key = testKey(3)
    static let options = APNsOptions(placeholder: .text(title: nil, body: "New message"))

    static func contentLine(_ mid: String, cid: String = "c1") -> String {
        #"{"cid":"\#(cid)","mid":"\#(mid)","ts":1700000000,"body":"hello \#(mid)"}"#
    }

    /// Seals `input` and returns every outcome, and the groups' sizes.
    static func seal(_ input: String, maximumLine: Int = SealRequestLine.maximumByteCount, limits: SealLineLimits = SealLineLimits())
        -> (outcomes: [SealLineOutcome<APNsRequest>], groups: [Int], count: Int)
    {
        let sealer = try! NotificationSealer(padBlock: 64)
        var outcomes: [SealLineOutcome<APNsRequest>] = []
        var groups: [Int] = []
        let count = sealer.seal(lines: MemoryStream(Array(input.utf8)).reader(maximumLine: maximumLine), limits: limits, item: { request in
            BatchItem(content: request.content, key: request.key ?? Self.key, options: Self.options)
        }, outcomes: { group in
            groups.append(group.count)
            outcomes += group
        })
        return (outcomes, groups, count)
    }

    @Test func oneOutcomePerLineInOrder() throws {
        let mids = (0..<600).map { "m\($0)" }
        let (outcomes, groups, count) = Self.seal(mids.map { Self.contentLine($0) }.joined(separator: "\n") + "\n")
        #expect(count == 600)
        #expect(outcomes.count == 600)
        #expect(outcomes.map(\.line) == Array(1...600))
        #expect(groups.allSatisfy { $0 <= 256 })
        for (outcome, mid) in zip(outcomes, mids) {
            let request = try outcome.result.get()
            let object = try JSONParser.parse(request.body).objectValue
            let wire = try #require(object?[PayloadMember.sealed]?.stringValue)
            let content = try NotificationContent(decoding: try Envelope(wire: wire).open(with: Self.key))
            #expect(content.messageID == mid)
        }
    }

    @Test func aMalformedLineFailsOnlyItself() throws {
        let input = [Self.contentLine("a"), "{not json", Self.contentLine("b"), #"{"cid":"c1"}"#, "", Self.contentLine("c")].joined(separator: "\n")
        let (outcomes, _, count) = Self.seal(input)
        #expect(count == 6)
        #expect(outcomes.map(\.isFailure) == [false, true, false, true, true, false])
        guard case .failure(.invalidContent)? = outcomes.dropFirst().first?.result else {
            Issue.record("line 2: \(String(describing: outcomes.dropFirst().first))")
            return
        }
        #expect(outcomes.map(\.line) == [1, 2, 3, 4, 5, 6])
    }

    @Test func anItemErrorFailsOnlyItsLine() {
        let sealer = try! NotificationSealer(padBlock: 64)
        var outcomes: [SealLineOutcome<APNsRequest>] = []
        let input = [Self.contentLine("a", cid: "c1"), Self.contentLine("b", cid: "other"), Self.contentLine("c", cid: "c1")].joined(separator: "\n")
        _ = sealer.seal(lines: MemoryStream(Array(input.utf8)).reader(maximumLine: 1000), item: { (request) throws(ProviderError) in
            guard request.content.conversationID == "c1" else { throw .invalidOption(field: "cid", detail: "not c1") }
            return BatchItem(content: request.content, key: Self.key, options: Self.options)
        }, outcomes: { outcomes += $0 })
        #expect(outcomes.map(\.isFailure) == [false, true, false])
        guard case .failure(.invalidOption(field: "cid", _))? = outcomes.dropFirst().first?.result else {
            Issue.record("line 2: \(String(describing: outcomes.dropFirst().first))")
            return
        }
    }

    @Test func anOverlongLineIsRefusedWithoutBeingHeld() {
        let long = #"{"cid":"c1","mid":"m","ts":1700000000,"body":""# + String(repeating: "x", count: 200_000) + #""}"#
        let input = [Self.contentLine("a"), long, Self.contentLine("b")].joined(separator: "\n")
        let (outcomes, _, count) = Self.seal(input, maximumLine: 4096)
        #expect(count == 3)
        #expect(outcomes.map(\.isFailure) == [false, true, false])
        guard case let .failure(error)? = outcomes.dropFirst().first?.result else {
            Issue.record("line 2 sealed")
            return
        }
        #expect(error == .invalidOption(field: "line", detail: "is \(long.utf8.count) bytes, more than the 4 KiB a batch line may have"))
    }

    @Test func groupsRespectTheLimits() {
        let input = (0..<10).map { Self.contentLine("m\($0)") }.joined(separator: "\n")
        let (outcomes, groups, _) = Self.seal(input, limits: SealLineLimits(lines: 3))
        #expect(outcomes.count == 10)
        #expect(groups.allSatisfy { $0 <= 3 })
        #expect(groups.reduce(0, +) == 10)
    }

    @Test func anEmptyStreamHasNoLines() {
        let (outcomes, groups, count) = Self.seal("")
        #expect(count == 0)
        #expect(outcomes.isEmpty)
        #expect(groups.isEmpty)
    }
}
