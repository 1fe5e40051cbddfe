#if !FUZZING
import PushSealPlatform
import FuzzSupport

/// Ordinary build: replays corpus files through the target (`FuzzDeliveryLog FILE|DIR...`).
/// The fuzzing build (`-DFUZZING`) leaves `main` to libFuzzer.
@main
enum FuzzDeliveryLogReplay {
    static func main() {
        exit(FuzzReplay.run(name: "FuzzDeliveryLog", arguments: Array(CommandLine.arguments.dropFirst()),
                            testOneInput: fuzzDeliveryLogTestOneInput))
    }
}
#endif
