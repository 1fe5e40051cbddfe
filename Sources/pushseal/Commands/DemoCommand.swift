import PushSealCLIKit

/// `pushseal demo`: the end-to-end walk-through.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        abstract: "Walk through PushSeal end to end: keys, sealed payloads, opening, fallbacks.",
        discussion: """
            Creates a provider key directory and a device store, provisions keys for two \
            conversations, seals realistic notifications (a chat message, a long body that gets \
            truncated, a communication notification with a sender, a message after key rotation) \
            into APNs and FCM payloads written to files, opens each on the device side, then \
            shows the fallbacks that matter: a tampered payload, an unknown key after a logout \
            wipe, a duplicate delivery, a stale notification. Each step shows sizes against the \
            limits, the outcome and reason, and what Apple would have seen.

            Exits non-zero if any step does not behave as shown.
            """,
        options: [
            .option("dir", valueName: "dir",
                    abstract: "Work in this directory (kept) instead of a temporary one (removed)."),
            CommonOptions.json,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        throw .notYetWired("pushseal demo", pendingOn: "integration of the provider, receiver and key store modules")
    }
}
