import Testing

/// Exit 64 paths and swift-argument-parser's wording.
@Suite struct UsageErrorTests {
    @Test(arguments: CommandPaths.all)
    func unknownOptionExits64OnEveryCommand(path: [String]) throws {
        let run = try runPushSeal(path + ["--no-such-option"])
        expectUsageError(run, command: CommandPaths.name(path), message: "Unknown option '--no-such-option'")
    }

    @Test func unknownOptionSuggestsTheClosestOption() throws {
        let run = try runPushSeal(["seal", "--kye", "x"])
        expectUsageError(run, command: "pushseal seal", message: "Unknown option '--kye'. Did you mean '--key'?")
        let padding = try runPushSeal(["seal", "--pad-blok=16"])
        expectUsageError(padding, command: "pushseal seal", message: "Unknown option '--pad-blok'. Did you mean '--pad-block'?")
        let json = try runPushSeal(["inspect", "--jsno"])
        expectUsageError(json, command: "pushseal inspect", message: "Unknown option '--jsno'. Did you mean '--json'?")
        let help = try runPushSeal(["keygen", "--hlep"])
        expectUsageError(help, command: "pushseal keygen", message: "Unknown option '--hlep'. Did you mean '--help'?")
        let version = try runPushSeal(["--verison"])
        expectUsageError(version, command: "pushseal", message: "Unknown option '--verison'. Did you mean '--version'?")
    }

    @Test func unknownShortOptionHasNoSuggestion() throws {
        let run = try runPushSeal(["inspect", "-j"])
        expectUsageError(run, command: "pushseal inspect", message: "Unknown option '-j'")
    }

    @Test func versionIsARootOption() throws {
        let run = try runPushSeal(["keygen", "--version"])
        expectUsageError(run, command: "pushseal keygen", message: "Unknown option '--version'")
    }

    @Test func unknownSubcommandSuggestsTheClosest() throws {
        expectUsageError(try runPushSeal(["sael"]), command: "pushseal",
                         message: "Unknown subcommand 'sael' of 'pushseal'. Did you mean 'seal'?")
        expectUsageError(try runPushSeal(["store", "ad"]), command: "pushseal store",
                         message: "Unknown subcommand 'ad' of 'pushseal store'. Did you mean 'add'?")
        expectUsageError(try runPushSeal(["frobnicate"]), command: "pushseal",
                         message: "Unknown subcommand 'frobnicate' of 'pushseal'")
        expectUsageError(try runPushSeal(["help", "inspekt"]), command: "pushseal",
                         message: "Unknown subcommand 'inspekt' of 'pushseal'. Did you mean 'inspect'?")
    }

    @Test func missingValue() throws {
        let run = try runPushSeal(["seal", "--key"])
        expectUsageError(run, command: "pushseal seal", message: "Missing value for '--key <key>'")
        #expect(run.stderrLines.dropFirst().first?.hasPrefix("Help:  --key <key>  The conversation key") == true, "\(run)")
    }

    @Test func declaredOptionIsNotTakenAsTheValueOfThePreviousOne() throws {
        let run = try runPushSeal(["open", "--key", "--conversation", "c1"])
        expectUsageError(run, command: "pushseal open", message: "Missing value for '--key <key>'")
        let terminator = try runPushSeal(["seal", "--transport", "--", "x"])
        expectUsageError(terminator, command: "pushseal seal", message: "Missing value for '--transport <transport>'")
    }

    @Test func valueStartingWithADashIsAValue() throws {
        // base64url keys may start with '-': the word after --key is its value.
        let run = try runPushSeal(["seal", "--key", "-AAA"])
        expectUsageError(run, command: "pushseal seal",
                         message: "The value given for '--key <key>' is invalid: decodes to 3 bytes; a conversation key is exactly 32")
        let now = try runPushSeal(["open", "--store", "d", "--now", "-5"])
        expectUsageError(now, command: "pushseal open", message: "The value '-5' is invalid for '--now <unix-time>': must be between 0 and 253402300799")
    }

