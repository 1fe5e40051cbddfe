import PushSealCLIKit

/// The `pushseal` command tree (Docs/CLI.md: the forms and outputs are a contract).
package enum PushSealTool {
    /// Printed by `pushseal --version`.
    static let version = "0.3.0"

    /// The root command.
    static let root = CommandSpec(
        name: "pushseal",
        abstract: "End-to-end encrypted push notifications: seal, open and inspect PushSeal payloads.",
        discussion: """
            PushSeal seals each notification's content under a per-conversation key, so APNs \
            and FCM carry only a placeholder alert and an opaque "pushseal" string. The app's \
            notification service extension (or messaging service) decrypts and shows the real \
            title and body, or clear fallback text with a reason.

            Keys and salts are base64url without padding. Data goes to standard output, \
            diagnostics to standard error.

            EXIT STATUS:
              0   success
              1   failure (bad input data, I/O, a check that did not pass)
              3   the receiver fell back ('open'); the fallback result is still printed
              64  usage error (the command line itself is wrong)
            """,
        subcommands: [
            KeygenCommand.spec,
            SealCommand.spec,
            SendCommand.spec,
            OpenCommand.spec,
            InspectCommand.spec,
            StoreCommand.spec,
            DeviceCommand.spec,
            BundleCommand.spec,
            VectorsCommand.spec,
            DemoCommand.spec,
            BenchCommand.spec,
        ])

    /// The tool: parsing, help, version and diagnostics.
    package static let tool = CommandLineTool(root: root, version: version)

    /// Runs the tool on this process's command line with `backends` (what the executable links
    /// beyond the static `pushseal`'s own); the exit status.
    package static func main(backends: Backends) -> ExitCode {
        CommandLineTool(root: root, version: version, services: backends).main()
    }

    /// `pushseal`'s `main`: when the command line needs a backend only the companion links
    /// (``Companion/isNeeded(for:)``, decided once, before parsing), the companion in place of
    /// this process; otherwise the tool with no backends.
    package static func mainOrCompanion() -> ExitCode {
        let arguments = CommandLineTool.processArgumentBytes().map { String(decoding: $0, as: UTF8.self) }
        if Companion.isNeeded(for: arguments) {
            do throws(CLIError) {
                try Companion.replaceProcess(for: arguments)
            } catch {
                switch error {
                case let .failure(diagnostic):
                    tool.report(diagnostic)
                    return diagnostic.exitCode
                case let .usage(usage):
                    tool.report(Diagnostic(usage.message))
                    return .usage
                }
            }
        }
        return main(backends: Backends())
    }
}
