import PushSealPlatform

/// The seed of a randomized test, printed and accepted: `PUSHSEAL_TEST_SEED` (decimal, or hex
/// with `0x`) when it is set, otherwise a fresh one. Every randomized test draws from a
/// ``SeededGenerator`` made here, so a failure is reproduced by running it again with the seed
/// its output printed.
public enum TestSeed {
    /// The environment variable that fixes the seed.
    public static let environmentVariable = "PUSHSEAL_TEST_SEED"

    /// The seed from `PUSHSEAL_TEST_SEED`, or a fresh one; printed with `test`'s name.
    public static func seed(for test: String = #function) -> UInt64 {
        let seed: UInt64
        if let text = getenv(environmentVariable).map({ String(cString: $0) }), let given = parse(text) {
            seed = given
        } else {
            var fresh = SystemRandomNumberGenerator()
            seed = fresh.next()
        }
        print("\(test): seed \(seed) (rerun with \(environmentVariable)=\(seed))")
        return seed
    }

    /// A generator seeded with ``seed(for:)``.
    public static func generator(for test: String = #function) -> SeededGenerator {
        SeededGenerator(seed: seed(for: test))
    }

    /// A decimal or `0x` hexadecimal seed; nil for anything else.
    public static func parse(_ text: String) -> UInt64? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }
}

/// SplitMix64: a small, seeded, reproducible generator (tests only).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The seed it started from, for failure messages.
    public let seed: UInt64
    private var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
