import Foundation
import PushSealCLIKit
import Testing
import PushSealPlatform

/// In-process tests of the framework pieces that the executable tests exercise only indirectly.
@Suite struct EditDistanceTests {
    @Test func distances() {
        #expect(EditDistance.distance("kitten", "sitting") == 3)
        #expect(EditDistance.distance("", "abc") == 3)
        #expect(EditDistance.distance("abc", "") == 3)
        #expect(EditDistance.distance("--key", "--key") == 0)
        #expect(EditDistance.distance("--kye", "--key") == 2)
    }

    @Test func suggestionsAreCloseAndFirstWins() {
        #expect(EditDistance.suggestion(for: "--kye", among: ["--key", "--key-file"]) == "--key")
        #expect(EditDistance.suggestion(for: "--zzzzzzzz", among: ["--key"]) == nil)
        #expect(EditDistance.suggestion(for: "ab", among: ["ax", "ay"]) == "ax")
        #expect(EditDistance.suggestion(for: "abcd", among: ["wxyz"]) == nil)
    }
}

@Suite struct TextWrappingTests {
    @Test func wrapsAtWordsWithinTheWidth() {
        let text = "one two three four five six seven eight nine ten"
        let wrapped = TextWrapping.wrap(text, width: 20)
        #expect(wrapped == "one two three four\nfive six seven eight\nnine ten")
    }

    @Test func continuationIndentAndFirstLineIndent() {
        #expect(TextWrapping.wrap("aa bb cc", width: 7, indent: 2, firstLineIndent: 0) == "aa bb\n  cc")
        #expect(TextWrapping.wrap("aa bb cc", width: 7, indent: 2) == "  aa bb\n  cc")
    }

    @Test func preformattedLinesAndSpacingAreKept() {
        let text = "Title:\n  0   success with a long line that would otherwise wrap here\n\nx  y"
        #expect(TextWrapping.wrap(text, width: 20) == text)
    }

    @Test func longWordStaysWhole() {
        #expect(TextWrapping.wrap("a verylongwordthatdoesnotfit b", width: 10) == "a\nverylongwordthatdoesnotfit\nb")
    }
}

@Suite struct CommandLineParserTests {
    enum Mode: String, CaseIterable, ArgumentValue {
        case a, b
    }

    static let input = Argument<String>("input", abstract: "Input.")
    static let rest = Argument<[String]>("rest", abstract: "Rest.")
    static let key = Option<String?>("key", short: "k", valueName: "key", abstract: "Key.", secret: true)
    static let mode = Option<Mode>("mode", valueName: "mode", abstract: "Mode.", default: .a)
    static let tag = Option<[String]>("tag", valueName: "tag", abstract: "Tag.")
    static let json = Flag("json", abstract: "JSON.")

