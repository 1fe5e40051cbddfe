import PushSealPlatform
import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore

/// Provider key directories on PostgreSQL, chosen by a connection URI for `--dir` / `--store`.
///
/// `pushseal` is one static executable without libpq (Docs/PERFORMANCE.md §5.3), so it does not
/// open them itself: for a URI it replaces itself (`execv`, same arguments, same standard
/// streams, the companion's exit status) with `pushseal-postgres`, found next to it like
/// `pushseal-deliver`. The companion runs these same commands with ``backend`` set to the
/// PostgreSQL key directory, so every command has one implementation for both backends.
package enum PostgreSQLCompanion {
    /// The companion's file name.
    package static let executableName = "pushseal-postgres"

    /// What the companion links in: opening the directory at a URI, and the URI's redacted form
    /// for messages (never the password).
    package struct Backend: Sendable {
        /// Opens (with `create`, creating the schema and the master key file when missing) the
        /// directory at `uri` under the key in `masterKeyFile`; whether it created the schema.
        package var open: @Sendable (_ uri: String, _ masterKeyFile: String, _ create: Bool, _ clock: @escaping SecondsClock) throws(KeyDirectoryError)
            -> (directory: any KeyDirectory, created: Bool)
        /// The URI with its password replaced by `***`.
        package var redacted: @Sendable (_ uri: String) -> String

        /// A backend from its two functions.
        package init(
            open: @escaping @Sendable (String, String, Bool, @escaping SecondsClock) throws(KeyDirectoryError) -> (directory: any KeyDirectory, created: Bool),
            redacted: @escaping @Sendable (String) -> String
        ) {
            self.open = open
            self.redacted = redacted
        }
    }

    /// Set once by `pushseal-postgres` before it runs the tool (single-threaded start); nil in
    /// `pushseal`.
    nonisolated(unsafe) package static var backend: Backend?

    /// Whether `value` names a PostgreSQL server rather than a store directory.
    static func isConnectionURI(_ value: String) -> Bool {
        value.hasPrefix("postgresql://") || value.hasPrefix("postgres://")
    }

    /// `value` for messages: a path as it is, a URI with its password redacted (`***`; without a
    /// backend, which only `pushseal` lacks, the URI is not shown at all).
    static func displayName(_ value: String) -> String {
        guard isConnectionURI(value) else { return value }
        return backend?.redacted(value) ?? "<connection URI>"
    }

    /// Runs the companion in place of this process with the same arguments; returns only by
    /// throwing (companion missing or not executable).
    static func replaceProcess() throws(CLIError) -> Never {
        let path = try HelperExecutable.path(
            executableName, neededBy: "a PostgreSQL key directory",
            hints: "pushseal itself does not link libpq; \(executableName), its companion that does, runs the commands on a connection URI",
            "build or install both products: swift build -c release --product pushseal --product \(executableName) (needs libpq-dev)")
        // The arguments exactly as this process got them (bytes, not re-encoded strings).
        var arguments: [UnsafeMutablePointer<CChar>?] = Array(UnsafeBufferPointer(start: CommandLine.unsafeArgv, count: Int(CommandLine.argc)))
        arguments.append(nil)
        let reason = path.withCString { (cPath) -> String in
            arguments[0] = UnsafeMutablePointer(mutating: cPath)
            execv(cPath, arguments)
            return Errno.message(errno)
        }
        throw .failure("cannot start \(path): \(reason)")
    }
}
