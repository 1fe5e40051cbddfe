import PushSealCLIKit
import PushSealCore
import PushSealJSON

/// Conversions from command-line text to PushSeal values, with errors that say exactly what is
/// wrong (`The value given for '--key <key>' is invalid: decodes to 31 bytes; a key is 32`).
enum ArgumentDecoding {
    /// A conversation key from base64url text (surrounding whitespace ignored).
    static func conversationKey(fromBase64URL text: some StringProtocol) throws(ValueError) -> ConversationKey {
        var bytes = try base64URL(text)
        defer { bytes.withUnsafeMutableBytes { for i in $0.indices { $0[i] = 0 } } }
        guard bytes.count == ConversationKey.byteCount else {
            throw ValueError("decodes to \(bytes.count) bytes; a conversation key is exactly \(ConversationKey.byteCount)")
        }
        do throws(WireFormatError) {
            return try ConversationKey(rawBytes: bytes)
        } catch {
            throw ValueError("\(error)")
        }
    }

    /// A parse function for a key id option: 16 bytes of base64url, else
    /// `not a 16-byte base64url <what>`.
    static func keyID(_ what: String) -> @Sendable (String) throws(ValueError) -> KeyID {
        { (text) throws(ValueError) -> KeyID in
            guard let id = KeyID(base64URL: text) else { throw ValueError("not a 16-byte base64url \(what)") }
            return id
        }
    }

    /// A 24-byte salt from base64url text.
    static func salt(fromBase64URL text: String) throws(ValueError) -> [UInt8] {
        let bytes = try base64URL(text)
        guard bytes.count == Envelope.saltByteCount else {
            throw ValueError("decodes to \(bytes.count) bytes; a salt is exactly \(Envelope.saltByteCount)")
        }
        return bytes
    }

    /// Strict base64url bytes, whitespace around the text ignored.
    static func base64URL(_ text: some StringProtocol) throws(ValueError) -> [UInt8] {
        let trimmed = trimmingWhitespace(text)
        guard !trimmed.isEmpty else { throw ValueError("empty") }
        do throws(Base64URL.DecodingError) {
            return try Base64URL.decode(trimmed)
        } catch {
            throw ValueError("not base64url without padding: \(error)")
        }
    }

    /// The conversation key named by `--key` or `--key-file` (exactly one of them), or nil when
    /// neither is given. A key file holds the base64url key, or the JSON object `keygen` prints.
    static func conversationKey(_ context: CommandContext) throws(CLIError) -> ConversationKey? {
        let arguments = context.arguments
        if arguments.isPresent(CommonOptions.key) && arguments.isPresent(CommonOptions.keyFile) {
            throw .usage("Give either '--key <key>' or '--key-file <file>', not both.")
        }
        if let key = try arguments[CommonOptions.key] { return key }
        guard let path = try arguments[CommonOptions.keyFile] else { return nil }
        var bytes = try context.readFile(path, limit: 64 * 1024)
        defer { bytes.withUnsafeMutableBytes { for i in $0.indices { $0[i] = 0 } } }
        let text = String(decoding: bytes, as: UTF8.self)
        var keyText = Substring(text)
        if trimmingWhitespace(text).hasPrefix("{") {
            guard case let .object(object)? = try? JSONParser.parse(bytes), let key = object["key"]?.stringValue else {
                throw .failure(
                    "'\(path)' is JSON without a \"key\" string",
                    hints: "a key file holds a base64url key, or the output of 'pushseal keygen'")
            }
            keyText = Substring(key)
        }
        do throws(ValueError) {
            return try conversationKey(fromBase64URL: keyText)
        } catch {
            throw .failure("'\(path)' does not hold a valid key: \(error.reason)", hints: "create one with: pushseal keygen > \(path)")
        }
    }

    /// `text` without leading and trailing spaces, tabs, CR and LF.
    static func trimmingWhitespace(_ text: some StringProtocol) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        let string = Substring(text)
        guard let start = string.firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = string.lastIndex(where: { !isSpace($0) })!
        return string[start...end]
    }
}
