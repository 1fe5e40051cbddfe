import PushSealPlatform
import PushSealKeyDirectory
import PushSealCommands
import PushSealKeyDirectoryPostgreSQL

// `pushseal` with the PostgreSQL key directory: the same command tree (one implementation of
// every command), run by `pushseal` in its place for a `--dir`/`--store` connection URI.
PostgreSQLCompanion.backend = PostgreSQLCompanion.Backend(
    open: { (uri, masterKeyFile, create, clock) throws(KeyDirectoryError) in
        let directory = try PostgreSQLKeyDirectory(
            uri: uri, masterKey: .keyFile(path: masterKeyFile, createIfMissing: create), create: create, clock: clock)
        return (directory, directory.createdSchema)
    },
    redacted: { uri in (try? ConnectionURI(uri))?.description ?? "<connection URI>" })
exit(PushSealTool.tool.main().rawValue)
