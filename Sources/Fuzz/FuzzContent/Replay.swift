#if !FUZZING
import PushSealPlatform
import FuzzSupport

/// Ordinary build: replays corpus files through the target (`FuzzContent FILE|DIR...`).
/// The fuzzing build (`-DFUZZING`) leaves `main` to libFuzzer.
@main
enum FuzzContentReplay {
    static func main() {
        exit(FuzzReplay.run(name: "FuzzContent", arguments: Array(CommandLine.arguments.dropFirst()),
                            testOneInput: fuzzContentTestOneInput))
    }
}
#endif
