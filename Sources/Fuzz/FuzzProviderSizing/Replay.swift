#if !FUZZING
import PushSealPlatform
import FuzzSupport

/// Ordinary build: replays corpus files through the target (`FuzzProviderSizing FILE|DIR...`).
/// The fuzzing build (`-DFUZZING`) leaves `main` to libFuzzer.
@main
enum FuzzProviderSizingReplay {
    static func main() {
        exit(FuzzReplay.run(name: "FuzzProviderSizing", arguments: Array(CommandLine.arguments.dropFirst()),
                            testOneInput: fuzzProviderSizingTestOneInput))
    }
}
#endif
