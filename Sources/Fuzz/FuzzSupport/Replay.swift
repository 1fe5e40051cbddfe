#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The entry point of a fuzz target's ordinary (non-fuzzing) build: runs `testOneInput` on every
/// file named on the command line (directories are walked one level deep, as a corpus directory
/// is), so a crash reproducer or the whole seed corpus can be replayed by a plain `swift build`.
///
/// libFuzzer provides `main` in a `--sanitize=fuzzer` build, where this is not compiled in (see
/// the `FUZZING` condition in each target's `Replay` file).
public enum FuzzReplay {
    /// Replays the inputs named in `arguments` (without the program name); returns the exit status.
    public static func run(
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
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return [path] }
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            // Read in place (copying `d_name` reads 256 bytes past a short dirent record).
            let name = String(cString: (UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!).assumingMemoryBound(to: CChar.self))
            guard !name.hasPrefix(".") else { continue }
            let full = path + "/" + name
            var entryInfo = stat()
            if stat(full, &entryInfo) == 0, (entryInfo.st_mode & S_IFMT) == S_IFREG { names.append(full) }
        }
        return names.sorted()
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let read = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes.append(contentsOf: chunk[0..<read])
            if read < chunk.count { break }
        }
        return ferror(file) == 0 ? bytes : nil
    }

    static func printError(_ message: String) {
        writeStandardError(message + "\n")
    }
}
