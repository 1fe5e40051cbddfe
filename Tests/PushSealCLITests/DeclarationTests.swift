@testable import PushSealCommands
import PushSealCLIKit
import Testing

/// The command tree's declarations are sound (no duplicate or clashing names, every option
/// documented, required arguments before optional ones, …).
@Suite struct DeclarationTests {
    @Test func commandTreeHasNoDeclarationProblems() {
        #expect(PushSealTool.root.declarationProblems() == [])
    }

    @Test func commandTreeMatchesTheContract() {
        for (group, children) in CommandPaths.children {
            var spec = PushSealTool.root
            for name in group { spec = spec.subcommand(named: name)! }
            #expect(spec.subcommands.map(\.name) == children, "\(group)")
        }
    }
}
