import PushSealCommands
import PushSealCLIKit
import PushSealKeyDirectory
import PushSealKeyDirectoryPostgreSQL

extension Backends {
    /// Every backend: the PostgreSQL key directory (libpq) and delivery over HTTP/2 (libcurl).
    /// The companion `pushseal-full` runs the command tree with these, and so does `pushseal`
    /// itself where everything links (macOS).
    package static let all = Backends(
        postgreSQL: PostgreSQLBackend(
            open: { (uri, masterKeyFile, create, clock) throws(KeyDirectoryError) in
                let directory = try PostgreSQLKeyDirectory(
                    uri: uri, masterKey: .keyFile(path: masterKeyFile, createIfMissing: create), create: create, clock: clock)
                return (directory, directory.createdSchema)
            },
            listeningCache: { (directory, timeToLive) throws(KeyDirectoryError) in
                guard let directory = directory as? PostgreSQLKeyDirectory else {
                    throw .invalidArgument("a listening key cache needs a PostgreSQL key directory")
                }
                return try PostgreSQLKeyProvider(directory: directory, timeToLive: timeToLive)
            },
            schemaVersion: PostgreSQLKeyDirectory.supportedSchemaVersion,
            redacted: { uri in (try? ConnectionURI(uri))?.description ?? "<connection URI>" }),
        delivery: DeliveryBackend(run: { (configuration, readiness, input) throws(CLIError) in
            try SendDelivery.run(configuration, readiness: readiness, input: input)
        }))
}
