/// Whole reads and writes on an open file descriptor, retrying short transfers and `EINTR`.
package enum FileDescriptor {
    /// Whether reading `descriptor` now would not block (data, end of file or an error is
    /// there): a zero-timeout `poll`.
    package static func isReadable(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    /// Writes all of `bytes` to `descriptor` — at its current position, or with `offset` at that
    /// position of the file (`pwrite`, without any sync) — retrying on short writes and `EINTR`.
    /// `path` only names the target in the error (nil: standard output).
    package static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int64? = nil, path: String? = nil) throws(IOError) {
        var done = 0
        while done < bytes.count {
            let start = bytes.baseAddress! + done, count = bytes.count - done
            let written = if let offset { pwrite(descriptor, start, count, off_t(offset) + off_t(done)) } else { systemWrite(descriptor, start, count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .cannotWrite(path: path, errno: errno)
            }
            done += written
        }
    }

    /// Reads `descriptor` to its end, at most `limit` bytes (more is an error; the descriptor is
    /// never read beyond `limit + 1` bytes). `path` names it in errors (nil: standard input);
    /// `sizeHint` is the expected size, for the first allocation.
    package static func readAll(from descriptor: Int32, path: String?, limit: Int, sizeHint: Int = 0) throws(IOError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(max(sizeHint + 1, 4096), limit + 1))
        let chunkSize = 64 * 1024
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let wanted = min(chunkSize, limit + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EISDIR, let path { throw .isDirectory(path: path) }
                throw .cannotRead(path: path, errno: errno)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { throw .tooLarge(path: path, limit: limit) }
        }
    }
}

/// `read(2)`, for code inside a type with a `read` member (there the unqualified name resolves to
/// the member).
@inline(__always)
package func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// `write(2)`, for code inside a type with a `write` member.
@inline(__always)
func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

/// Positioned whole reads, `flock` and `fstat` identity on an open file descriptor (the
/// duplicate log's file: Docs/KEY-STORE.md §4).
extension FileDescriptor {
    /// Reads up to `buffer.count` bytes at `offset` (`pread`, retrying short reads and `EINTR`);
    /// returns how many were read (fewer only at the end of the file). `path` names the file in
    /// the error.
    package static func read(into buffer: UnsafeMutableRawBufferPointer, from descriptor: Int32, at offset: Int64, path: String) -> Result<Int, IOError> {
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.cannotRead(path: path, errno: errno))
            }
            if count == 0 { break }
            done += count
        }
        return .success(done)
    }

    /// Sets the file's size (`ftruncate`): bytes past it are dropped, a file grown reads as zeros.
    /// `path` names the file in the error.
    package static func setSize(_ descriptor: Int32, to size: Int64, path: String) throws(IOError) {
        while ftruncate(descriptor, off_t(size)) != 0 {
            if errno != EINTR { throw .cannotWrite(path: path, errno: errno) }
        }
    }

    /// The file's size (`fstat`), nil when it cannot be stat'ed.
    package static func size(_ descriptor: Int32) -> Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// Which file the descriptor has open (`fstat`: device and inode), to compare with
    /// ``FileSystem/identity(_:)`` of its path; nil when it cannot be stat'ed.
    package static func identity(_ descriptor: Int32) -> FileSystem.Identity? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return FileSystem.Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// `fsync`: true when the file's data reached the disk.
    package static func sync(_ descriptor: Int32) -> Bool {
        fsync(descriptor) == 0
    }

    /// How a ``lock(_:exclusive:timeoutMilliseconds:)`` ended.
    package enum LockResult: Equatable {
        case locked
        /// Another holder kept a conflicting lock until the timeout.
        case timedOut
        /// `flock` failed with this errno.
        case failed(Int32)
    }

    /// Takes a `flock` lock on the open file (exclusive or shared), waiting for other holders
    /// with non-blocking attempts and short random pauses until `timeoutMilliseconds` pass on the
    /// monotonic clock. `flock` locks belong to the open file description, so two descriptors in
    /// one process exclude each other (POSIX `fcntl` locks would not). Release with
    /// ``unlock(_:)``.
    package static func lock(_ descriptor: Int32, exclusive: Bool, timeoutMilliseconds: Int) -> LockResult {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
        var deadline: UInt64?
        while true {
            if flock(descriptor, operation) == 0 { return .locked }
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else { return .failed(code) }
            let now = MonotonicClock.milliseconds()
            if deadline == nil { deadline = now + UInt64(max(timeoutMilliseconds, 0)) }
            if now >= deadline! { return .timedOut }
            // Locks on this file are held for microseconds (a few reads and writes); a rebuild
            // holds it for milliseconds.
            _ = usleep(50 + UInt32.random(in: 0..<400))
        }
    }

    /// Releases a ``lock(_:exclusive:timeoutMilliseconds:)`` lock.
    package static func unlock(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
    }
}
