import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory

/// What an executable links in for the commands beyond the static `pushseal`'s own: given once,
/// in its `main`, to ``PushSealTool/main(backends:)``, and read by the commands from their
/// context (``CommandContext/backends``). `pushseal` gives none; its companion
/// (``Companion``) gives every one.
package struct Backends: Sendable {
    /// The provider key directory on PostgreSQL, for a `--dir` / `--store` connection URI.
    package var postgreSQL: PostgreSQLBackend?
    /// Delivery to APNs and FCM over HTTP/2, for `send`.
    package var delivery: DeliveryBackend?

    /// Backends from what the executable links.
    package init(postgreSQL: PostgreSQLBackend? = nil, delivery: DeliveryBackend? = nil) {
        self.postgreSQL = postgreSQL
        self.delivery = delivery
    }
}

/// The PostgreSQL key directory as the commands use it: opening it at a URI, and the URI's
/// redacted form for messages (never the password).
package struct PostgreSQLBackend: Sendable {
    /// Opens (with `create`, creating the schema and the master key file when missing) the
    /// directory at `uri` under the key in `masterKeyFile`; whether it created the schema.
    package var open: @Sendable (_ uri: String, _ masterKeyFile: String, _ create: Bool, _ clock: @escaping SecondsClock) throws(KeyDirectoryError)
        -> (directory: any KeyDirectory, created: Bool)
    /// The URI with its password replaced by `***`.
    package var redacted: @Sendable (_ uri: String) -> String

    /// A backend from its two functions.
    package init(
        open: @escaping @Sendable (String, String, Bool, @escaping SecondsClock) throws(KeyDirectoryError) -> (directory: any KeyDirectory, created: Bool),
        redacted: @escaping @Sendable (String) -> String
    ) {
        self.open = open
        self.redacted = redacted
    }
}

extension CommandContext {
    /// The backends the executable gave at start (none in `pushseal`).
    var backends: Backends { services as? Backends ?? Backends() }
}
