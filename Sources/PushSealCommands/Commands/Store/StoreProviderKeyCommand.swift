import PushSealCLIKit
import PushSealCore
import PushSealKeyStore
import PushSealJSON

/// `pushseal store provider-key`: the key directory's own X25519 key pairs (SPEC §16.1).
enum StoreProviderKeyCommand {
    static let spec = CommandSpec(
        name: "provider-key",
        abstract: "Manage the key directory's provider key pairs (for sealing key bundles): create, list, remove.",
        discussion: """
            A provider key seals key bundles (HPKE auth mode); devices pin its public key. \
            'create' adds a key pair that becomes the current one; older ones stay until \
            removed, so devices can pin the new key before bundles use it. Private halves never \
            leave the store.
            """,
        subcommands: [createSpec, listSpec, removeSpec])

    static let createSpec = CommandSpec(
        name: "create",
        abstract: "Create a provider key pair (the new current one); print its id and public key.",
        discussion: "Prints {\"id\":…,\"publicKey\":…,\"createdAt\":…}.",
        options: StoreCommand.locationOptions,
        run: runCreate)

    static let listSpec = CommandSpec(
        name: "list",
        abstract: "List the provider keys, oldest first; the last is current.",
        discussion: "One JSON object per line: {\"id\":…,\"publicKey\":…,\"createdAt\":…,\"current\":…}.",
        options: StoreCommand.locationOptions,
        run: runList)

    static let removeSpec = CommandSpec(
        name: "remove",
        abstract: "Remove a provider key pair by its id.",
        options: StoreCommand.locationOptions + [
            .option("id", valueName: "id", abstract: "The provider key id (base64url).", required: true),
        ],
        run: runRemove)

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

    static func runCreate(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context.arguments)
        let store = try StoreCommand.open(location)
        let info = try StoreCommand.run(location) { () throws(KeyStoreError) in try store.createProviderKey() }
        context.write(line(info, current: nil))
        return .success
    }

    static func runList(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context.arguments)
        let store = try StoreCommand.open(location)
        let keys = try StoreCommand.run(location) { () throws(KeyStoreError) in try store.providerKeys() }
        // Current is what `bundle seal` uses (the recorded key), never merely the newest row.
        var current: KeyID?
        do throws(KeyStoreError) {
            current = try store.providerKey().providerKeyID
        } catch .itemNotFound {
            current = nil
        } catch {
            context.warn("no current provider key: \(error)")
        }
        for info in keys { context.write(line(info, current: info.id == current)) }
        return .success
    }

    static func runRemove(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context.arguments)
        let id = try context.arguments.value("id") { (text) throws(ValueError) -> KeyID in
            guard let id = KeyID(base64URL: text) else { throw ValueError("not a 16-byte base64url id") }
            return id
        }!
        let store = try StoreCommand.open(location)
        do throws(KeyStoreError) {
            try store.removeProviderKey(id: id)
        } catch .itemNotFound {
            throw .failure("no provider key with id \(id) in \(location.directory)",
                           hints: "pushseal store provider-key list \(location.commandLineOptions) lists them")
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
        return .success
    }
}
