#if !FUZZING
import PushSealPlatform
import FuzzSupport

/// Ordinary build: replays corpus files through the target (`FuzzOpen FILE|DIR...`).
/// The fuzzing build (`-DFUZZING`) leaves `main` to libFuzzer.
@main
enum FuzzOpenReplay {
    static func main() {
        exit(FuzzReplay.run(name: "FuzzOpen", arguments: Array(CommandLine.arguments.dropFirst()),
                            testOneInput: fuzzOpenTestOneInput))
    }
}
#endif
