import PushSealCommands
import Testing

/// `pushseal`'s one decision, in its `main` before parsing: whether the command line needs the
/// companion (a connection URI anywhere, as an argument or an `--option=value`).
@Suite struct CompanionChoiceTests {
    @Test func connectionURIsNeedTheCompanion() {
        #expect(Companion.isNeeded(for: ["store", "list", "--dir", "postgresql://u:p@h/db", "--master-key-file", "k"]))
        #expect(Companion.isNeeded(for: ["seal", "--store=postgres://h/db", "--master-key-file", "k"]))
        #expect(Companion.isNeeded(for: ["device", "init", "--dir", "postgresql://h/db"]))
    }

    @Test func everythingElseRunsInPushseal() {
        #expect(!Companion.isNeeded(for: []))
        #expect(!Companion.isNeeded(for: ["store", "list", "--dir", "keys"]))
        #expect(!Companion.isNeeded(for: ["seal", "--store=./postgresql", "--conversation", "postgresql"]))
        #expect(!Companion.isNeeded(for: ["open", "--key", "x", "--", "-postgresql://"]))
    }
}