    static let command = CommandSpec(
        name: "tool",
        abstract: "A test command.",
        arguments: [input, rest],
        options: [key, mode, tag, json],
        run: { _ in .success })

    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        try CommandLineParser.parse(arguments, for: Self.command)
    }

    @Test func optionForms() throws {
        let parsed = try parse(["--key", "-abc", "--mode=b", "in"])
        #expect(try parsed[Self.key] == "-abc")
        #expect(try parsed[Self.mode] == .b)
        #expect(try parsed[Self.input] == "in")
        #expect(parsed[Self.json] == false)
        #expect(parsed.isPresent(Self.mode))
    }

    @Test func defaultsAndRepeats() throws {
        let parsed = try parse(["in", "--tag", "x", "--tag=y", "--json", "r1", "r2"])
        #expect(try parsed[Self.mode] == .a)
        #expect(!parsed.isPresent(Self.mode))
        #expect(try parsed[Self.tag] == ["x", "y"])
        #expect(parsed[Self.json])
        #expect(try parsed[Self.rest] == ["r1", "r2"])
    }

    @Test func terminatorMakesEverythingPositional() throws {
        let parsed = try parse(["--", "--json", "-k", "-"])
        #expect(try parsed[Self.input] == "--json")
        #expect(try parsed[Self.rest] == ["-k", "-"])
        #expect(!parsed[Self.json])
    }

    @Test func errors() {
        #expect(throws: UsageError.missingValue(for: Self.command.option(named: "key")!)) { try parse(["--key"]) }
        #expect(throws: UsageError.missingValue(for: Self.command.option(named: "key")!)) { try parse(["in", "-k", "--json"]) }
        #expect(throws: UsageError.repeated(Self.command.option(named: "key")!)) { try parse(["in", "--key", "a", "-k", "b"]) }
        #expect(throws: UsageError.unknownOption("--jsn", suggestion: "--json")) { try parse(["in", "--jsn"]) }
        #expect(throws: UsageError.missingArgument(Self.command.argument(named: "input")!)) { try parse(["--json"]) }
        #expect(throws: UsageError.flagWithValue(Self.command.option(named: "json")!, value: "")) { try parse(["in", "--json="]) }
    }

    @Test func secretValuesAreNotEchoed() {
        let error = UsageError.invalidValue("s3cret", for: Self.command.option(named: "key")!, reason: "too short")
        #expect(!error.message.contains("s3cret"))
        #expect(error.message == "The value given for '--key <key>' is invalid: too short")
    }

    @Test func integerConversion() throws {
        func parsed(_ option: Option<Int64?>) throws -> ParsedArguments {
            try CommandLineParser.parse(["--n", "12"], for: CommandSpec(name: "n", abstract: "N.", options: [option], run: { _ in .success }))
        }
        let upTo20 = Option<Int64?>("n", valueName: "n", abstract: "N.", in: 1...20)
        let upTo10 = Option<Int64?>("n", valueName: "n", abstract: "N.", in: 1...10)
        #expect(try parsed(upTo20)[upTo20] == 12)
        #expect(throws: CLIError.usage(.invalidValue("12", for: upTo10.spec, reason: "must be between 1 and 10"))) {
            try parsed(upTo10)[upTo10]
        }
    }

    @Test func typedDeclarationsGiveHelpAndChecks() throws {
        // The enum's words are the allowed values, checked by the parser and listed in help.
        #expect(Self.mode.spec.allowedValues == ["a", "b"])
        #expect(Self.mode.spec.defaultValue == "a")
        #expect(throws: UsageError.invalidValue("c", for: Self.mode.spec, reason: nil)) { try parse(["in", "--mode", "c"]) }
        #expect(HelpFormatter.help([Self.command]).contains("  --mode <mode>           Mode. (values: a, b; default: a)\n"))
        // A required declaration is reported missing by the parser; an optional one made required too.
        let must = Option<Int>("count", valueName: "n", abstract: "Count.")
        let made = Option<FilePath?>("path", valueName: "path", abstract: "Path.").required()
        let command = CommandSpec(name: "r", abstract: "R.", options: [must, made], run: { _ in .success })
        #expect(throws: UsageError.missingOption(must.spec)) { try CommandLineParser.parse(["--path", "p"], for: command) }
        #expect(throws: UsageError.missingOption(made.spec)) { try CommandLineParser.parse(["--count", "1"], for: command) }
        let parsed = try CommandLineParser.parse(["--count", "-3", "--path", "p"], for: command)
        #expect(try parsed[must] == -3)
        #expect(try parsed[made].path == "p")
        let empty = try CommandLineParser.parse(["--count", "x", "--path="], for: command)
        #expect(throws: CLIError.usage(.invalidValue("x", for: must.spec, reason: "not a decimal integer"))) { try empty[must] }
        #expect(throws: CLIError.usage(.invalidValue("", for: made.spec, reason: "empty path"))) { try empty[made] }
    }

    @Test func declarationProblemsAreFound() {
        let bad = CommandSpec(
            name: "bad", abstract: "Bad.",
            arguments: [Argument<String?>("a", abstract: "A."), Argument<String>("b", abstract: "B.")],
            options: [Option<String?>("x", valueName: "x", abstract: "X."), Flag("x", abstract: "X again."), Flag("help", abstract: "Clash.")],
            run: { _ in .success })
        let problems = bad.declarationProblems()
        #expect(problems.count == 3, "\(problems)")
    }
}

