import Testing

/// Help screens, `help <subcommand>`, `--version`, and a group without a subcommand.
@Suite struct HelpTests {
    @Test(arguments: CommandPaths.all)
    func helpFlagsAndHelpSubcommandPrintTheSameScreen(path: [String]) throws {
        let long = try runPushSeal(path + ["--help"])
        let short = try runPushSeal(path + ["-h"])
        let viaHelp = try runPushSeal(["help"] + path)
        for run in [long, short, viaHelp] {
            #expect(run.status == 0, "\(run)")
            #expect(run.stderr.isEmpty, "\(run)")
        }
        #expect(short.stdout == long.stdout)
        #expect(viaHelp.stdout == long.stdout)
    }

    @Test(arguments: CommandPaths.all)
    func helpHasArgumentParserLayout(path: [String]) throws {
        let run = try runPushSeal(path + ["--help"])
        let text = run.stdout
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("OVERVIEW: ") == true, "\(run)")
        #expect(lines.contains { $0.hasPrefix("USAGE: \(CommandPaths.name(path))") }, "\(run)")
        #expect(lines.contains("OPTIONS:"), "\(run)")
        #expect(lines.contains { $0.hasPrefix("  -h, --help") && $0.hasSuffix("Show help information.") }, "\(run)")
        #expect(text.hasSuffix("\n") && !text.hasSuffix("\n\n"), "\(run)")
        for line in lines {
            #expect(line.count <= 80, "line longer than 80 columns: \(line)")
            #expect(!line.hasSuffix(" "), "trailing space: '\(line)'")
        }
        // Section headers appear in ArgumentParser's order.
        let order = ["OVERVIEW:", "USAGE:", "ARGUMENTS:", "OPTIONS:", "SUBCOMMANDS:"]
        let positions = order.compactMap { header in lines.firstIndex { $0.hasPrefix(header) } }
        #expect(positions == positions.sorted())
    }

    @Test(arguments: CommandPaths.groups)
    func groupHelpListsEverySubcommand(path: [String]) throws {
        let run = try runPushSeal(path + ["--help"])
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex(of: "SUBCOMMANDS:"))
        let listed = lines[(start + 1)...].compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.dropFirst(2).split(separator: " ").first.map(String.init)
        }.filter { $0 != "See" }
        #expect(listed == CommandPaths.children[path])
        let helpPath = (["pushseal", "help"] + path).joined(separator: " ")
        #expect(lines.last == "  See '\(helpPath) <subcommand>' for detailed help.")
    }

    @Test(arguments: CommandPaths.leaves)
    func leafHelpHasNoSubcommandSection(path: [String]) throws {
        let run = try runPushSeal(path + ["--help"])
        #expect(!run.stdout.contains("SUBCOMMANDS:"))
    }

    @Test func rootHelpDocumentsExitStatusAndVersion() throws {
        let run = try runPushSeal(["--help"])
        #expect(run.stdout.contains("EXIT STATUS:"))
        for code in ["  0 ", "  1 ", "  3 ", "  64 "] { #expect(run.stdout.contains(code), "\(code)") }
        #expect(run.stdout.contains("  --version               Show the version.\n"))
    }

    @Test func subcommandHelpHasNoVersionOption() throws {
        let run = try runPushSeal(["keygen", "--help"])
        #expect(!run.stdout.contains("--version"))
    }

    @Test func versionPrintsTheVersionAlone() throws {
        let run = try runPushSeal(["--version"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let version = run.stdout.dropLast()
        #expect(run.stdout.hasSuffix("\n") && !version.contains("\n"))
        let parts = version.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "\(run)")
    }

    @Test func helpWinsOverOtherArgumentsAndErrors() throws {
        let run = try runPushSeal(["seal", "--key", "not-a-key", "--bogus", "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("OVERVIEW: Seal"))
    }

    @Test func helpAfterTerminatorIsAnArgument() throws {
        // `inspect -- --help` names a file called --help.
        let run = try runPushSeal(["inspect", "--", "--help"])
        expectFailure(run, messagePrefix: "cannot open '--help'")
    }

    @Test func nestedHelpSubcommandInsideAGroup() throws {
        let run = try runPushSeal(["store", "help", "add"])
        let direct = try runPushSeal(["store", "add", "--help"])
        #expect(run.status == 0)
        #expect(run.stdout == direct.stdout)
    }

    @Test(arguments: CommandPaths.groups)
    func groupWithoutSubcommandPrintsHelpOnStandardErrorAndExits64(path: [String]) throws {
        let run = try runPushSeal(path)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("OVERVIEW: "))
        #expect(run.stderr.contains("SUBCOMMANDS:"))
    }

    @Test func optionsShowValueNamesDefaultsAndAllowedValues() throws {
        let run = try runPushSeal(["seal", "--help"])
        #expect(run.stdout.contains("  --pad-block <n>         Pad the content"))
        #expect(run.stdout.contains("(default: 256)"))
        let flowing = run.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        #expect(flowing.contains("--transport <transport> The payload to produce: APNs, FCM for Android, or FCM for an iOS device (fcm-apns). (values: apns, fcm, fcm-apns; default: apns)"))
        // A label too long for the column puts its help on the next line, at column 26.
        #expect(run.stdout.contains("  --placeholder-title <text>\n                          The visible APNs alert title"))
    }

    @Test func vectorsHelpIsExactlyArgumentParserLayout() throws {
        let run = try runPushSeal(["vectors", "--help"])
        #expect(run.stdout == """
            OVERVIEW: Generate or verify the cross-implementation test vectors
            (Vectors/pushseal-v1.json).

            The vectors are generated deterministically from fixed seeds, so 'generate'
            reproduces the published file byte for byte; 'verify' runs every case through
            this implementation (open, and re-seal where resealable).

            USAGE: pushseal vectors <subcommand>

            OPTIONS:
              -h, --help              Show help information.

            SUBCOMMANDS:
              generate                Write the vector file (deterministic: the same bytes
                                      on every run).
              verify                  Check every case of a vector file against this
                                      implementation.

              See 'pushseal help vectors <subcommand>' for detailed help.

            """)
    }

    @Test func inspectUsageLine() throws {
        let run = try runPushSeal(["inspect", "--help"])
        #expect(run.stdout.contains("\nUSAGE: pushseal inspect [--json] [--bundle] [<file>]\n"))
        #expect(run.stdout.contains("\nARGUMENTS:\n  <file>                  The payload to read;"))
    }
}
