#if !FUZZING
import PushSealPlatform
import FuzzSupport

/// Ordinary build: replays corpus files through the target (`FuzzBundle FILE|DIR...`).
/// The fuzzing build (`-DFUZZING`) leaves `main` to libFuzzer.
@main
enum FuzzBundleReplay {
    static func main() {
        exit(FuzzReplay.run(name: "FuzzBundle", arguments: Array(CommandLine.arguments.dropFirst()),
                            testOneInput: fuzzBundleTestOneInput))
    }
}
#endif