@Suite struct HelpFormatterTests {
    @Test func usageListsOptionsThenArguments() {
        let usage = HelpFormatter.usage([CommandLineParserTests.command])
        #expect(usage == "tool [--key <key>] [--mode <mode>] [--tag <tag> ...] [--json] <input> [<rest> ...]")
    }

    @Test func manyOptionsCollapseToAPlaceholder() {
        let options: [any CommandOption] = (1...13).map { Flag("f\($0)", abstract: "F.") } + [Option<String>("must", valueName: "m", abstract: "M.")]
        let command = CommandSpec(name: "many", abstract: "Many.", options: options, run: { _ in .success })
        #expect(HelpFormatter.usage([command]) == "many [<options>] --must <m>")
    }

    @Test func errorTextLayout() {
        let root = CommandSpec(name: "tool", abstract: "T.", subcommands: [CommandLineParserTests.command])
        let text = HelpFormatter.errorText(UsageError("Bad thing", help: "--x  X."), path: [root, CommandLineParserTests.command])
        #expect(text.hasPrefix("Error: Bad thing\nHelp:  --x  X.\nUsage: tool tool "))
        #expect(text.hasSuffix("\n  See 'tool tool --help' for more information.\n"))
    }
}

@Suite struct FileSystemTests {
    @Test func atomicWriteCreatesReplacesAndKeepsPermissions() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory + "/secret.key"
        try FileSystem.writeFileAtomically(Array("one".utf8), to: path, permissions: 0o600)
        #expect(try FileSystem.readFile(at: path, limit: 100) == Array("one".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        try FileSystem.writeFileAtomically(Array("two".utf8), to: path, permissions: 0o600)
        #expect(try FileSystem.readFile(at: path, limit: 100) == Array("two".utf8))
        // Nothing but the file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["secret.key"])
    }

    @Test func noReplaceKeepsTheExistingFile() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory + "/master.key"
        try FileSystem.writeFileAtomically(Array("first".utf8), to: path, replaceExisting: false)
        #expect(throws: IOError.alreadyExists(path: path)) {
            try FileSystem.writeFileAtomically(Array("second".utf8), to: path, replaceExisting: false)
        }
        #expect(try FileSystem.readFile(at: path, limit: 100) == Array("first".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["master.key"])
    }

    @Test func writeIntoAMissingDirectoryFails() {
        #expect(throws: IOError.self) {
            try FileSystem.writeFileAtomically([1], to: "/nonexistent-pushseal-dir/x")
        }
    }

    @Test func readLimitIsEnforced() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory + "/big"
        try FileSystem.writeFileAtomically([UInt8](repeating: 1, count: 101), to: path)
        #expect(throws: IOError.tooLarge(path: path, limit: 100)) { try FileSystem.readFile(at: path, limit: 100) }
        #expect(try FileSystem.readFile(at: path, limit: 101).count == 101)
    }

    @Test func createDirectoryMakesParents() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let nested = directory + "/a/b/c"
        try FileSystem.createDirectory(nested)
        #expect(FileSystem.isDirectory(nested))
        try FileSystem.createDirectory(nested)
    }

    @Test func pathComponents() {
        #expect(FileSystem.directoryName(of: "a/b/c.json") == "a/b")
        #expect(FileSystem.directoryName(of: "c.json") == ".")
        #expect(FileSystem.directoryName(of: "/c.json") == "/")
        #expect(FileSystem.directoryName(of: "a/b/") == "a")
        #expect(FileSystem.baseName(of: "a/b/c.json") == "c.json")
        #expect(FileSystem.baseName(of: "a/b/") == "b")
    }

    @Test func temporaryDirectoryIsPrivate() throws {
        let path = try FileSystem.makeTemporaryDirectory(prefix: "pushseal-test")
        defer { removeTemporaryDirectory(path) }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
    }

    @Test func entriesListEveryNameButDotAndDotDot() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        // Names of every length up to NAME_MAX: readdir's records are only as long as their name.
        let names = (1...255).map { String(repeating: "n", count: $0) } + [".hidden"]
        for name in names { try FileSystem.writeFile([], to: directory + "/" + name) }
        #expect(FileSystem.entries(of: directory)?.sorted() == names.sorted())
        #expect(FileSystem.entries(of: directory + "/missing") == nil)
    }

    @Test func removeTreeRemovesALinkButNotItsTarget() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let kept = directory + "/kept"
        try FileSystem.createDirectory(kept)
        try FileSystem.writeFile(Array("x".utf8), to: kept + "/file")
        try FileSystem.createDirectory(directory + "/tree/a/b")
        try FileSystem.writeFile(Array("y".utf8), to: directory + "/tree/a/b/file")
        #expect(symlink(kept, directory + "/tree/a/link") == 0)
        #expect(FileSystem.removeTree(directory + "/tree"))
        #expect(!FileSystem.exists(directory + "/tree"))
        #expect(try FileSystem.readFile(at: kept + "/file", limit: 10) == Array("x".utf8))
        #expect(FileSystem.removeTree(directory + "/tree"), "a missing path is already removed")
    }
}

