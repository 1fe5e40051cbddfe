import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealJSON

/// `pushseal store provider-key`: the key directory's own X25519 key pairs (SPEC §16.1), on
/// SQLite or PostgreSQL.
enum StoreProviderKeyCommand {
    static let spec = CommandSpec(
        name: "provider-key",
        abstract: "Manage the key directory's provider key pairs (for sealing key bundles): create, promote, list, remove.",
        discussion: """
            A provider key seals key bundles (HPKE auth mode); devices pin its public key. The \
            first key pair 'create' makes is the current one at once; a later one is not used \
            for bundles until 'promote' makes it current, so devices can pin it first ('create \
            --promote' does both in one step). Older ones stay until removed, so bundles sealed \
            with them keep working; the current one is removed only when it is the last one. \
            Private halves never leave the directory. --dir may be a PostgreSQL connection URI.
            """,
        subcommands: [createSpec, promoteSpec, listSpec, removeSpec])

    static let createSpec = CommandSpec(
        name: "create",
        abstract: "Create a provider key pair; print its id, public key and whether it is current.",
        discussion: """
            Prints {"id":…,"publicKey":…,"createdAt":…,"current":…}. The directory's first key \
            pair is current at once; a later one once promoted ('store provider-key promote', or \
            --promote here).
            """,
        options: StoreCommand.locationOptions + [
            promote,
        ],
        run: runCreate)

    static let promoteSpec = CommandSpec(
        name: "promote",
        abstract: "Make a provider key pair the current one: bundles are sealed with it from now on.",
        discussion: "Pin its public key on the devices first ('pushseal device pin'). Prints its list line.",
        options: StoreCommand.locationOptions + [id],
        run: runPromote)

    static let listSpec = CommandSpec(
        name: "list",
        abstract: "List the provider keys, oldest first, and which one is current.",
        discussion: "One JSON object per line: {\"id\":…,\"publicKey\":…,\"createdAt\":…,\"current\":…}.",
        options: StoreCommand.locationOptions,
        run: runList)

    static let removeSpec = CommandSpec(
        name: "remove",
        abstract: "Remove a provider key pair by its id (the current one only when it is the last one).",
        options: StoreCommand.locationOptions + [id],
        run: runRemove)

    static let id = Option<KeyID?>(
        "id", valueName: "id", abstract: "The provider key id (base64url).", parse: ArgumentDecoding.keyID("id")).required()

    static let promote = Flag(
        "promote", abstract: "Make the new key pair the current one at once (only when every device pins it already).")

    static func line(_ info: ProviderKeyInfo, current: Bool?) -> String {
        var members: [JSONObject.Member] = [
            .init(name: "id", value: .string(info.id.base64URL)),
            .init(name: "publicKey", value: .string(Base64URL.encode(info.publicKey))),
            .init(name: "createdAt", value: .number(String(info.createdAt))),
        ]
        if let current { members.append(.init(name: "current", value: .bool(current))) }
        var writer = JSONWriter()
        writer.append(.object(JSONObject(members: members)))
        return writer.text + "\n"
    }



    /// The error for an `--id` that names no provider key of the directory (promote, remove).
    private static func noProviderKey(_ id: KeyID, in location: StoreCommand.Location) -> CLIError {
        .failure("no provider key with id \(id) in \(location.displayName)",
                 hints: "pushseal store provider-key list \(location.commandLineOptions) lists them")
    }

    /// The directory's current provider key id, nil when it has none (a warning when it is missing).
    private static func current(_ directory: any KeyDirectory, _ context: inout CommandContext) -> KeyID? {
        do throws(KeyDirectoryError) {
            return try directory.providerKey(id: nil).providerKeyID
        } catch .itemNotFound {
            return nil
        } catch {
            context.warn("no current provider key: \(error)")
            return nil
        }
    }

    static func runCreate(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context, acceptsURI: true)
        let directory = try StoreCommand.openDirectory(location)
        let info = try StoreCommand.run(location) { () throws(KeyDirectoryError) in try directory.createProviderKey() }
        if context.arguments[Self.promote] {
            try StoreCommand.run(location) { () throws(KeyDirectoryError) in try directory.promoteProviderKey(id: info.id) }
        }
        let isCurrent = current(directory, &context) == info.id
        context.write(line(info, current: isCurrent))
        if !isCurrent {
            context.note(
                "provider key \(info.id) is not used for bundles yet: pin it on the devices, then run: pushseal store provider-key promote \(location.commandLineOptions) --id \(info.id.base64URL)")
        }
        return .success
    }

    static func runPromote(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context, acceptsURI: true)
        let id = try context.arguments[Self.id]
        let directory = try StoreCommand.openDirectory(location)
        do throws(KeyDirectoryError) {
            try directory.promoteProviderKey(id: id)
        } catch .itemNotFound {
            throw noProviderKey(id, in: location)
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
        let keys = try StoreCommand.run(location) { () throws(KeyDirectoryError) in try directory.providerKeys() }
        for info in keys where info.id == id { context.write(line(info, current: true)) }
        return .success
    }

    static func runList(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context, acceptsURI: true)
        let directory = try StoreCommand.openDirectory(location)
        let keys = try StoreCommand.run(location) { () throws(KeyDirectoryError) in try directory.providerKeys() }
        // Current is what `bundle seal` uses (the recorded key), never merely the newest row.
        let current = current(directory, &context)
        for info in keys { context.write(line(info, current: info.id == current)) }
        return .success
    }

    static func runRemove(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context, acceptsURI: true)
        let id = try context.arguments[Self.id]
        let directory = try StoreCommand.openDirectory(location)
        do throws(KeyDirectoryError) {
            try directory.removeProviderKey(id: id)
        } catch .itemNotFound {
            throw noProviderKey(id, in: location)
        } catch let .invalidArgument(why) {
            throw .failure(why, hints: "promote another one first: pushseal store provider-key promote \(location.commandLineOptions) --id <id>")
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
        return .success
    }
}
