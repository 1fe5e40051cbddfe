import PushSealCore
internal import PushSealPlatform

/// The master key file: exactly 32 raw bytes, mode 0600.
enum KeyFile {
    /// Reads the key at `path`; when it does not exist and `create` is set, creates it first.
    /// Every load first removes the key-file temporaries that killed creators left in the key
    /// file's directory (``removeStaleTemporaries(of:)``): those of this file, and those of a new
    /// key file that a killed `store rotate-master` was creating beside it.
    static func load(path: String, create: Bool) throws(KeyDirectoryError) -> SecretKey {
        removeStaleTemporaries(of: path)
        switch read(path: path) {
        case let .success(key):
            return key
        case .missing where create:
            try self.create(path: path)
            switch read(path: path) {
            case let .success(key): return key
            case .missing: throw .locked("master key file \(path) vanished right after it was created")
            case let .failure(error): throw error
            }
        case .missing:
            throw .locked("master key file \(path) does not exist")
        case let .failure(error):
            throw error
        }
    }

    private enum ReadResult {
        case success(SecretKey)
        case missing
        case failure(KeyDirectoryError)
    }

    /// Opens through ``FileSystem/openOwnedRegularFile(_:writable:)`` (no symbolic link as the
    /// last component, Docs/KEY-STORE.md §5; a regular file of the effective user), then checks
    /// no group or other permission bits and 32 bytes.
    private static func read(path: String) -> ReadResult {
        let fd: Int32
        let size: Int64
        let permissions: UInt32
        switch FileSystem.openOwnedRegularFile(path, writable: false) {
        case let .opened(descriptor, fileSize, mode, _):
            (fd, size, permissions) = (descriptor, fileSize, mode & 0o777)
        case .missing:
            return .missing
        case .symbolicLink:
            return .failure(.locked(
                "master key file \(path) is a symbolic link; symbolic links are not followed: give the path of the file itself"))
        case .unopenableType:
            return .failure(.locked("master key file \(path) is not a regular file (a socket or a device without a driver)"))
        case let .openFailed(code):
            return .failure(.locked("cannot open master key file \(path): \(Errno.message(code))"))
        case let .statFailed(code):
            return .failure(.locked("cannot stat master key file \(path): \(Errno.message(code))"))
        case let .notRegularFile(kind):
            return .failure(.locked("master key file \(path) is not a regular file (it is \(kind))"))
        case let .otherOwner(uid):
            return .failure(.locked(
                "master key file \(path) is owned by user \(uid), not by this user (\(geteuid())); a master key file must belong to the user that runs the store"))
        }
        defer { close(fd) }
        guard permissions & 0o077 == 0 else {
            let octal = String(permissions, radix: 8)
            return .failure(.locked(
                "master key file \(path) is accessible by group or others (mode 0\(octal)); it must be 0600 (chmod 600 \(path))"))
        }
        guard Int(size) == MasterKeySource.byteCount else {
            return .failure(.locked("master key file \(path) holds \(size) bytes; it must hold exactly \(MasterKeySource.byteCount)"))
        }
        var failure: KeyDirectoryError?
        let storage = SecureBytes(count: MasterKeySource.byteCount) { buffer in
            var done = 0
            while done < buffer.count {
                let n = systemRead(fd, buffer.baseAddress! + done, buffer.count - done)
                if n > 0 {
                    done += n
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    let why = n == 0 ? "it is shorter than \(buffer.count) bytes" : Errno.message(errno)
                    failure = .locked("cannot read master key file \(path): \(why)")
                    return
                }
            }
        }
        if let failure { return .failure(failure) }
        return .success(SecretKey(storage: storage))
    }

