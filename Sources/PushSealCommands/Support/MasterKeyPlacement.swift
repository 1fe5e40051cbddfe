import PushSealCLIKit
import PushSealPlatform

/// Where a store directory's master key file is by default: `<dir>.master.key`, beside the
/// directory and not inside it, so a copy of the directory (a backup, Docs/KEY-STORE.md §5) does
/// not hold its key. A store made with the earlier default, `<dir>/master.key`, has its key moved
/// there the first time a command uses the default, with a note.
enum MasterKeyPlacement {
    /// The file name of the earlier default inside the directory.
    static let legacyName = "master.key"
    /// What follows the directory's name in the default.
    static let suffix = ".master.key"

    /// `<dir>.master.key` (trailing slashes dropped; a directory named `.` or `..` is first
    /// resolved, so the file is never inside it).
    static func defaultFile(for directory: String) -> String {
        var trimmed = directory
        while trimmed.utf8.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        let last = FileSystem.baseName(of: trimmed)
        if last == "." || last == "..", let resolved = realPath(trimmed) { trimmed = resolved }
        return trimmed + suffix
    }

    /// `<dir>/master.key`, the default before this placement.
    static func legacyFile(in directory: String) -> String {
        directory.hasSuffix("/") ? directory + legacyName : directory + "/" + legacyName
    }

    /// The default master key file of `directory`, moving a key file left at the earlier default
    /// to it first. Says on standard error what it did, or why it could not (the key is then
    /// used where it is).
    static func resolve(for directory: String) -> String {
        let file = defaultFile(for: directory)
        let legacy = legacyFile(in: directory)
        guard let old = identity(legacy) else { return file }
        if let new = identity(file) {
            // Both names: the same file (a move cut short) loses its old name; otherwise the old
            // file is left alone and reported.
            if new == old {
                _ = unlink(legacy)
            } else {
                note("\(legacy) is inside the store directory, beside the master key file \(file) that is used; "
                     + "remove it if it is an old copy (a copy of the directory would hold it)")
            }
            return file
        }
        // Never replaces a file: link(2) fails if the new name exists.
        if link(legacy, file) == 0 || errno == EEXIST {
            if identity(file) == old {
                _ = unlink(legacy)
                FileSystem.syncDirectory(FileSystem.directoryName(of: file))
                FileSystem.syncDirectory(directory)
                note("moved the master key file \(legacy) to \(file), beside the store directory instead of inside it "
                     + "(a copy of the directory no longer holds its key; Docs/KEY-STORE.md §5)")
            }
            return file
        }
        let why = Errno.message(errno)
        note("the master key file \(legacy) is inside the store directory, so a copy of the directory holds its key; "
             + "it could not be moved to \(file) (\(why)): move it there (mv \(ShellQuoting.quote(legacy)) \(ShellQuoting.quote(file))) "
             + "or name it with --master-key-file")
        return legacy
    }

    /// Device and inode of `path` itself (a symbolic link is not followed), or nil when it does
    /// not exist.
    private static func identity(_ path: String) -> [UInt64]? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func note(_ message: String) {
        StandardStreams.writeStandardError("pushseal: note: \(message)\n")
    }
}
