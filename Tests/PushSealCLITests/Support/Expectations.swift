import Testing

/// Checks the shape every usage error must have: exit 64, nothing on stdout, `Error: <message>`
/// first, then (optionally `Help:`) `Usage: pushseal <command> …` and the pointer to `--help`.
func expectUsageError(
    _ run: PushSealRun, command: String, message: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(run.status == 64, "\(run)", sourceLocation: sourceLocation)
    #expect(run.stdout.isEmpty, "\(run)", sourceLocation: sourceLocation)
    let lines = run.stderrLines
    #expect(lines.first == "Error: \(message)", "\(run)", sourceLocation: sourceLocation)
    #expect(lines.contains { $0.hasPrefix("Usage: \(command)") }, "\(run)", sourceLocation: sourceLocation)
    #expect(lines.last == "  See '\(command) --help' for more information.", "\(run)", sourceLocation: sourceLocation)
}

/// Checks a runtime failure: the given exit status, `pushseal: error: <message…>` first on
/// stderr, and at least one `pushseal: hint:` when `hint` is true.
func expectFailure(
    _ run: PushSealRun, status: Int32 = 1, messagePrefix: String, hint: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(run.status == status, "\(run)", sourceLocation: sourceLocation)
    #expect(run.stderrLines.first?.hasPrefix("pushseal: error: \(messagePrefix)") == true, "\(run)", sourceLocation: sourceLocation)
    if hint {
        #expect(run.stderrLines.dropFirst().contains { $0.hasPrefix("pushseal: hint: ") }, "\(run)", sourceLocation: sourceLocation)
    }
    #expect(!run.stderr.contains("Usage:"), "runtime errors do not print usage\n\(run)", sourceLocation: sourceLocation)
}
