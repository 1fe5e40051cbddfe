#if !FUZZING
import PushSealPlatform
import FuzzSupport

/// Ordinary build: replays corpus files through the target (`FuzzEnvelope FILE|DIR...`).
/// The fuzzing build (`-DFUZZING`) leaves `main` to libFuzzer.
@main
enum FuzzEnvelopeReplay {
    static func main() {
        exit(FuzzReplay.run(name: "FuzzEnvelope", arguments: Array(CommandLine.arguments.dropFirst()),
                            testOneInput: fuzzEnvelopeTestOneInput))
    }
}
#endif