    @Test func missingRequiredOption() throws {
        let run = try runPushSeal(["store", "add", "--dir", "d"])
        expectUsageError(run, command: "pushseal store add", message: "Missing expected argument '--conversation <cid>'")
        #expect(run.stderrLines.contains("Help:  --conversation <cid>  The conversation id (the content's cid)."), "\(run)")
        let dir = try runPushSeal(["store", "list"])
        expectUsageError(dir, command: "pushseal store list", message: "Missing expected argument '--dir <dir>'")
    }

    @Test func missingRequiredArgument() throws {
        let run = try runPushSeal(["vectors", "verify"])
        expectUsageError(run, command: "pushseal vectors verify", message: "Missing expected argument '<file>'")
    }

    @Test func unexpectedArguments() throws {
        expectUsageError(try runPushSeal(["keygen", "extra"]), command: "pushseal keygen", message: "Unexpected argument 'extra'")
        expectUsageError(try runPushSeal(["keygen", "a", "b"]), command: "pushseal keygen", message: "2 unexpected arguments: 'a', 'b'")
        expectUsageError(try runPushSeal(["inspect", "a", "b"]), command: "pushseal inspect", message: "Unexpected argument 'b'")
    }

    @Test func flagWithAValue() throws {
        let run = try runPushSeal(["inspect", "--json=yes"])
        expectUsageError(run, command: "pushseal inspect",
                         message: "The option '--json' does not take any value, but 'yes' was specified.")
    }

    @Test func valueOutsideTheAllowedValues() throws {
        let run = try runPushSeal(["seal", "--key", "x", "--transport", "webpush"])
        expectUsageError(run, command: "pushseal seal",
                         message: "The value 'webpush' is invalid for '--transport <transport>'. Please provide one of 'apns', 'fcm' or 'fcm-apns'.")
    }

    @Test func optionGivenTwice() throws {
        let run = try runPushSeal(["seal", "--transport", "apns", "--transport=fcm"])
        expectUsageError(run, command: "pushseal seal", message: "The option '--transport <transport>' was given more than once.")
    }

    @Test func integerValues() throws {
        let key = Fixtures.keyBase64URL
        expectUsageError(try runPushSeal(["seal", "--key", key, "--pad-block", "abc"]), command: "pushseal seal",
                         message: "The value 'abc' is invalid for '--pad-block <n>': not a decimal integer")
        expectUsageError(try runPushSeal(["seal", "--key", key, "--pad-block=0"]), command: "pushseal seal",
                         message: "The value '0' is invalid for '--pad-block <n>': must be between 1 and 4096")
        expectUsageError(try runPushSeal(["seal", "--key", key, "--pad-block", "+16"]), command: "pushseal seal",
                         message: "The value '+16' is invalid for '--pad-block <n>': not a decimal integer")
        expectUsageError(try runPushSeal(["open", "--store", "d", "--max-age", "-1"]), command: "pushseal open",
                         message: "The value '-1' is invalid for '--max-age <seconds>': must be at least 0")
    }

    @Test func secretValuesAreNeverEchoed() throws {
        let secret = "c2VjcmV0LWtleS1tYXRlcmlhbC10aGF0LWlzLXRvby1sb25nLWZvci1hLWtleQ"
        let run = try runPushSeal(["seal", "--key", secret])
        #expect(run.status == 64)
        #expect(!run.stderr.contains(secret), "\(run)")
        #expect(run.stderrLines.first?.hasPrefix("Error: The value given for '--key <key>' is invalid: decodes to") == true, "\(run)")
    }

    @Test func usageLinesWrapBetweenElements() throws {
        let run = try runPushSeal(["store", "add", "--dir", "d"])
        for line in run.stderrLines where line.hasPrefix("Usage:") || line.hasPrefix("       ") {
            #expect(line.count <= 80)
            #expect(!line.hasSuffix("--not-after") && !line.hasSuffix("--conversation"), "an option is split from its value: \(line)")
        }
    }
}
