import PushSealCLIKit
import PushSealCore
import PushSealVectors
import PushSealJSON

/// `pushseal vectors verify FILE`.
enum VectorsVerifyCommand {
    static let file = Argument<String>(
        "file",
        abstract: "The vector file, e.g. Vectors/pushseal-v1.json, Vectors/pushseal-v1-provider.json, Vectors/pushseal-v1-bundles.json or the RFC 9180 HPKE file ('-': standard input).")

    static let spec = CommandSpec(
        name: "verify",
        abstract: "Check every case of a vector file against this implementation.",
        discussion: "Exit status 0 when every case passes, 1 when any fails (each failure is listed).",
        arguments: [file],
        options: [CommonOptions.json],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let bytes = try context.readInput(from: try context.arguments[Self.file], what: "vector file")
        let report: VectorVerifier.Report
        do {
            report = try VectorVerifier.verify(fileBytes: bytes)
        } catch {
            throw .failure("\(error)", hints: "the file must follow Vectors/README.md (schema pushseal_v1_test_schema, pushseal_v1_provider_test_schema, pushseal_v1_bundle_test_schema or pushseal_v1_store_test_schema), or be RFC 9180's A.2 file")
        }
        if context.arguments[CommonOptions.json] {
            var writer = JSONWriter()
            writer.append(.object(JSONObject(members: [
                .init(name: "passed", value: .number(String(report.passed))),
                .init(name: "failed", value: .number(String(report.failed))),
                .init(name: "failures", value: .array(report.failures.map { .string($0) })),
                .init(name: "notApplicable", value: .number(String(report.notApplicable))),
            ])))
            context.write(writer.text + "\n")
        } else {
            for failure in report.failures { context.write("FAIL \(failure)\n") }
            for note in report.notes { context.write("note: \(note)\n") }
            context.write(report.summary + "\n")
        }
        return report.failed == 0 ? .success : .failure
    }
}
