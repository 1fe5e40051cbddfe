import PushSealCLIKit
import PushSealCore
import PushSealJSON
import PushSealReceiver

/// `pushseal inspect`: describes a payload's envelope without a key.
enum InspectCommand {
    static let file = CommonOptions.inputFile("payload")
    static let bundle = Flag("bundle", abstract: "The input is a key bundle, not a payload.")

    static let spec = CommandSpec(
        name: "inspect",
        abstract: "Describe a payload's envelope without a key: version, key id, salt, sizes, limits.",
        discussion: """
            Reads an APNs payload, an FCM v1 message, an FCM data map, or a bare wire string, \
            finds the "pushseal" envelope and prints its version, key id and salt, the envelope, \
            ciphertext and padded sizes, the payload size, and whether it fits APNs (4096 bytes \
            of JSON body) and FCM (4096 bytes of data: keys plus values). When the input is of \
            another form, the size shown for a transport is that of its smallest payload \
            carrying this envelope.

            No key is needed, so nothing is decrypted or authenticated: a valid envelope here can \
            still fail to open. When the envelope is malformed, the receiver's reason code \
            (not_sealed, malformed_envelope, unsupported_version) and the exact problem are \
            printed, and the exit status is 1.

            With --bundle the input is a key bundle's text ('pushseal bundle seal'): its \
            provider and device key ids, epoch, not-after time and key id are printed (the \
            conversation id is sealed with the key); a malformed one prints its reason code (malformed_bundle, \
            unsupported_bundle_version) and exits 1.

            Example:
              pushseal seal --key-file c.key < content.json | pushseal inspect
            """,
        arguments: [file],
        options: [CommonOptions.json, bundle],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let file = try context.arguments[Self.file]
        if context.arguments[Self.bundle] {
            let input = try context.readInput(from: file, what: BundleInspection.expected, invocation: BundleInspection.invocation)
            return try BundleInspection.run(input, file: file, json: context.arguments[CommonOptions.json], context: &context)
        }
        let input = try context.readInput(from: file, what: "payload")
        let inspection = PayloadInspection(input)
        if context.arguments[CommonOptions.json] {
            context.write(json(inspection) + "\n")
        } else {
            context.write(text(inspection))
        }
        guard inspection.isValid else {
            throw .failure(Diagnostic(problem(inspection) ?? "invalid payload", hints: hints(inspection)))
        }
        return .success
    }

    // MARK: Problem and hints

    /// Why the payload would not open, for people; nil when the envelope is valid.
    static func problem(_ inspection: PayloadInspection) -> String? {
        if inspection.isKeyBundle { return "this is a key bundle's text ('pushseal bundle seal'), not a notification payload" }
        return inspection.error?.description
    }

    static let acceptedInputsHint =
        "inspect reads an APNs payload, an FCM v1 message, an FCM data map, or a bare wire string"

    /// What to do about the problem.
    static func hints(_ inspection: PayloadInspection) -> [String] {
        if inspection.isKeyBundle { return ["inspect it with: pushseal inspect --bundle"] }
        switch inspection.error {
        case nil:
            return []
        case .onlyWhitespace?, .notText?, .notJSON?, .notAnObject?, .repeatedMemberName?:
            return [acceptedInputsHint]
        case .noSealedMember?:
            return ["the envelope travels as the \"pushseal\" string: top level for APNs and FCM data maps, message.data.pushseal in an FCM v1 message"]
        case .duplicatedSealedMember?:
            return ["a payload carries exactly one envelope; receivers reject duplicates so two parsers cannot disagree"]
        case .sealedMemberNotString?:
            return ["\"pushseal\" must be a JSON string holding the base64url envelope"]
        case let .envelope(error)?:
            return [hint(for: error, wire: inspection.wire ?? "")]
        }
    }

    private static func hint(for error: OpenError, wire: String) -> String {
        switch error {
        case .unsupportedVersion:
            return "this build reads envelope version 1 only; was it sealed by a newer PushSeal?"
        case .malformedEnvelope where wire.utf8.count > Envelope.maximumWireLength:
            return "a wire string is at most \(Envelope.maximumWireLength) characters (a \(Envelope.maximumByteCount)-byte envelope)"
        case .malformedEnvelope where (try? Base64URL.decode(wire)) == nil:
            return "wire strings are base64url without padding (RFC 4648 §5): A-Z a-z 0-9 - _ only, never '='"
        default:
            return "a version 1 envelope is \(Envelope.minimumByteCount) to \(Envelope.maximumByteCount) bytes: header \(Envelope.headerByteCount), padded content, tag 16; was the string cut short?"
        }
    }

    // MARK: Text

