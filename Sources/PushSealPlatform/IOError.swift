/// A failed file or stream operation, worded for a person: what could not be done, to which
/// file, and the system's reason.
package enum IOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `open(2)` failed.
    case cannotOpen(path: String, errno: Int32)
    /// `read(2)` or `fstat(2)` failed; path nil means standard input.
    case cannotRead(path: String?, errno: Int32)
    /// Writing, syncing or creating failed; path nil means standard output.
    case cannotWrite(path: String?, errno: Int32)
    /// The path names a directory where a file was expected.
    case isDirectory(path: String)
    /// The input is larger than the limit; path nil means standard input.
    case tooLarge(path: String?, limit: Int)
    /// The destination exists and the write was asked not to replace it.
    case alreadyExists(path: String)

    /// `'path'`, or the stream's name.
    static func name(_ path: String?, stream: String) -> String {
        path.map { "'\($0)'" } ?? stream
    }

    /// Human-readable sizes: `16 MiB`, `4096 bytes`.
    package static func formatSize(_ bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    package var description: String {
        switch self {
        case let .cannotOpen(path, code): "cannot open '\(path)': \(Errno.message(code))"
        case let .cannotRead(path, code): "cannot read \(Self.name(path, stream: "standard input")): \(Errno.message(code))"
        case let .cannotWrite(path, code): "cannot write \(Self.name(path, stream: "standard output")): \(Errno.message(code))"
        case let .isDirectory(path): "'\(path)' is a directory, not a file"
        case let .tooLarge(path, limit): "\(Self.name(path, stream: "standard input")) is larger than \(Self.formatSize(limit))"
        case let .alreadyExists(path): "'\(path)' already exists"
        }
    }

    /// Actionable next steps, when there is an obvious one.
    package var hints: [String] {
        switch self {
        case let .cannotOpen(path, code) where code == ENOENT && !path.hasPrefix("/"):
            ["relative paths are resolved from the current directory, \(FileSystem.currentDirectory() ?? "?")"]
        case let .cannotOpen(_, code) where code == EACCES, let .cannotWrite(_, code) where code == EACCES:
            ["check the file's and its directory's permissions"]
        case .tooLarge:
            ["this is far larger than any notification payload; check that the right file was given"]
        case .alreadyExists:
            ["move it away or choose another path; it is never overwritten"]
        default:
            []
        }
    }
}
