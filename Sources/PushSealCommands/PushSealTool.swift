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
}