    /// Creates the key file without ever exposing a partially written file: the key goes to a
    /// unique temporary file (O_CREAT|O_EXCL, 0600), is fsynced, and is then hard-linked to
    /// `path`, which fails if `path` exists. When another process wins the race, its key is used.
    /// On file systems without hard links, falls back to O_CREAT|O_EXCL on `path` itself.
    private static func create(path: String) throws(KeyDirectoryError) {
        let directory = FileSystem.directoryName(of: path)
        let temporary = path + temporaryInfix + "\(getpid())-" + Hex.encode(SystemRandom.bytes(count: 8))
        try writeNewKey(to: temporary)
        let linked = link(temporary, path)
        let linkError = errno
        unlink(temporary)
        if linked == 0 {
            FileSystem.syncDirectory(directory)
            return
        }
        if linkError == EEXIST { return }
        // No hard links here (EPERM, ENOTSUP, …): exclusive create of the final name.
        do {
            try writeNewKey(to: path)
            FileSystem.syncDirectory(directory)
        } catch {
            if case .missing = read(path: path) { throw error }
            // Another process created it in between: use that one.
        }
    }

    /// What follows the key file's name in a temporary file's name: `master.key.tmp-PID-RANDOM`.
    static let temporaryInfix = ".tmp-"

    /// Removes the key-file temporaries in the directory of `path` left by processes that no
    /// longer exist (killed between creating their temporary file and unlinking it): any
    /// `NAME.tmp-PID-RANDOM` (RANDOM 16 hex digits, as ``create(path:)`` names them) that is a
    /// regular file of this user holding at most 32 bytes — the temporaries of this key file and
    /// of any other key file created there, such as a killed `store rotate-master`'s new key.
    /// A temporary whose PID is alive — another process creating a key right now, or a reused
    /// PID — is left alone. Best effort.
    static func removeStaleTemporaries(of path: String) {
        let directory = FileSystem.directoryName(of: path)
        for name in FileSystem.entries(of: directory) ?? [] {
            guard let pid = temporaryCreator(name), !ProcessSpawner.processExists(pid) else { continue }
            let candidate = FileSystem.join(directory, name)
            var info = stat()
            guard lstat(candidate, &info) == 0, UInt32(info.st_mode) & 0o170000 == 0o100000,
                  info.st_uid == geteuid(), Int(info.st_size) <= MasterKeySource.byteCount
            else { continue }
            _ = unlink(candidate)
        }
    }

    /// The PID in a key-file temporary's name `NAME.tmp-PID-RANDOM` (RANDOM: 16 hex digits), or
    /// nil when `name` is not one.
    static func temporaryCreator(_ name: String) -> Int32? {
        // Read from the end: RANDOM, "-", PID, then the infix (NAME may itself contain ".tmp-").
        let bytes = Array(name.utf8)
        let infix = Array(temporaryInfix.utf8)
        var end = bytes.count - 16
        guard end > infix.count + 2, Hex.decode(String(decoding: bytes[end...], as: UTF8.self)) != nil,
              bytes[end - 1] == UInt8(ascii: "-")
        else { return nil }
        end -= 1
        var start = end
        while start > 0, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[start - 1]) { start -= 1 }
        guard start < end, start > infix.count, bytes[(start - infix.count)..<start].elementsEqual(infix),
              let pid = Int32(String(decoding: bytes[start..<end], as: UTF8.self)), pid > 0
        else { return nil }
        return pid
    }

    private static func writeNewKey(to path: String) throws(KeyDirectoryError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw .locked("cannot create master key file \(path): \(Errno.message(errno))")
        }
        var failure: Int32?
        if fchmod(fd, 0o600) != 0 { failure = errno }
        let key = SecretKey.random(byteCount: MasterKeySource.byteCount)
        key.withUnsafeBytes { bytes in
            var done = 0
            while failure == nil, done < bytes.count {
                let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n > 0 {
                    done += n
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    failure = n == 0 ? EIO : errno
                }
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = errno }
        close(fd)
        if let failure {
            unlink(path)
            throw .locked("cannot write master key file \(path): \(Errno.message(failure))")
        }
    }
}
