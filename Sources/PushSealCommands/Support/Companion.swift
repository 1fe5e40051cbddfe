import PushSealPlatform
import PushSealCLIKit

/// The companion of the static `pushseal`: one dynamically linked executable with the same
/// command tree and every backend (``Backends``) linked in, for what cannot be linked statically
/// here (libpq, libcurl). `pushseal` is one static executable without libpq (Docs/PERFORMANCE.md §5.3):
/// its `main` decides once, before parsing (``isNeeded(for:)``), whether to replace itself with
/// the companion found next to it (``replaceProcess()``); its own commands never start another
/// executable for a backend.
package enum Companion {
    /// The companion's file name.
    package static let executableName = "pushseal-full"

    /// Whether `value` names a PostgreSQL server rather than a store directory.
    package static func isConnectionURI(_ value: String) -> Bool {
        value.hasPrefix("postgresql://") || value.hasPrefix("postgres://")
    }

    /// Whether the command line `arguments` (without the program name) needs a backend only the
    /// companion links: the `send` command (delivery), or any argument, or the value of any
    /// `--option=value`, that is a connection URI (the PostgreSQL key directory). A URI given
    /// to a command that refuses one is refused by the companion with the same usage error.
    package static func isNeeded(for arguments: [String]) -> Bool {
        if arguments.first == "send" { return true }
        return arguments.contains { argument in
            if isConnectionURI(argument) { return true }
            guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return false }
            return isConnectionURI(String(argument[argument.index(after: equals)...]))
        }
    }

    /// Runs the companion in place of this process with the same arguments (bytes, standard
    /// streams, its exit status); returns only by throwing (companion missing or not executable).
    package static func replaceProcess(for arguments: [String]) throws(CLIError) -> Never {
        let user = arguments.first == "send" ? "'pushseal send'" : "a PostgreSQL key directory"
        let path = try HelperExecutable.path(
            executableName, neededBy: user,
            hints: "pushseal itself does not link libpq or libcurl; \(executableName), its companion that does, runs 'send' and the commands on a connection URI",
            "build or install both products: swift build -c release --product pushseal && swift build -c release --product \(executableName) (needs libpq-dev and libcurl4-openssl-dev)")
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
