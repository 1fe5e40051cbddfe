#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file-system calls the key stores and key files need, without Foundation
/// (package access: the SQLite store uses them too, as `FileSystem`).
package enum StoreFileSystem {
    /// What `stat` says about a path.
    package enum Status {
        case directory
        case regularFile(size: Int64, mode: UInt32)
        case other
        case missing
        /// `stat` failed with this errno (EACCES, ENOTDIR, ELOOP, …).
        case failed(Int32)
    }

    /// The calling thread's `errno`.
    package static var lastError: Int32 { errno }

    /// `strerror(code)` as a Swift string.
    package static func describe(_ code: Int32) -> String {
        guard let message = strerror(code) else { return "error \(code)" }
        return String(cString: message)
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

    /// Which file `path` names (device and inode, following symbolic links); nil when `stat`
    /// fails. A file re-created or replaced at `path` has another identity while a connection to
    /// the old one is open (its inode cannot be reused before it is closed).
    package struct Identity: Equatable {
        package var device: UInt64
        package var inode: UInt64
    }

    /// The identity of the file at `path`, nil when it cannot be stat'ed.
    package static func identity(_ path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
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

    /// The names in `directory` (without "." and ".."); empty when it cannot be read.
    package static func entries(of directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
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

    /// Whether a process with id `pid` exists (`kill(pid, 0)`; EPERM means it exists).
    package static func processExists(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// The last component of `path`.
    package static func baseName(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// Creates `path` and its missing parents with mode 0700 (like `mkdir -p`).
    /// Returns nil on success, or the errno and the component that failed.
    package static func makeDirectories(_ path: String) -> (errno: Int32, path: String)? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += component
            if mkdir(prefix, 0o700) != 0 {
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

    /// Removes `path` if it is an empty directory (best effort).
    package static func removeEmptyDirectory(_ path: String) {
        _ = rmdir(path)
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

    /// fsyncs a directory so that a new entry in it is durable. Best effort.
    package static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// The directory part of `path` ("." when there is none).
    package static func directoryName(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// `directory/name`, without doubling a trailing slash.
    package static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// Sleeps for `microseconds`.
    package static func sleep(microseconds: UInt32) {
        _ = usleep(microseconds)
    }
}

/// The store's name for its file-system calls.
typealias FileSystem = StoreFileSystem
