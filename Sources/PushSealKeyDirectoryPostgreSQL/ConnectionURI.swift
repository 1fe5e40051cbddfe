import PushSealKeyDirectory

/// A PostgreSQL connection URI (`postgresql://…` or `postgres://…`), handed to libpq as it is
/// (TLS parameters such as `sslmode`, `sslrootcert`, `sslcert` included), and its redacted form
/// for diagnostics: no message of this module ever contains the password.
public struct ConnectionURI: Sendable, CustomStringConvertible {
    /// The URI as given (with its password, if any): only ever passed to libpq.
    let text: String

    /// Whether `text` names a PostgreSQL server rather than a store directory: it starts with
    /// `postgresql://` or `postgres://`. The CLI and the initializers choose the backend by this.
    public static func isConnectionURI(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// A URI; `KeyDirectoryError.invalidArgument(_:)` unless it starts with `postgresql://` or
    /// `postgres://` (libpq checks the rest when connecting, reported as
    /// `KeyDirectoryError.serverUnavailable(_:)` without the password).
    public init(_ text: String) throws(KeyDirectoryError) {
        guard Self.isConnectionURI(text) else {
            throw .invalidArgument("a key directory connection URI starts with postgresql:// or postgres://")
        }
        guard !text.utf8.contains(0) else { throw .invalidArgument("the connection URI contains a NUL byte") }
        self.text = text
    }

    /// The URI with its password (in the user information or a `password=` parameter) replaced by `***`.
    public var description: String { redact(text) }

    /// Every secret this URI holds (the password, raw and percent-encoded as written).
    var secrets: [String] {
        var found: [String] = []
        let afterScheme = text.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        if afterScheme.count == 3 {
            let authority = afterScheme[2].prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@") {
                let userInfo = authority[..<at]
                if let colon = userInfo.firstIndex(of: ":") {
                    let password = String(userInfo[userInfo.index(after: colon)...])
                    if !password.isEmpty { found.append(password) }
                }
            }
        }
        if let query = text.split(separator: "?", maxSplits: 1).dropFirst().first {
            for pair in query.split(separator: "&") where pair.hasPrefix("password=") {
                let password = String(pair.dropFirst("password=".count))
                if !password.isEmpty { found.append(password) }
            }
        }
        for secret in found {
            let decoded = Self.percentDecoded(secret)
            if decoded != secret { found.append(decoded) }
        }
        return found.sorted { $0.count > $1.count }
    }

    /// `message` with every secret of this URI replaced by `***`.
    func redact(_ message: String) -> String {
        var result = message
        for secret in secrets { result = result.replacingAll(secret, with: "***") }
        return result
    }

    private static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
               let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    /// Every occurrence of `target` replaced by `replacement` (no Foundation).
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        let source = Array(utf8), pattern = Array(target.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(source.count)
        var index = 0
        while index < source.count {
            if index + pattern.count <= source.count, source[index..<(index + pattern.count)].elementsEqual(pattern) {
                output += replacement.utf8
                index += pattern.count
            } else {
                output.append(source[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
