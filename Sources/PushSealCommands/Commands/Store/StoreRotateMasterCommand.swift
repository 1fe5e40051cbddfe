import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealJSON

/// `pushseal store rotate-master`.
enum StoreRotateMasterCommand {
    static let newMasterKeyFile = Option<FilePath>(
        "new-master-key-file", valueName: "file", abstract: "The new master key (created 0600 if missing).")

    static let spec = CommandSpec(
        name: "rotate-master",
        abstract: "Seal every key again under a new master key, in one transaction.",
        discussion: """
            Loads the new master key from --new-master-key-file (creating it 0600 when it does \
            not exist), then seals every key, every identity (device key, provider keys, pinned \
            keys), every epoch record and the master-key verifier again under it, all in one \
            transaction: a failure changes nothing; then it clears the duplicate log (its \
            entries are keyed by the old master key). Prints {"clearedDeliveries":N, \
            "newMasterKeyFile":…, "resealedIdentities":N, "resealedKeys":N} (one line).

            From then on the store opens only with the new key: pass --master-key-file with it \
            (or move it over the old file), and destroy the old key file. Only then does a copy \
            of the store made earlier — holding keys purged since — stop opening: a purge is \
            durable once the master key it was made under is gone (Docs/KEY-STORE.md §8).

            --dir may be a postgresql:// URI (with --master-key-file): every key and epoch \
            record of the directory is sealed again in one server transaction; other nodes \
            still on the old key then fail as locked until they are given the new one. On \
            PostgreSQL a purge is durable only once dead tuples are vacuumed and WAL, archives, \
            replicas and backups holding the old rows are gone or were made under the old key \
            alone (Docs/KEY-STORE.md §9).
            """,
        options: StoreCommand.locationOptions + [
            newMasterKeyFile,
        ],
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let location = try StoreCommand.location(context, acceptsURI: true)
        let newKeyFile = try arguments[Self.newMasterKeyFile].path
        if newKeyFile == location.masterKeyFile {
            throw arguments.invalidValue(Self.newMasterKeyFile, reason: "it is the store's current master key file")
        }
        let store = try StoreCommand.openDirectory(location)
        let rotation = try StoreCommand.run(location) { () throws(KeyDirectoryError) in
            try store.rotateMasterKey(to: .keyFile(path: newKeyFile, createIfMissing: true))
        }
        context.note(
            "the store is now sealed under \(newKeyFile): use --master-key-file \(ShellQuoting.quote(newKeyFile)) "
                + "(or move it over \(location.masterKeyFile)), then destroy the old key file"
                + (location.isConnectionURI ? "; every node must switch to the new key, and a purge is durable only once the server's old copies are gone too (Docs/KEY-STORE.md §9)" : ""))

        var writer = JSONWriter(capacity: 160)
        writer.appendRaw("{\"clearedDeliveries\":")
        writer.appendInteger(Int64(rotation.clearedDeliveries))
        writer.appendRaw(",\"newMasterKeyFile\":")
        writer.appendString(newKeyFile)
        writer.appendRaw(",\"resealedIdentities\":")
        writer.appendInteger(Int64(rotation.resealedIdentities))
        writer.appendRaw(",\"resealedKeys\":")
        writer.appendInteger(Int64(rotation.resealedKeys))
        writer.appendRaw("}\n")
        context.write(bytes: writer.bytes)
        return .success
    }
}
