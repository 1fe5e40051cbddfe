import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealJSON

/// `pushseal device`: the device identity of a device store (SPEC §16.1).
enum DeviceCommand {
    static let spec = CommandSpec(
        name: "device",
        abstract: "Manage a device store's identity for key bundles: init, show, pin.",
        discussion: """
            A device key is an X25519 key pair whose private half is sealed at rest in the \
            device store like every key. Its registration (suite, device key id, public key) is \
            what the app sends to its backend next to its push token; the backend seals key \
            bundles to it ('pushseal bundle seal'). The device accepts only bundles from provider \
            keys it pinned ('pushseal device pin').
            """,
        subcommands: [initSpec, showSpec, pinSpec])

    static let initSpec = CommandSpec(
        name: "init",
        abstract: "Create the device store (if needed) and its device key; print the registration.",
        discussion: """
            Prints the registration JSON {"suite":…,"deviceKeyId":…,"publicKey":…}. A store \
            has one device key: init fails when it already has one ('device show' prints it).
            """,
        options: StoreCommand.locationOptions,
        run: runInit)

    static let showSpec = CommandSpec(
        name: "show",
        abstract: "Print the device store's registration JSON and its pinned provider keys.",
        discussion: """
            Prints the registration on the first line; with --json one object \
            {"registration":…,"pinnedProviderKeys":[{"id":…,"publicKey":…},…]}.
            """,
        options: StoreCommand.locationOptions + [CommonOptions.json],
        run: runShow)

    static let pinSpec = CommandSpec(
        name: "pin",
        abstract: "Pin a provider public key: bundles sealed with it are accepted.",
        discussion: """
            The provider public key comes from 'pushseal store provider-key create|list' on the \
            key directory, delivered over the app's authenticated login channel, never through \
            the push service. Pinning a key again changes nothing. A point of small order (the \
            all-zero key, an order-8 point) and the store's own device key are refused. Prints \
            {"providerKeyId":…}.
            """,
        options: StoreCommand.locationOptions + [
            providerKey,
        ],
        run: runPin)

    static func runInit(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context)
        let store = try StoreCommand.run(location) { () throws(KeyDirectoryError) in
            try DeviceKeyStore(directory: location.directory, masterKey: .keyFile(path: location.masterKeyFile, createIfMissing: true), create: true)
        }
        do throws(KeyDirectoryError) {
            let registration = try store.createDeviceKey()
            context.write(registration.json + "\n")
            return .success
        } catch .duplicateItem {
            throw .failure(
                "the device store in \(location.directory) already has a device key",
                hints: "pushseal device show \(location.commandLineOptions) prints its registration")
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
    }

    static func runShow(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context)
        let store = try StoreCommand.open(location)
        let registration: DeviceRegistration
        do throws(KeyDirectoryError) {
            registration = try store.deviceRegistration()
        } catch .itemNotFound {
            throw .failure(
                "the store in \(location.directory) has no device key",
                hints: "create it with: pushseal device init \(location.commandLineOptions)",
                "a provider's key directory has provider keys instead: pushseal store provider-key list \(location.commandLineOptions)")
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
        let pinned = try StoreCommand.run(location) { () throws(KeyDirectoryError) in try store.pinnedProviderKeys() }
        if context.arguments[CommonOptions.json] {
            var writer = JSONWriter()
            writer.appendRaw("{\"registration\":")
            writer.appendRaw(bytes: registration.json.utf8)
            writer.appendRaw(",\"pinnedProviderKeys\":")
            writer.append(.array(pinned.map { key in
                .object(JSONObject(members: [
                    .init(name: "id", value: .string(KeyBundle.providerKeyID(of: key).base64URL)),
                    .init(name: "publicKey", value: .string(Base64URL.encode(key))),
                ]))
            }))
            writer.appendRaw("}\n")
            context.write(bytes: writer.bytes)
        } else {
            context.write(registration.json + "\n")
            for key in pinned { context.write("pinned provider key \(KeyBundle.providerKeyID(of: key)) \(Base64URL.encode(key))\n") }
        }
        return .success
    }

    /// `--provider-key <key>` of `pin`: a provider public key.
    static let providerKey = Option<[UInt8]?>(
        "provider-key", valueName: "key", abstract: "The provider public key (32 bytes, base64url; surrounding whitespace ignored)."
    ) { (text) throws(ValueError) -> [UInt8] in
        let bytes = try ArgumentDecoding.base64URL(text)
        guard bytes.count == IdentityKeyPair.byteCount else {
            throw ValueError("decodes to \(bytes.count) bytes; a provider public key is exactly \(IdentityKeyPair.byteCount)")
        }
        return bytes
    }.required()

    static func runPin(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context)
        let publicKey = try context.arguments[Self.providerKey]
        let store = try StoreCommand.open(location)
        let id: KeyID
        do throws(KeyDirectoryError) {
            id = try store.pinProviderKey(publicKey)
        } catch let .invalidArgument(why) {
            throw .failure(
                "cannot pin this provider key: \(why)",
                hints: "pin the public key that 'pushseal store provider-key list' prints on the provider's key directory")
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
        context.write("{\"providerKeyId\":\"\(id.base64URL)\"}\n")
        return .success
    }
}
