import PushSealPlatform
import PushSealCLIKit

/// The directory the demo works in: a fresh `mkdtemp` directory that is removed at the end, or
/// the user's `--dir`, which must be new or empty and is kept.
///
/// Layout (paths relative to the directory):
///
/// ```
/// provider/                the provider's key directory (pushseal-keys.sqlite3)
/// provider.master.key      its master key, 0600 (outside the store directory, as advised)
/// device/                  the device's shared store (keys and duplicate log)
/// device.master.key        its master key, 0600
/// payloads/NN-name.T.json  every payload the demo sealed (T = apns or fcm)
/// ```
struct DemoWorkspace {
    /// The directory, as given or as created (absolute for a temporary directory).
    let root: String
    /// True when the directory is removed at the end (no `--dir`).
    let isTemporary: Bool

    static let providerStore = "provider"
    static let providerMasterKey = "provider.master.key"
    static let deviceStore = "device"
    static let deviceMasterKey = "device.master.key"
    static let payloads = "payloads"

    /// A new temporary directory under `$TMPDIR` (or `/tmp`).
    static func temporary() throws(CLIError) -> DemoWorkspace {
        do throws(IOError) {
            return DemoWorkspace(root: try FileSystem.makeTemporaryDirectory(prefix: "pushseal-demo"), isTemporary: true)
        } catch {
            throw .io(error, hints: "set TMPDIR to a writable directory, or pass '--dir <dir>'")
        }
    }

    /// The user's directory: created (0700) when missing; refused when it is not empty, because the
    /// demo's outcomes assume fresh stores.
    static func kept(_ path: String) throws(CLIError) -> DemoWorkspace {
        if FileSystem.exists(path) {
            guard FileSystem.isDirectory(path) else {
                throw .failure("'\(path)' exists and is not a directory", hints: "pass a new or empty directory to '--dir'")
            }
            guard let entries = FileSystem.entries(of: path) else {
                throw .failure("cannot read the directory '\(path)': \(Errno.message(errno))")
            }
            guard entries.isEmpty else {
                throw .failure(
                    "'\(path)' is not empty",
                    hints: "the demo creates fresh key stores there; pass a new or empty directory, or remove '\(path)' first")
            }
        } else {
            do throws(IOError) { try FileSystem.createDirectory(path) } catch { throw .io(error) }
        }
        return DemoWorkspace(root: path, isTemporary: false)
    }

    /// `root/relative`.
    func path(_ relative: String) -> String {
        FileSystem.join(root, relative)
    }

    /// Creates `payloads/`.
    func preparePayloadDirectory() throws(CLIError) {
        do throws(IOError) { try FileSystem.createDirectory(path(Self.payloads)) } catch { throw .io(error) }
    }

    /// Writes a payload file (0644: payloads are not secret) and returns its relative path.
    func writePayload(_ bytes: [UInt8], named name: String) throws(CLIError) -> String {
        let relative = Self.payloads + "/" + name
        do throws(IOError) {
            try FileSystem.writeFileAtomically(bytes, to: path(relative), permissions: 0o644)
        } catch {
            throw .io(error)
        }
        return relative
    }

    /// Reads a file back (what a device is handed).
    func read(_ relative: String) throws(CLIError) -> [UInt8] {
        do throws(IOError) { return try FileSystem.readFile(at: path(relative), limit: 1 << 20) } catch { throw .io(error) }
    }

    /// The permission bits of `root/relative` (`0o600`), or nil when it cannot be examined.
    func permissions(of relative: String) -> UInt32? {
        var info = stat()
        guard lstat(path(relative), &info) == 0 else { return nil }
        return UInt32(info.st_mode) & 0o7777
    }

    /// Removes the temporary directory and everything in it. Does nothing for a kept directory.
    /// Returns false when something could not be removed.
    @discardableResult
    func removeIfTemporary() -> Bool {
        guard isTemporary else { return true }
        return FileSystem.removeTree(root)
    }
}