    static func text(_ inspection: PayloadInspection) -> String {
        var rows: [(String, String)] = []
        let form = inspection.isKeyBundle ? "key bundle text" : form(inspection).map(label) ?? "unrecognised input"
        rows.append(("payload", "\(form), \(bytes(inspection.payloadByteCount))"))
        if let envelope = inspection.envelope {
            rows.append(("envelope", "valid, version \(Envelope.version) (well-formed; authenticity needs the key)"))
            rows.append(("key id", envelope.keyID.base64URL))
            rows.append(("salt", Base64URL.encode(envelope.salt)))
            rows.append(("wire", "\(inspection.wire!.utf8.count) characters"))
            let padded = envelope.paddedContentByteCount
            rows.append(("envelope size", "\(bytes(envelope.bytes.count)): header \(Envelope.headerByteCount) + ciphertext \(padded) + tag 16"))
            rows.append(("padded content", "\(bytes(padded)) (content at most \(bytes(padded - 1)))"))
        } else {
            rows.append(("envelope", "invalid: \(inspection.error?.reason.rawValue ?? "unknown")"))
            rows.append(("problem", problem(inspection) ?? ""))
            if let wire = inspection.wire { rows.append(("wire", "\(wire.utf8.count) characters")) }
            if let header = inspection.header {
                rows.append(("decoded", bytes(header.byteCount)))
                if let version = header.version { rows.append(("version byte", "\(version)")) }
                if let keyID = header.keyID { rows.append(("key id", "\(keyID.base64URL) (from the header)")) }
                if let salt = header.salt { rows.append(("salt", "\(Base64URL.encode(salt)) (from the header)")) }
            }
        }
        if let apns = inspection.apns {
            rows.append(("APNs", fit(apns, measured: "whole JSON body", estimated: "smallest APNs body carrying this envelope")))
        }
        if let fcm = inspection.fcm {
            rows.append(("FCM", fit(fcm, measured: "data keys + values", estimated: "a data map holding only \"pushseal\"")))
        }
        let width = rows.map(\.0.count).max()! + 2
        return rows.map { label, value in
            label + String(repeating: " ", count: width - label.count) + value + "\n"
        }.joined()
    }

    /// The form printed: none for a payload that repeats a member name (it is not strict JSON,
    /// so no form is claimed for it).
    static func form(_ inspection: PayloadInspection) -> PayloadInspection.Form? {
        switch inspection.error {
        case .repeatedMemberName?, .duplicatedSealedMember?: nil
        default: inspection.form
        }
    }

    /// The form, for people.
    static func label(_ form: PayloadInspection.Form) -> String {
        switch form {
        case .apns: "APNs payload"
        case .fcmMessage: "FCM v1 message"
        case .fcmData: "FCM data map"
        case .wire: "bare wire string"
        }
    }

    static func bytes(_ count: Int) -> String {
        count == 1 ? "1 byte" : "\(count) bytes"
    }

    static func fit(_ size: PayloadInspection.TransportSize, measured: String, estimated: String) -> String {
        "\(size.byteCount) of \(size.limit) bytes, \(size.fits ? "fits" : "TOO LARGE") (\(size.isMeasured ? measured : "at least: " + estimated))"
    }

    // MARK: JSON

    /// One object, every key always present (null when unknown), so scripts need no guards.
    static func json(_ inspection: PayloadInspection) -> String {
        var writer = JSONWriter()
        func key(_ name: StaticString) {
            if writer.bytes.count > 1 { writer.appendRaw(",") }
            writer.appendRaw("\"")
            writer.appendRaw(name)
            writer.appendRaw("\":")
        }
        func integer(_ value: Int?) {
            if let value { writer.appendInteger(Int64(value)) } else { writer.appendRaw("null") }
        }
        func string(_ value: String?) {
            if let value { writer.appendString(value) } else { writer.appendRaw("null") }
        }
        func size(_ value: PayloadInspection.TransportSize?) {
            guard let value else { return writer.appendRaw("null") }
            writer.appendRaw("{\"bytes\":")
            writer.appendInteger(Int64(value.byteCount))
            writer.appendRaw(",\"limit\":")
            writer.appendInteger(Int64(value.limit))
            writer.appendRaw(value.fits ? ",\"fits\":true" : ",\"fits\":false")
            writer.appendRaw(value.isMeasured ? ",\"basis\":\"payload\"}" : ",\"basis\":\"minimum\"}")
        }
        let envelope = inspection.envelope
        writer.appendRaw("{")
        key("valid"); writer.appendRaw(inspection.isValid ? "true" : "false")
        key("reason"); string(inspection.error?.reason.rawValue)
        key("problem"); string(problem(inspection))
        key("form"); string(form(inspection)?.rawValue)
        key("keyBundle"); writer.appendRaw(inspection.isKeyBundle ? "true" : "false")
        key("payloadBytes"); integer(inspection.payloadByteCount)
        key("wireLength"); integer(inspection.wire?.utf8.count)
        key("envelopeBytes"); integer(inspection.header?.byteCount)
        key("version"); integer(inspection.header?.version.map(Int.init))
        key("kid"); string(inspection.header?.keyID?.base64URL)
        key("salt"); string(inspection.header?.salt.map { Base64URL.encode($0) })
        key("headerBytes"); integer(envelope.map { _ in Envelope.headerByteCount })
        key("ciphertextBytes"); integer(envelope?.paddedContentByteCount)
        key("tagBytes"); integer(envelope.map { _ in 16 })
        key("paddedBytes"); integer(envelope?.paddedContentByteCount)
        key("maxContentBytes"); integer(envelope.map { $0.paddedContentByteCount - 1 })
        key("apns"); size(inspection.apns)
        key("fcm"); size(inspection.fcm)
        writer.appendRaw("}")
        return writer.text
    }
}
