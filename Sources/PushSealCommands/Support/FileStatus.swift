import PushSealPlatform

/// What is at a path (following symbolic links), for store diagnostics and `store init`'s report.
enum FileStatus: Equatable {
    /// Nothing there.
    case missing
    /// A regular file with its size and permission bits (`0o777` part of the mode).
    case file(size: Int64, permissions: UInt32)
    /// A directory with its permission bits.
    case directory(permissions: UInt32)
    /// Something else (a socket, a device, …).
    case other
    /// `stat` failed for another reason than ENOENT/ENOTDIR (for example EACCES); the message.
    case inaccessible(String)

    /// `stat(path)`.
    init(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                self = .missing
            } else {
                self = .inaccessible(Errno.message(code))
            }
            return
        }
        let permissions = UInt32(info.st_mode) & 0o777
        switch UInt32(info.st_mode) & UInt32(S_IFMT) {
        case UInt32(S_IFREG): self = .file(size: Int64(info.st_size), permissions: permissions)
        case UInt32(S_IFDIR): self = .directory(permissions: permissions)
        default: self = .other
        }
    }

    /// `0644`-style text for permission bits.
    static func octal(_ permissions: UInt32) -> String {
        let digits = String(permissions, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