@Suite struct ProcessSpawnerTests {
    @Test func fileActionsAndEnvironmentReachTheChild() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let output = directory + "/out"
        let (pid, status) = ProcessSpawner.spawn(
            ["sh", "-c", "printf '%s' \"$PUSHSEAL_SPAWN_PROBE\"; exit 7"],
            fileActions: [.open(output, onto: 1, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)],
            environment: ["PUSHSEAL_SPAWN_PROBE=probe value"], searchingPath: true)
        try #require(status == 0)
        let raw = ProcessSpawner.wait(for: pid)
        #expect(raw & 0x7F == 0 && (raw >> 8) & 0xFF == 7)
        #expect(try FileSystem.readFile(at: output, limit: 100) == Array("probe value".utf8))
    }

    @Test func aMissingProgramIsAnErrnoNotAChild() {
        let (_, status) = ProcessSpawner.spawn(["/nonexistent/pushseal-no-such-program"])
        #expect(status == ENOENT)
    }

    @Test func monotonicClockNeverGoesBack() {
        var last = MonotonicClock.nanoseconds()
        for _ in 0..<1_000 {
            let now = MonotonicClock.nanoseconds()
            #expect(now >= last)
            last = now
        }
        let seconds = MonotonicClock.seconds(), milliseconds = MonotonicClock.milliseconds()
        #expect(abs(seconds * 1000 - Double(milliseconds)) < 1_000)
    }
}

/// Raw `argv` decoding: every argument must be valid UTF-8 (issue 16, defect 7).
@Suite struct ArgumentDecodingTests {
    @Test func validArgumentsPassThroughUnchanged() throws {
        let raw = [Array("store".utf8), Array("--conversation".utf8), Array("caf\u{E9} \u{1F510}".utf8), []]
        guard case let .success(arguments) = CommandLineTool.decodeArguments(raw) else {
            Issue.record("valid UTF-8 refused")
            return
        }
        #expect(arguments == ["store", "--conversation", "caf\u{E9} \u{1F510}", ""])
    }

    @Test func theFirstInvalidArgumentIsNamedNeverEchoed() {
        let cases: [([[UInt8]], String)] = [
            ([Array("--conversation".utf8), [0xFF, 0xFE]], "The value of '--conversation'"),
            ([Array("--label=".utf8) + [0xC0, 0x80]], "The value of '--label'"),
            ([Array("inspect".utf8), [0xED, 0xA0, 0x80]], "Argument 2"),  // an encoded surrogate
            ([Array("--".utf8), [0xF8]], "Argument 2"),
        ]
        for (raw, which) in cases {
            guard case let .failure(failure) = CommandLineTool.decodeArguments(raw) else {
                Issue.record("\(raw) was accepted")
                continue
            }
            #expect(failure.error.message == "\(which) is not valid UTF-8; every argument must be UTF-8 text (a repaired one would name something else).")
            #expect(!failure.error.message.contains("\u{FFFD}"))
            #expect(failure.repaired.count == raw.count)
        }
    }
}

