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

/// The PostgreSQL key directory as the commands use it: opening it at a URI, a node's
/// listening key cache over it, and the URI's redacted form for messages (never the password).
package struct PostgreSQLBackend: Sendable {
    /// Opens (with `create`, creating the schema and the master key file when missing) the
    /// directory at `uri` under the key in `masterKeyFile`; whether it created the schema.
    package var open: @Sendable (_ uri: String, _ masterKeyFile: String, _ create: Bool, _ clock: @escaping SecondsClock) throws(KeyDirectoryError)
        -> (directory: any KeyDirectory, created: Bool)
    /// A node's current keys from a directory ``open`` returned: cached for at most
    /// `timeToLive` seconds and invalidated by the server's change notifications (LISTEN/NOTIFY,
    /// on a connection of its own, listening when this returns; it stops when the value is
    /// released). Docs/PROVIDER.md §6.1.
    package var listeningCache: @Sendable (_ directory: any KeyDirectory, _ timeToLive: Double) throws(KeyDirectoryError) -> any CurrentKeyProvider
    /// The schema version the directory has (and creates).
    package var schemaVersion: Int64
    /// The URI with its password replaced by `***`.
    package var redacted: @Sendable (_ uri: String) -> String

    /// A backend from its functions.
    package init(
        open: @escaping @Sendable (String, String, Bool, @escaping SecondsClock) throws(KeyDirectoryError) -> (directory: any KeyDirectory, created: Bool),
        listeningCache: @escaping @Sendable (any KeyDirectory, Double) throws(KeyDirectoryError) -> any CurrentKeyProvider,
        schemaVersion: Int64,
        redacted: @escaping @Sendable (String) -> String
    ) {
        self.open = open
        self.listeningCache = listeningCache
        self.schemaVersion = schemaVersion
        self.redacted = redacted
    }
}

extension PostgreSQLBackend {
    /// Why a command on a PostgreSQL key directory cannot run in an executable without it.
    static var missing: CLIError {
        // `pushseal` hands every command line with a URI to its companion before parsing.
        .failure(
            "this executable does not link the PostgreSQL key directory",
            hints: "run the command with pushseal, which runs \(Companion.executableName) for a connection URI")
    }
}

extension CommandContext {
    /// The backends the executable gave at start (none in `pushseal`).
    var backends: Backends { services as? Backends ?? Backends() }

    /// The PostgreSQL key directory's backend, or ``PostgreSQLBackend/missing``.
    func postgreSQLBackend() throws(CLIError) -> PostgreSQLBackend {
        guard let backend = backends.postgreSQL else { throw PostgreSQLBackend.missing }
        return backend
    }
}
