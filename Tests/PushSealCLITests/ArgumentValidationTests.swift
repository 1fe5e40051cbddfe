import Foundation
import PushSealCore
import Testing

/// Checks that `seal`, `open` and `store` make before reading any input: these stay true when
/// the commands are wired in, so they are not part of NotYetWiredTests.
@Suite struct ArgumentValidationTests {
    let key = Fixtures.keyBase64URL

    @Test func sealNeedsAKeySource() throws {
        expectUsageError(try runPushSeal(["seal"]), command: "pushseal seal",
                         message: "Missing key: give '--key <key>', '--key-file <file>', or '--store <dir>'.")
        expectUsageError(try runPushSeal(["seal", "--store", "keys", "--key", key, "--conversation", "c"]), command: "pushseal seal",
                         message: "Give either a key (--key, --key-file) or '--store <dir>', not both.")
        expectUsageError(try runPushSeal(["seal", "--key", key, "--key-file", "k"]), command: "pushseal seal",
                         message: "Give either '--key <key>' or '--key-file <file>', not both.")
        expectUsageError(try runPushSeal(["seal", "--key", key, "--master-key-file", "m"]), command: "pushseal seal",
                         message: "'--master-key-file <file>' is only used with '--store <dir>'.")
    }

    @Test func badKeysAreUsageErrors() throws {
        expectUsageError(try runPushSeal(["seal", "--key", "not base64!"]), command: "pushseal seal",
                         message: "The value given for '--key <key>' is invalid: not base64url without padding: character at offset 3 is outside the base64url alphabet")
        expectUsageError(try runPushSeal(["seal", "--key", key + "="]), command: "pushseal seal",
                         message: "The value given for '--key <key>' is invalid: not base64url without padding: padding character '=' at offset 43 (base64url without padding expected)")
        expectUsageError(try runPushSeal(["seal", "--key", Base64URL.encode(Fixtures.keyBytes.prefix(31))]), command: "pushseal seal",
                         message: "The value given for '--key <key>' is invalid: decodes to 31 bytes; a conversation key is exactly 32")
        expectUsageError(try runPushSeal(["open", "--key=", "--conversation", "c"]), command: "pushseal open",
                         message: "The value given for '--key <key>' is invalid: empty")
    }

    @Test func sealSaltAndTransportChecks() throws {
        expectUsageError(try runPushSeal(["seal", "--key", key, "--salt", "AAAA"]), command: "pushseal seal",
                         message: "The value 'AAAA' is invalid for '--salt <salt>': decodes to 3 bytes; a salt is exactly 24")
        let salt = String(repeating: "A", count: 32)
        expectUsageError(try runPushSeal(["seal", "--key", key, "--salt", salt, "--batch"]), command: "pushseal seal",
                         message: "'--salt <salt>' cannot be used with '--batch': every notification needs a fresh salt.")
        expectUsageError(try runPushSeal(["seal", "--key", key, "--fcm-token", "t"]), command: "pushseal seal",
                         message: "'--fcm-token <token>' applies to '--transport fcm' and 'fcm-apns' only.")
    }

    @Test func openNeedsAKeyWithConversationOrAStore() throws {
        expectUsageError(try runPushSeal(["open"]), command: "pushseal open",
                         message: "Missing key: give '--key <key>' (or '--key-file <file>') with '--conversation <cid>', or '--store <dir>'.")
        expectUsageError(try runPushSeal(["open", "--key", key]), command: "pushseal open",
                         message: "Missing expected argument '--conversation <cid>'")
        expectUsageError(try runPushSeal(["open", "--store", "d", "--conversation", "c"]), command: "pushseal open",
                         message: "'--conversation <cid>' goes with '--key'; with '--store' the key's stored conversation is used.")
        expectUsageError(try runPushSeal(["open", "--store", "d", "--now", "soon"]), command: "pushseal open",
                         message: "The value 'soon' is invalid for '--now <unix-time>': not a decimal integer")
    }

    @Test func keyFileProblemsAreRuntimeErrors() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        expectFailure(try runPushSeal(["seal", "--key-file", directory + "/missing.key"]),
                      messagePrefix: "cannot open '\(directory)/missing.key': No such file or directory")
        let short = directory + "/short.key"
        try Data("AAAA\n".utf8).write(to: URL(fileURLWithPath: short))
        expectFailure(try runPushSeal(["seal", "--key-file", short]),
                      messagePrefix: "'\(short)' does not hold a valid key: decodes to 3 bytes", hint: true)
        let json = directory + "/other.json"
        try Data(#"{"kid":"x"}"#.utf8).write(to: URL(fileURLWithPath: json))
        expectFailure(try runPushSeal(["seal", "--key-file", json]),
                      messagePrefix: "'\(json)' is JSON without a \"key\" string", hint: true)
    }

    @Test func storeChecks() throws {
        expectUsageError(try runPushSeal(["store", "get", "--dir", "d"]), command: "pushseal store get",
                         message: "Give '--conversation <cid>' (with an optional '--epoch <n>') or '--kid <kid>'.")
        expectUsageError(try runPushSeal(["store", "get", "--dir", "d", "--kid", "xyz"]), command: "pushseal store get",
                         message: "The value 'xyz' is invalid for '--kid <kid>': not a 16-byte base64url key id")
        expectUsageError(try runPushSeal(["store", "remove", "--dir", "d", "--conversation", "c", "--epoch", "0"]),
                         command: "pushseal store remove", message: "The value '0' is invalid for '--epoch <n>': must be between 1 and 2147483647")
        expectUsageError(try runPushSeal(["store", "init", "--dir="]), command: "pushseal store init",
                         message: "The value '' is invalid for '--dir <dir>': empty path")
    }
}
