internal import PushSealPlatform

/// Buffered CSPRNG output for values that are public and only need to be unique and
/// unpredictable before use: the per-notification salts, drawn through ``drawSalt(into:)``.
///
/// libsodium 1.0.18's `randombytes_buf` makes one `getrandom` system call per request (about
/// 0.3 µs here — a third of the AEAD of a 768-byte body). This pool fills one page per thread
/// with a single `randombytes_buf` call and hands it out in order, each byte once, so one system
/// call serves about 170 salts.
///
/// - Thread safety: every thread has its own pool (a pthread key; freed when the thread exits).
///   Nothing is shared, nothing is locked.
/// - Fork safety: the page is marked `MADV_WIPEONFORK`, so a child process created with `fork`
///   sees it zeroed — and a zero fill level means "empty": the child's first draw refills from
///   the kernel, and parent and child never hand out the same bytes. (This holds for any way
///   of forking, including a raw `fork` system call that skips `pthread_atfork` handlers.)
///   Where `MADV_WIPEONFORK` is unavailable (Linux before 4.14) — and on Apple platforms, whose
///   `randombytes_buf` is the user-space, fork-safe `arc4random_buf` anyway — every draw calls
///   `randombytes_buf` directly.
/// - Not for secrets: keys come from `randombytes_buf` directly (``SecretKey/random(byteCount:)``).
///   Buffered bytes are future salts, which are public once used; the used bytes are wiped.
/// - Snapshots (salt hedging, Docs/SPEC.md §7.4): a virtual machine snapshot restored more
///   than once replays this page — and possibly the kernel's generator — in every copy. So a
///   salt is not the pool bytes themselves: ``drawSalt(into:)`` XORs its first 16 bytes with
///   this thread's draw counter and the `CLOCK_REALTIME` nanoseconds read for that salt. Two
///   copies that replay the same pool bytes make different salts unless they read the same
///   nanosecond; what remains is a clock that was restored too *and* read at the same
///   nanosecond in both copies (Docs/THREAT-MODEL.md).
package enum RandomPool {
    /// Bytes in one pool page (header included).
    static let pageByteCount = 4_096
    /// Random bytes per page: everything after the 16-byte header.
    static let capacity = pageByteCount - 16
    /// Requests larger than this bypass the pool.
    static let largestBufferedRequest = 256

    /// Fills `buffer` with CSPRNG bytes, from this thread's pool when possible.
    @inline(__always)
    package static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        _ = draw(buffer)
    }

    /// Fills `salt` (``Envelope/saltByteCount`` bytes) with a fresh salt: pool bytes whose
    /// first 16 bytes are XORed with `counter || t` (little-endian `UInt64`s), where `counter`
    /// counts this thread's pool draws (0 without a pool) and `t` is `CLOCK_REALTIME` in
    /// nanoseconds, read for this salt.
    ///
    /// The XOR keeps a salt exactly as uniform as the pool bytes, and it is injective in
    /// `counter || t`: two salts made from the same pool bytes (a replayed snapshot) differ
    /// whenever their counters or clock readings differ. One clock suffices: the realtime
    /// clock is the monotonic clock plus the wall-clock offset, so two copies whose monotonic
    /// readings differ read different realtime too, and a copy whose wall clock is reset after
    /// the restore differs further. A keyed hash (HMAC-SHA256 under K over the pool bytes,
    /// counter and clock) would also hedge a generator that is *broken* rather than replayed,
    /// but costs two SHA-256 compressions — 0.64–0.72× the whole AEAD of a 768-byte body
    /// with libsodium 1.0.18 here: `seal.apns.512` fell to 0.83× its speed (0.357 → ~0.30
    /// against the 0.33 target), where this XOR, one clock read, costs ~2.6 % (paired runs,
    /// Docs/PERFORMANCE.md §11).
    @inline(__always)
    package static func drawSalt(into salt: UnsafeMutableRawBufferPointer) {
        precondition(salt.count == Envelope.saltByteCount)
        let counter = draw(salt)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = UInt64(bitPattern: Int64(now.tv_sec)) &* 1_000_000_000 &+ UInt64(bitPattern: Int64(now.tv_nsec))
        let base = salt.baseAddress!
        base.storeBytes(of: base.loadUnaligned(as: UInt64.self) ^ counter.littleEndian, as: UInt64.self)
        (base + 8).storeBytes(of: (base + 8).loadUnaligned(as: UInt64.self) ^ nanoseconds.littleEndian, as: UInt64.self)
    }

    /// Fills `buffer` and returns this thread's draw counter after the draw (0 when the bytes
    /// came from the system directly).
    @inline(__always)
    private static func draw(_ buffer: UnsafeMutableRawBufferPointer) -> UInt64 {
        guard buffer.count > 0 else { return 0 }
        guard buffer.count <= largestBufferedRequest, let page = currentPage() else {
            SystemRandom.fill(buffer)
            return 0
        }
        // Header: the number of unused bytes, which sit at the end of the page (a page wiped
        // by fork reads as 0: empty), then the draw counter.
        var remaining = page.load(as: Int.self)
        if remaining < buffer.count {
            SystemRandom.fill(UnsafeMutableRawBufferPointer(start: page + 16, count: capacity))
            remaining = capacity
        }
        let start = page + (pageByteCount - remaining)
        buffer.baseAddress!.copyMemory(from: start, byteCount: buffer.count)
        memset(start, 0, buffer.count)
        page.storeBytes(of: remaining - buffer.count, as: Int.self)
        let counter = (page + 8).load(as: UInt64.self) &+ 1
        (page + 8).storeBytes(of: counter, as: UInt64.self)
        return counter
    }

    /// Test hook simulating a snapshot: this thread's page as it is now (fill level, counter,
    /// unused bytes), or nil without a pool.
    package static func pageStateForTesting() -> [UInt8]? {
        guard let page = currentPage() else { return nil }
        return Array(UnsafeRawBufferPointer(start: page, count: pageByteCount))
    }

    /// Test hook simulating the restore of a snapshot: puts back a page taken by
    /// ``pageStateForTesting()`` on this thread, so the pool hands out the same bytes again.
    package static func restorePageForTesting(_ state: [UInt8]) {
        guard let page = currentPage(), state.count == pageByteCount else { return }
        state.withUnsafeBytes { page.copyMemory(from: $0.baseAddress!, byteCount: pageByteCount) }
    }

    #if os(Linux)
    /// The thread-specific slot: nil until a thread first draws, then its page (or
    /// ``unsupported`` when the page could not be made fork-safe).
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { page in
            guard let page, page != RandomPool.unsupported else { return }
            memset(page, 0, RandomPool.pageByteCount)
            munmap(page, RandomPool.pageByteCount)
        }
        return status == 0 ? key : nil
    }()

    /// Marks a thread whose page could not be set up (never dereferenced).
    nonisolated(unsafe) private static let unsupported = UnsafeMutableRawPointer(bitPattern: 1)!

    /// This thread's page, or nil when pooling is unavailable.
    @inline(__always)
    private static func currentPage() -> UnsafeMutableRawPointer? {
        guard let key else { return nil }
        if let page = pthread_getspecific(key) {
            return page == unsupported ? nil : page
        }
        return makePage(key)
    }

    private static func makePage(_ key: pthread_key_t) -> UnsafeMutableRawPointer? {
        let mapped = mmap(nil, pageByteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let page = mapped, page != UnsafeMutableRawPointer(bitPattern: -1) else {
            pthread_setspecific(key, unsupported)
            return nil
        }
        // The fresh mapping is zero: an empty pool. Without wipe-on-fork there is no pool.
        guard madvise(page, pageByteCount, MADV_WIPEONFORK) == 0 else {
            munmap(page, pageByteCount)
            pthread_setspecific(key, unsupported)
            return nil
        }
        pthread_setspecific(key, page)
        return page
    }
    #else
    @inline(__always)
    private static func currentPage() -> UnsafeMutableRawPointer? { nil }
    #endif
}
