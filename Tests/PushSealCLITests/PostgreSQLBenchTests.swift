import Foundation
import PushSealJSON
import Testing

/// `pushseal bench --postgres URI`: the PostgreSQL figures measured in process by the companion
/// `pushseal-full` (its peers are its own hidden `bench postgres-peer`), against the throwaway
/// cluster of scripts/with-postgres.sh (these tests FAIL without it, never skip). Functional
/// checks only, never the timings.
@Suite("pushseal bench --postgres") struct PostgreSQLBenchTests {
    static let postgreSQLFigures = ["seal.postgres.512", "postgres.lookup", "postgres.connect", "postgres.rotation.use", "postgres.rotations.conc"]

    @Test func aQuickRunReportsEveryPostgreSQLFigureWithItsBaselinesAndTargets() throws {
        let uri = try TestPostgreSQL.freshSchemaURI()
        let run = try runPushSeal(
            ["bench", "--quick", "--json", "--only", "seal.postgres,postgres.", "--iterations", "3", "--postgres", uri], timeout: 300)
        #expect(run.status == 0, "\(run)")
        #expect(!run.stderr.contains(try TestPostgreSQL.password(uri)), "\(run)")
        let figures = try BenchTests.figures(run)
        // The selected figures and exactly what they are compared with.
        #expect(Set(figures.keys) == Set(Self.postgreSQLFigures + ["seal.apns.512", "aead.encrypt.768", "aead.decrypt.32"]), "\(figures.keys.sorted())")
        for name in Self.postgreSQLFigures {
            #expect((BenchTests.number(figures[name]?["median_ns"]) ?? 0) > 0, "\(name)")
        }

        // Sealing with the listening cache's key is compared with the same path with the key in
        // memory, like seal.store.512, and judged against the same 0.9.
        let seal = try #require(figures["seal.postgres.512"])
        #expect(seal["limit"] == .string("seal.apns.512"))
        #expect((BenchTests.number(seal["ratio"]) ?? 0) > 0)
        #expect(seal["target"] == .string("ratio >= 0.9 (x seal.apns.512)"))
        #expect(seal["target_met"] != nil)
        #expect(BenchTests.number(seal["content_bytes"]) == 512)
        for name in ["postgres.lookup", "postgres.connect"] {
            #expect(figures[name]?["limit"] == .string("aead.decrypt.32"), "\(name)")
        }

        // Across processes: 5 rotations (--quick) each used by a second process, and 4 processes
        // x 10 rotations of one conversation, every epoch once, one current.
        let use = try #require(figures["postgres.rotation.use"])
        #expect(BenchTests.number(use["samples"]) == 5)
        #expect((BenchTests.number(use["max_ns"]) ?? 0) >= (BenchTests.number(use["median_ns"]) ?? .infinity))
        let concurrent = try #require(figures["postgres.rotations.conc"])
        #expect(BenchTests.number(concurrent["processes"]) == 4)
        #expect(BenchTests.number(concurrent["rotations"]) == 40)
        #expect(concurrent["target"] == .string("epochs 1...40 once each, one current"))
        #expect(concurrent["target_met"] == .bool(true), "\(run.stdout)")
    }

    @Test func theTableMarksThePostgreSQLSealTargetLikeTheOthers() throws {
        let uri = try TestPostgreSQL.freshSchemaURI()
        let run = try runPushSeal(["bench", "--quick", "--only", "seal.postgres", "--iterations", "3", "--postgres", uri], timeout: 300)
        #expect(run.status == 0, "\(run)")
        let line = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("seal.postgres.512 ") }, "\(run)")
        #expect(line.contains("seal.apns.512"), "\(line)")
        #expect(line.hasSuffix("target ratio >= 0.9 (x seal.apns.512): met") || line.hasSuffix("target ratio >= 0.9 (x seal.apns.512): MISSED"), "\(line)")
        // Nothing after the table: every PostgreSQL figure is one of its rows.
        #expect(!run.stdout.contains("PostgreSQL key directory ("), "\(run.stdout)")
    }

    @Test func aDatabaseWithADirectoryNeedsItsMasterKey() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let uri = try TestPostgreSQL.freshSchemaURI()
        let key = sandbox.path("directory.key")
        let initialized = try runPushSeal(["store", "init", "--dir", uri, "--master-key-file", key])
        #expect(initialized.status == 0, "\(initialized)")
        let quick = ["bench", "--quick", "--json", "--only", "seal.postgres", "--iterations", "2", "--postgres", uri]

        // Without its key: refused before anything is measured, saying what to give.
        let refused = try runPushSeal(quick, timeout: 120)
        expectFailure(refused, messagePrefix: "cannot use the PostgreSQL key directory at postgresql://pushseal:***@", hint: true)
        #expect(refused.stderr.contains("--master-key-file <file>"), "\(refused)")
        let password = try TestPostgreSQL.password(uri)
        #expect(refused.stdout.isEmpty && !refused.stderr.contains(password), "\(refused)")

        // With it: measured on that directory, which keeps only its own conversations afterwards.
        let run = try runPushSeal(quick + ["--master-key-file", key], timeout: 300)
        #expect(run.status == 0, "\(run)")
        #expect(try BenchTests.figures(run)["seal.postgres.512"] != nil, "\(run)")
        let listed = try runPushSeal(["store", "list", "--dir", uri, "--master-key-file", key, "--json"])
        #expect(listed.status == 0 && !listed.stdout.contains("bench-"), "\(listed)")

        expectUsageError(
            try runPushSeal(["bench", "--master-key-file", key]), command: "pushseal bench",
            message: "'--master-key-file <file>' goes with '--postgres <uri>' (the key of the directory there).")
    }

    @Test func thePeerSubcommandIsHiddenFromHelp() throws {
        let help = try runPushSeal(["bench", "--help"])
        #expect(help.status == 0, "\(help)")
        #expect(!help.stdout.contains("postgres-peer"), "\(help.stdout)")
        #expect(!help.stdout.contains("<subcommand>"), "\(help.stdout)")
        #expect(!help.stdout.contains("SUBCOMMANDS"), "\(help.stdout)")
    }
}
