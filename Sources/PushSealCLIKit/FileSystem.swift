#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and crash-safe writes over POSIX calls.
public enum FileSystem {
    /// Reads the file at `path`; more than `limit` bytes is an error.
    public static func readFile(at path: String, limit: Int) throws(IOError) -> [UInt8] {
        let descriptor = try openForReading(path)
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .cannotRead(path: path, errno: errno) }
        let isRegular = (info.st_mode & S_IFMT) == S_IFREG
        if isRegular && Int(info.st_size) > limit { throw .tooLarge(path: path, limit: limit) }
        return try StandardStreams.readAll(from: descriptor, path: path, limit: limit, sizeHint: isRegular ? Int(info.st_size) : 0)
    }

    /// Opens `path` for reading (the caller closes the descriptor); a directory is an error.
    public static func openForReading(_ path: String) throws(IOError) -> Int32 {
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
    public static func writeFileAtomically(
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
                Result { () throws(IOError) in try StandardStreams.write(UnsafeRawBufferPointer(buffer), to: descriptor, path: path) }
            } ?? Array(bytes).withUnsafeBytes { buffer in
                Result { () throws(IOError) in try StandardStreams.write(buffer, to: descriptor, path: path) }
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

    /// Whether something exists at `path` (following symbolic links).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` is a directory (following symbolic links).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates `path` and any missing parents with `permissions` (default `0700`: key stores are
    /// private). An existing directory is fine.
    public static func createDirectory(_ path: String, permissions: mode_t = 0o700) throws(IOError) {
        if isDirectory(path) { return }
        let parent = directoryName(of: path)
        if parent != path && !exists(parent) { try createDirectory(parent, permissions: permissions) }
        guard mkdir(path, permissions) == 0 || (errno == EEXIST && isDirectory(path)) else {
            throw .cannotWrite(path: path, errno: errno)
        }
    }

    /// A new private (`0700`) directory under `$TMPDIR` (or `/tmp`), e.g. for the demo.
    public static func makeTemporaryDirectory(prefix: String) throws(IOError) -> String {
        let base = Environment.value("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base.hasSuffix("/") ? String(base.dropLast()) : base)/\(prefix).XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw .cannotWrite(path: base, errno: errno)
        }
        return string(fromCString: template)
    }

    /// The directory part of `path` (`.` for a bare name, `/` for a top-level entry).
    public static func directoryName(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let directory = trimmed[..<slash]
        return directory.isEmpty ? "/" : String(directory)
    }

    /// The last component of `path`.
    public static func baseName(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The string in a NUL-terminated C buffer.
    static func string(fromCString buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Best-effort `fsync` of a directory, so a rename in it survives a crash.
    public static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
