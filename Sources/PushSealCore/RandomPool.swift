#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered CSPRNG output for values that are public and only need to be unique and
/// unpredictable before use: the per-notification salts.
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
/// - Limitation shared by every user-space random buffer: a virtual machine snapshot that is
///   restored more than once would hand out the same buffered salts in each copy (at most one
///   page per thread). Deployments that clone running VMs from snapshots should seal in a fresh
///   process after each restore.
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
        guard buffer.count > 0 else { return }
        guard buffer.count <= largestBufferedRequest, let page = currentPage() else {
            SystemRandom.fill(buffer)
            return
        }
        // Header: the number of unused bytes, which sit at the end of the page. A page wiped by
        // fork reads as 0: empty.
        var remaining = page.load(as: Int.self)
        if remaining < buffer.count {
            SystemRandom.fill(UnsafeMutableRawBufferPointer(start: page + 16, count: capacity))
            remaining = capacity
        }
        let start = page + (pageByteCount - remaining)
        buffer.baseAddress!.copyMemory(from: start, byteCount: buffer.count)
        memset(start, 0, buffer.count)
        page.storeBytes(of: remaining - buffer.count, as: Int.self)
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
