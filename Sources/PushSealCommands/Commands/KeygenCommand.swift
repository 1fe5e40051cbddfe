import PushSealCLIKit
import PushSealCore
import PushSealJSON

/// `pushseal keygen`: a fresh conversation key and its key id.
enum KeygenCommand {
    static let spec = CommandSpec(
        name: "keygen",
        abstract: "Generate a conversation key K and print it with its key id.",
        discussion: """
            Prints one line of JSON: {"key":"<K>","kid":"<kid>"}, where K is 32 bytes from the \
            system's CSPRNG and kid = HKDF-Expand-SHA256(K, "pushseal v1 key id", 16), both \
            base64url without padding.

            K is a secret: store it in a key store ('pushseal store add') or a 0600 file, and \
            share it only with the conversation's devices. The kid is public; it travels in \
            every envelope's header.

            Example:
              pushseal keygen > conversation.key && chmod 600 conversation.key
            """,
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let key = ConversationKey.generate()
        var writer = JSONWriter(capacity: 96)
        writer.appendRaw("{\"key\":")
        key.withUnsafeBytes { writer.appendString(Base64URL.encode($0)) }
        writer.appendRaw(",\"kid\":")
        writer.appendString(key.id.base64URL)
        writer.appendRaw("}\n")
        context.write(bytes: writer.bytes)
        return .success
    }
}
