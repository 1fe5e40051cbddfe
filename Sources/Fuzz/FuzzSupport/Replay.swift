import PushSealPlatform

/// The entry point of a fuzz target's ordinary (non-fuzzing) build: runs `testOneInput` on every
/// file named on the command line (directories are walked one level deep, as a corpus directory
/// is), so a crash reproducer or the whole seed corpus can be replayed by a plain `swift build`.
///
/// libFuzzer provides `main` in a `--sanitize=fuzzer` build, where this is not compiled in (see
/// the `FUZZING` condition in each target's `Replay` file).
package enum FuzzReplay {
    /// Replays the inputs named in `arguments` (without the program name); returns the exit status.
    package static func run(
        name: String, arguments: [String], testOneInput: (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt {
        if arguments.isEmpty || arguments.contains("-h") || arguments.contains("--help") {
            print("""
                usage: \(name) FILE|DIR...
                Replays each input through the fuzz target's property checks (a normal build, no fuzzer).
                To fuzz, build with scripts/fuzz.sh, which passes --sanitize=fuzzer and -DFUZZING.
                """)
            return arguments.isEmpty ? 64 : 0
        }
        var count = 0
        for argument in arguments {
            guard let files = inputFiles(at: argument) else {
                printError("\(name): error: cannot read \(argument)")
                return 1
            }
            for file in files {
                guard let bytes = readFile(file) else {
                    printError("\(name): error: cannot read \(file)")
                    return 1
                }
                _ = bytes.withUnsafeBufferPointer { testOneInput($0.baseAddress, $0.count) }
                count += 1
            }
        }
        print("\(name): \(count) input(s) replayed, all properties held")
        return 0
    }

    /// The regular files at `path`: the file itself, or the files directly inside a directory
    /// (sorted, hidden files skipped). Nil when `path` cannot be read.
    static func inputFiles(at path: String) -> [String]? {
        switch FileSystem.status(path) {
        case .missing, .failed: return nil
        case .directory: break
        case .regularFile, .other: return [path]
        }
        guard let names = FileSystem.entries(of: path) else { return nil }
        return names.filter { !$0.hasPrefix(".") }.map { path + "/" + $0 }.filter {
            if case .regularFile = FileSystem.status($0) { return true }
            return false
        }.sorted()
    }

    /// The whole file at `path` (up to 1 GiB), or nil.
    static func readFile(_ path: String) -> [UInt8]? {
        try? FileSystem.readFile(at: path, limit: 1 << 30)
    }

    static func printError(_ message: String) {
        writeStandardError(message + "\n")
    }
}
