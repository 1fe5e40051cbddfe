/// The package's file-system calls over POSIX, without Foundation: whole-file reads and
/// crash-safe writes, `stat` and file identity, directory creation and listing, paths.
package enum FileSystem {
    // MARK: Reading and writing files

    /// Reads the file at `path`; more than `limit` bytes is an error.
    package static func readFile(at path: String, limit: Int) throws(IOError) -> [UInt8] {
        let descriptor = try openForReading(path)
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .cannotRead(path: path, errno: errno) }
        let isRegular = (info.st_mode & S_IFMT) == S_IFREG
        if isRegular && Int(info.st_size) > limit { throw .tooLarge(path: path, limit: limit) }
        return try FileDescriptor.readAll(from: descriptor, path: path, limit: limit, sizeHint: isRegular ? Int(info.st_size) : 0)
    }

    /// Opens `path` for reading (the caller closes the descriptor); a directory is an error.
    package static func openForReading(_ path: String) throws(IOError) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw .cannotRead(path: path, errno: code)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            throw .isDirectory(path: path)
        }
        return descriptor
    }

    /// Writes `bytes` to `path` so that readers see either the old file or the whole new one,
    /// even across a crash: a temporary file in the same directory, `fsync`, then `rename` (or
    /// `link`, when `replaceExisting` is false, so an existing file is never replaced), then an
    /// `fsync` of the directory. The file gets exactly `permissions` (not reduced by the umask),
    /// so secrets can be written `0600` from the first byte.
    package static func writeFileAtomically(
        _ bytes: some Collection<UInt8>, to path: String, permissions: mode_t = 0o644, replaceExisting: Bool = true
    ) throws(IOError) {
        let directory = directoryName(of: path)
        var template = Array("\(directory)/.\(baseName(of: path)).tmp-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw .cannotWrite(path: path, errno: errno) }
        let temporaryPath = string(fromCString: template)
        var committed = false
        defer { if !committed { unlink(temporaryPath) } }
        func fill() throws(IOError) {
            defer { close(descriptor) }
            guard fchmod(descriptor, permissions) == 0 else { throw .cannotWrite(path: path, errno: errno) }
            let result: Result<Void, IOError> = bytes.withContiguousStorageIfAvailable { buffer in
                Result { () throws(IOError) in try FileDescriptor.write(UnsafeRawBufferPointer(buffer), to: descriptor, path: path) }
            } ?? Array(bytes).withUnsafeBytes { buffer in
                Result { () throws(IOError) in try FileDescriptor.write(buffer, to: descriptor, path: path) }
            }
            try result.get()
            guard fsync(descriptor) == 0 else { throw .cannotWrite(path: path, errno: errno) }
        }
        try fill()
        if replaceExisting {
            guard rename(temporaryPath, path) == 0 else { throw .cannotWrite(path: path, errno: errno) }
            committed = true
        } else {
            guard link(temporaryPath, path) == 0 else {
                if errno == EEXIST { throw .alreadyExists(path: path) }
                throw .cannotWrite(path: path, errno: errno)
            }
            // The new name is in place; dropping the temporary name cannot lose data.
        }
        syncDirectory(directory)
    }

    /// Writes `bytes` to `path` in place: created with `permissions` (reduced by the umask) or
    /// truncated, without `fsync`. For scratch files only; anything a crash must not tear is
    /// written with ``writeFileAtomically(_:to:permissions:replaceExisting:)``.
    package static func writeFile(_ bytes: [UInt8], to path: String, permissions: mode_t = 0o600) throws(IOError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, permissions)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        defer { close(descriptor) }
        let result: Result<Void, IOError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(IOError) in try FileDescriptor.write(buffer, to: descriptor, path: path) }
        }
        try result.get()
    }

    /// Creates an empty file with mode 0600 unless something already exists at `path`.
    /// Returns nil on success or when the file already exists, else the errno.
    package static func createExclusively(_ path: String) -> Int32? {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 {
            let code = errno
            return code == EEXIST ? nil : code
        }
        _ = fchmod(fd, 0o600)
        close(fd)
        return nil
    }

    /// What ``openOwnedRegularFile(_:writable:)`` found.
    package enum OwnedFileOpening {
        /// The descriptor (the caller closes it) and what `fstat` said of it.
        case opened(descriptor: Int32, size: Int64, permissions: UInt32, identity: Identity)
        case missing
        /// The last path component is a symbolic link (never followed).
        case symbolicLink
        /// A socket or a device without a driver (`ENXIO`, `EOPNOTSUPP` at `open`).
        case unopenableType
        /// Opened, but not a regular file: its ``typeName(mode:)``.
        case notRegularFile(kind: String)
        /// Opened, but owned by another user than the effective one.
        case otherOwner(uid: UInt32)
        /// `open` failed with this errno.
        case openFailed(Int32)
        /// `fstat` failed with this errno.
        case statFailed(Int32)
    }

    /// Opens an existing file that must be a regular file of the effective user, the checks of
    /// the store's private files (the master key file, the duplicate log): `O_NOFOLLOW` (a
    /// symbolic link as the last component is refused), `O_NONBLOCK` (a FIFO or device never
    /// blocks the open; nothing is read before the checks), then `fstat` of the opened
    /// descriptor — a regular file owned by `geteuid()`. Read-only, or read-write with
    /// `writable`.
    package static func openOwnedRegularFile(_ path: String, writable: Bool) -> OwnedFileOpening {
        let descriptor = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return .missing }
            if code == ELOOP, case .symbolicLink = linkStatus(path) { return .symbolicLink }
            if code == ENXIO || code == EOPNOTSUPP { return .unopenableType }
            return .openFailed(code)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            return .statFailed(code)
        }
        guard UInt32(info.st_mode) & 0o170000 == 0o100000 else {
            close(descriptor)
            return .notRegularFile(kind: typeName(mode: UInt32(info.st_mode)))
        }
        guard info.st_uid == geteuid() else {
            close(descriptor)
            return .otherOwner(uid: UInt32(info.st_uid))
        }
        return .opened(
            descriptor: descriptor, size: Int64(info.st_size), permissions: UInt32(info.st_mode) & 0o7777,
            identity: Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
    }

    /// Best-effort `fsync` of a directory, so that a new entry or a rename in it survives a crash.
    package static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    // MARK: What is at a path

    /// What `stat` says about a path.
    package enum Status {
        case directory
        case regularFile(size: Int64, mode: UInt32)
        case other
        case missing
        /// `stat` failed with this errno (EACCES, ENOTDIR, ELOOP, …).
        case failed(Int32)
    }

    /// Stats `path`, following symbolic links.
    package static func status(_ path: String) -> Status {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            return code == ENOENT ? .missing : .failed(code)
        }
        switch UInt32(info.st_mode) & 0o170000 {
        case 0o040000: return .directory
        case 0o100000: return .regularFile(size: Int64(info.st_size), mode: UInt32(info.st_mode) & 0o7777)
        default: return .other
        }
    }

    /// Whether something exists at `path` (following symbolic links).
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` is a directory (following symbolic links).
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Which file a path names: its device and inode (following symbolic links). A file
    /// re-created or replaced at the path has another identity while a descriptor of the old one
    /// is open (its inode cannot be reused before it is closed).
    package struct Identity: Equatable {
        package var device: UInt64
        package var inode: UInt64
    }

    /// The identity of the file at `path`, nil when it cannot be stat'ed. Without
    /// `followingSymbolicLinks` (`lstat`), a symbolic link is itself the file named.
    package static func identity(_ path: String, followingSymbolicLinks: Bool = true) -> Identity? {
        var info = stat()
        guard (followingSymbolicLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// What `lstat` says about the last component of a path (symbolic links are not followed).
    package enum LinkStatus {
        case symbolicLink
        case other
    }

    /// `lstat(path)`: whether the path itself is a symbolic link.
    package static func linkStatus(_ path: String) -> LinkStatus {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .other }
        return UInt32(info.st_mode) & 0o170000 == 0o120000 ? .symbolicLink : .other
    }

    /// A file type for messages: "a FIFO", "a directory", … (`mode` is `st_mode`).
    package static func typeName(mode: UInt32) -> String {
        switch mode & 0o170000 {
        case 0o010000: "a FIFO"
        case 0o020000: "a character device"
        case 0o040000: "a directory"
        case 0o060000: "a block device"
        case 0o120000: "a symbolic link"
        case 0o140000: "a socket"
        default: "not a regular file"
        }
    }

    // MARK: Directories

    /// The names in `directory`, without "." and ".."; nil when it cannot be opened.
    package static func entries(of directory: String) -> [String]? {
        guard let handle = opendir(directory) else { return nil }
        defer { closedir(handle) }
        var names: [String] = []
        // The name is read in place, up to its NUL: `entry.pointee.d_name` would copy all 256
        // bytes of the field, but readdir's record is only `d_reclen` bytes long, and past the
        // end of its buffer that copy can fault (AddressSanitizer found it; Foundation had the
        // same bug, swift-corelibs-foundation pull request 5472).
        while let entry = readdir(handle) {
            let name = String(cString: (UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!).assumingMemoryBound(to: CChar.self))
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Creates `path` and its missing parents with `permissions` (default `0700`: key stores are
    /// private), like `mkdir -p`; an existing directory is fine. Returns nil on success, or the
    /// errno and the component that failed (ENOTDIR when a component exists and is not a
    /// directory).
    package static func makeDirectories(_ path: String, permissions: mode_t = 0o700) -> (errno: Int32, path: String)? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += component
            if mkdir(prefix, permissions) != 0 {
                let code = errno
                if code == EEXIST, case .directory = status(prefix) {
                    // Already there (possibly created by another process just now).
                } else {
                    return (code == EEXIST ? ENOTDIR : code, prefix)
                }
            }
            prefix += "/"
        }
        return nil
    }

    /// `makeDirectories` as a thrown error naming the component that could not be created.
    package static func createDirectory(_ path: String, permissions: mode_t = 0o700) throws(IOError) {
        if let failure = makeDirectories(path, permissions: permissions) {
            throw .cannotWrite(path: failure.path, errno: failure.errno)
        }
    }

    /// A new private (`0700`) directory under `$TMPDIR` (or `/tmp`), named `prefix.XXXXXX`.
    package static func makeTemporaryDirectory(prefix: String) throws(IOError) -> String {
        let base = Environment.value("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base.hasSuffix("/") ? String(base.dropLast()) : base)/\(prefix).XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw .cannotWrite(path: base, errno: errno)
        }
        return string(fromCString: template)
    }

    /// Removes `path` if it is an empty directory (best effort).
    package static func removeEmptyDirectory(_ path: String) {
        _ = rmdir(path)
    }

    /// Removes `path` recursively without following symbolic links (a link is removed, never
    /// its target). Returns false when something could not be removed; a missing path is fine.
    @discardableResult
    package static func removeTree(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return unlink(path) == 0 }
        var removedAll = true
        for name in entries(of: path) ?? [] where !removeTree(path + "/" + name) {
            removedAll = false
        }
        return rmdir(path) == 0 && removedAll
    }

    // MARK: Paths

    /// The directory part of `path` (`.` for a bare name, `/` for a top-level entry; trailing
    /// slashes are ignored).
    package static func directoryName(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let directory = trimmed[..<slash]
        return directory.isEmpty ? "/" : String(directory)
    }

    /// The last component of `path` (trailing slashes are ignored).
    package static func baseName(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// `directory/name`, without doubling a trailing slash.
    package static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The string in a NUL-terminated C buffer.
    static func string(fromCString buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The current directory (`getcwd`), nil when it cannot be read.
    static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return string(fromCString: buffer)
    }
}
