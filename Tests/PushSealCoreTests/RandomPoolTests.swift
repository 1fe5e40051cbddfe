@testable import PushSealCore
import Testing
import PushSealPlatform

@Suite struct RandomPoolTests {
    static func draw(_ count: Int = 24) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { RandomPool.fill($0) }
        return bytes
    }

    @Test func drawsAreDistinctAcrossManyRefills() {
        // 2,000 salts span a dozen refills of the 4 KiB page.
        var seen = Set<[UInt8]>()
        for _ in 0..<2_000 { seen.insert(Self.draw()) }
        #expect(seen.count == 2_000)
    }

    @Test func oddSizesAndLargeRequestsAreFilled() {
        for count in [1, 7, 24, 255, 256, 257, 4_096, 10_000] {
            let bytes = Self.draw(count)
            #expect(bytes.count == count)
            if count >= 16 { #expect(bytes.contains { $0 != 0 }, "\(count) bytes") }
        }
        // Empty requests are fine.
        [UInt8]().withUnsafeBytes { _ in }
        var empty: [UInt8] = []
        empty.withUnsafeMutableBytes { RandomPool.fill($0) }
    }

    @Test func threadsNeverShareBytes() async {
        let results = await withTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<8 { group.addTask { (0..<300).map { _ in RandomPoolTests.draw() } } }
            var all: [[UInt8]] = []
            for await part in group { all += part }
            return all
        }
        #expect(Set(results).count == results.count)
    }

    static func salt() -> [UInt8] {
        var salt = [UInt8](repeating: 0, count: Envelope.saltByteCount)
        salt.withUnsafeMutableBytes { RandomPool.drawSalt(into: $0) }
        return salt
    }

    @Test func saltsFromAReplayedPoolDiffer() throws {
        _ = Self.salt()   // the pool of this thread is now filled
        let snapshot = try #require(RandomPool.pageStateForTesting())
        let raw = Self.draw()
        RandomPool.restorePageForTesting(snapshot)
        #expect(Self.draw() == raw)   // the hook replays the bytes (and the draw counter)
        var salts: [[UInt8]] = []
        for _ in 0..<100 {
            RandomPool.restorePageForTesting(snapshot)
            salts.append(Self.salt())
        }
        // Every replay made the same pool bytes into a different salt: the clock differs.
        #expect(Set(salts).count == salts.count)
        #expect(salts.allSatisfy { $0[16...] == raw[16...] })
    }

    @Test func saltsLookUniformlyRandom() {
        let salts = (0..<4_096).map { _ in Self.salt() }
        #expect(Set(salts).count == salts.count)
        for position in 0..<Envelope.saltByteCount {
            // No fixed or skewed byte: all 256 values occur (each is missed with p ≈ e^-16) and
            // every bit is set in 45–55 % of the salts (±6 standard deviations).
            #expect(Set(salts.map { $0[position] }).count == 256, "byte \(position)")
            for bit in 0..<8 {
                let ones = salts.count(where: { $0[position] >> bit & 1 == 1 })
                #expect((1_843...2_253).contains(ones), "byte \(position) bit \(bit): \(ones) of 4096")
            }
        }
    }

    #if os(Linux)
    /// A forked child must not hand out the bytes its parent is about to hand out.
    @Test func aForkedChildDrawsOtherBytesThanItsParent() throws {
        _ = Self.draw()   // the pool of this thread is now filled
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let pid = fork()
        if pid == 0 {
            var salt = [UInt8](repeating: 0, count: 24)
            salt.withUnsafeMutableBytes { RandomPool.fill($0) }
            _ = salt.withUnsafeBytes { write(fds[1], $0.baseAddress, 24) }
            _exit(0)
        }
        #expect(pid > 0)
        close(fds[1])
        let parent = Self.draw()
        var child = [UInt8](repeating: 0, count: 24)
        let count = child.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, 24) }
        close(fds[0])
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(count == 24)
        #expect(child != parent)
        #expect(child.contains { $0 != 0 })
    }
    #endif
}
