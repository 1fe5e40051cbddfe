import PushSealCLIKit
import PushSealCore
import PushSealJSON

/// `pushseal inspect --bundle`: a key bundle's header and layout, without any key (nothing is
/// opened or authenticated).
enum BundleInspection {
    static func run(_ input: [UInt8], json: Bool, context: inout CommandContext) throws(CLIError) -> ExitCode {
        let text = BundleCommand.bundleText(input)
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
            var writer = JSONWriter()
            writer.append(.object(JSONObject(members: [
                .init(name: "valid", value: .bool(true)),
                .init(name: "reason", value: .null),
                .init(name: "version", value: .number(String(KeyBundleHeader.version))),
                .init(name: "providerKeyId", value: .string(header.providerKeyID.base64URL)),
                .init(name: "deviceKeyId", value: .string(header.deviceKeyID.base64URL)),
                .init(name: "epoch", value: .number(String(header.epoch))),
                .init(name: "notAfter", value: header.notAfter.map { .number(String($0)) } ?? .null),
                .init(name: "kid", value: .string(header.keyID.base64URL)),
                .init(name: "bundleBytes", value: .number(String(bundle.bytes.count))),
                .init(name: "conversationBytes", value: .number(String(bundle.bytes.count - headerCount - 80))),
                .init(name: "headerBytes", value: .number(String(headerCount))),
                .init(name: "textLength", value: .number(String(text.utf8.count))),
            ])))
            context.write(writer.text + "\n")
            return .success
        }
        let rows: [(String, String)] = [
            ("bundle", "valid, version \(KeyBundleHeader.version) (well-formed; authenticity needs the device key)"),
            ("provider key", header.providerKeyID.base64URL),
            ("device key", header.deviceKeyID.base64URL),
            ("conversation", "sealed with the key (only the device learns it)"),
            ("epoch", String(header.epoch)),
            ("not after", header.notAfter.map { "\($0) (\(UTCTime.iso8601($0)))" } ?? "no limit"),
            ("key id", header.keyID.base64URL),
            ("size", "\(bundle.bytes.count) bytes: header \(headerCount) + enc 32 + sealed key and conversation id \(bundle.bytes.count - headerCount - 32) (with the 16-byte tag); text \(text.utf8.count) characters"),
            ("suite", "HPKE mode_auth, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305"),
        ]
        let width = rows.map(\.0.count).max()! + 2
        context.write(rows.map { $0.0 + String(repeating: " ", count: width - $0.0.count) + $0.1 + "\n" }.joined())
        return .success
    }
}
