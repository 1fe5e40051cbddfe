import PushSealCLIKit
import PushSealCore
import PushSealJSON

/// `pushseal inspect --bundle`: a key bundle's header and layout, without any key (nothing is
/// opened or authenticated).
enum BundleInspection {
    /// What `inspect --bundle` reads, for the message on empty input.
    static let expected = "key bundle (the base64url text 'pushseal bundle seal' prints)"
    /// The command line the hints show.
    static let invocation = "pushseal inspect --bundle"

    static func run(_ input: [UInt8], file: String?, json: Bool, context: inout CommandContext) throws(CLIError) -> ExitCode {
        let text = BundleCommand.bundleText(input)
        // Only whitespace is no bundle at all, as empty input is: say what was expected.
        if text.isEmpty { throw context.emptyInput(from: file, what: expected, invocation: invocation) }
        let bundle: KeyBundle
        do throws(KeyBundleError) {
            bundle = try KeyBundle(text: text)
        } catch {
            if json {
                var writer = JSONWriter()
                writer.append(.object(JSONObject(members: [
                    .init(name: "valid", value: .bool(false)),
                    .init(name: "reason", value: .string(error.reason.rawValue)),
                    .init(name: "problem", value: .string("\(error)")),
                ])))
                context.write(writer.text + "\n")
            } else {
                context.write("bundle        invalid: \(error.reason.rawValue)\nproblem       \(error)\n")
            }
            throw .failure(Diagnostic("\(error)", hints: ["a key bundle is the base64url text printed by 'pushseal bundle seal'"]))
        }
        let header = bundle.header
        let headerCount = KeyBundleHeader.byteCount
        if json {
            let members: [JSONObject.Member] = [
                .init(name: "valid", value: .bool(true)),
                .init(name: "reason", value: .null),
                .init(name: "version", value: .number(String(KeyBundleHeader.version))),
                .init(name: "providerKeyId", value: .string(header.providerKeyID.base64URL)),
                .init(name: "bundleBytes", value: .number(String(bundle.bytes.count))),
                .init(name: "headerBytes", value: .number(String(headerCount))),
                .init(name: "sealedBytes", value: .number(String(KeyBundleContents.byteCount))),
                .init(name: "textLength", value: .number(String(text.utf8.count))),
            ]
            var writer = JSONWriter()
            writer.append(.object(JSONObject(members: members)))
            context.write(writer.text + "\n")
            return .success
        }
        let sealedCount = KeyBundleContents.byteCount
        let rows: [(String, String)] = [
            ("bundle", "valid, version \(KeyBundleHeader.version) (well-formed; authenticity needs the device key)"),
            ("provider key", header.providerKeyID.base64URL),
            ("sealed", "device key, kid, epoch, since, retire-by, expires, conversation id (only the device learns them)"),
            ("size", "\(bundle.bytes.count) bytes (every bundle): header \(headerCount) + enc 32 + sealed \(sealedCount) + tag 16; text \(text.utf8.count) characters"),
            ("suite", "HPKE mode_auth, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305"),
        ]
        let width = rows.map(\.0.count).max()! + 2
        context.write(rows.map { $0.0 + String(repeating: " ", count: width - $0.0.count) + $0.1 + "\n" }.joined())
        return .success
    }
}
