internal import PushSealPlatform

/// Hedged randomness for secrets and at-rest salts (SPEC §7.4): conversation keys, X25519
/// private keys (HPKE ephemeral keys, device and provider keys, through ``SecretKey/random(byteCount:)``)
/// and the store's at-rest salts.
///
/// The output is `HMAC-SHA256(seed, "pushseal v1 hedged random" || label || counter || t || pid
/// || block)`, block by block, where `seed` is 32 fresh CSPRNG bytes (wiped after use), `counter`
/// a process-wide draw counter, `t` `CLOCK_REALTIME` in nanoseconds and `pid` the process id.
/// With a good generator the seed is a uniform HMAC key, so the output is a PRF output: as
/// uniform as the generator's. When the generator replays — a virtual machine snapshot restored
/// twice, a forked child whose user-space generator was copied — the seed repeats but the
/// message does not (another nanosecond, counter or process), so two copies do not produce the
/// same conversation key, ephemeral key or salt. Unlike a notification salt (one XOR, SPEC §7.4),
/// these draws are rare, so the two HMAC compressions cost nothing measurable.
package enum HedgedRandom {
    private static let lock = Lock()
    nonisolated(unsafe) private static var counter: UInt64 = 0
    static let prefix: [UInt8] = Array("pushseal v1 hedged random".utf8)

    /// The generator's output for the current task; nil means the system CSPRNG. Tests bind it to
    /// a closure that replays the same bytes, to see the outputs differ anyway.
    @TaskLocal package static var entropyForTesting: (@Sendable (UnsafeMutableRawBufferPointer) -> Void)?

    /// Fills `output` with hedged random bytes for the purpose named by `label`.
    package static func fill(_ output: UnsafeMutableRawBufferPointer, label: StaticString) {
        guard let base = output.baseAddress, output.count > 0 else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: HMACSHA256.byteCount * 2) { scratch in
            let seed = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(scratch)[0..<HMACSHA256.byteCount])
            let block = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(scratch)[HMACSHA256.byteCount...])
            defer { SecureMemory.wipe(UnsafeMutableRawBufferPointer(scratch)) }
            if let entropy = entropyForTesting { entropy(seed) } else { SystemRandom.fill(seed) }
            let draw = lock.withLock { () -> UInt64 in
                counter &+= 1
                return counter
            }
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let nanoseconds = UInt64(bitPattern: Int64(now.tv_sec)) &* 1_000_000_000 &+ UInt64(bitPattern: Int64(now.tv_nsec))
            var context: [UInt8] = prefix
            label.withUTF8Buffer { context += $0 }
            for value in [draw, nanoseconds, UInt64(UInt32(bitPattern: getpid()))] {
                withUnsafeBytes(of: value.bigEndian) { context += $0 }
            }
            let keyed = KeyedHMAC(key: UnsafeRawBufferPointer(seed))
            var produced = 0
            var index: UInt32 = 0
            while produced < output.count {
                var state = keyed.start()
                context.withUnsafeBytes { state.update($0) }
                withUnsafeBytes(of: index.bigEndian) { state.update($0) }
                state.finalize(into: block.baseAddress!.assumingMemoryBound(to: UInt8.self))
                let take = min(HMACSHA256.byteCount, output.count - produced)
                (base + produced).copyMemory(from: block.baseAddress!, byteCount: take)
                produced += take
                index &+= 1
            }
        }
    }

    /// `count` hedged random bytes (public values: at-rest salts).
    package static func bytes(count: Int, label: StaticString) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer), label: label)
            initialized = count
        }
    }
}
