import PushSealCLIKit
import PushSealCore
import PushSealKeyStore
import PushSealJSON

/// `pushseal bundle`: key bundles, a conversation key sealed to one device (SPEC §16).
enum BundleCommand {
    static let spec = CommandSpec(
        name: "bundle",
        abstract: "Seal a conversation key to a device as a key bundle, or install one into a device store.",
        discussion: """
            A key bundle carries one conversation key (one conversation and epoch) sealed with \
            HPKE auth mode from the key directory's provider key to one device key. The same \
            bytes travel out of band (the app's API) or in band (the "pushseal-bundle" member of \
            a payload: 'pushseal seal --registration'). 'pushseal inspect --bundle' explains one \
            without any key.
            """,
        subcommands: [sealSpec, installSpec])

    static let sealSpec = CommandSpec(
        name: "seal",
        abstract: "Seal a conversation's key from a key directory to a device registration; print the bundle.",
        discussion: """
            Takes the conversation's current key (or --epoch's), its not-after time, and the \
            directory's current provider key (or --provider-key-id's), and prints the bundle \
            text (base64url) and a newline. The registration is the JSON 'pushseal device init' \
            printed on the device.
            """,
        options: StoreCommand.locationOptions + [
            CommonOptions.conversation.required(),
            StoreCommand.epoch,
            registration.required(),
            .option("provider-key-id", valueName: "id", abstract: "Seal with this provider key (default: the current one)."),
            CommonOptions.now,
        ],
        run: runSeal)

    static let installSpec = CommandSpec(
        name: "install",
        abstract: "Check a key bundle and install its key into a device store.",
        discussion: """
            Runs the device's checks (SPEC §16.5) and installs the key; installing the same \
            bundle again changes nothing. Prints {"outcome":"installed"|"already_installed",\
            "conversation":…,"epoch":…,"kid":…}. A refused bundle is an error naming its reason \
            code (malformed_bundle, unsupported_bundle_version, wrong_device, unknown_provider, \
            bundle_authentication_failed, kid_mismatch, bundle_expired, conflicting_key, \
            store_locked), exit status 1.
            """,
        arguments: [CommonOptions.inputFile("bundle text")],
        options: StoreCommand.locationOptions + [CommonOptions.now],
        run: runInstall)

    /// `--registration <file>`: a device registration JSON file ('-': standard input).
    static let registration = OptionSpec.option(
        "registration", valueName: "file", abstract: "The device's registration JSON ('pushseal device init'), '-' for standard input.")

    /// Reads and checks `--registration`, or nil when absent.
    static func registration(_ context: CommandContext) throws(CLIError) -> DeviceRegistration? {
        guard let path = context.arguments.value("registration") else { return nil }
        let bytes = try context.readInput(from: path, what: "device registration")
        do throws(KeyBundleSealingError) {
            return try DeviceRegistration(json: bytes)
        } catch {
            throw .failure("\(error)", hints: "the registration is the JSON printed by 'pushseal device init' or 'pushseal device show'")
        }
    }

    /// Seals the key of `conversation` (current, or `epoch`) from the store at `location` to
    /// `registration` with the store's provider key (current, or `providerKeyID`).
    static func seal(
        store: KeyStore, location: StoreCommand.Location, conversation: String, epoch: Int64?, providerKeyID: KeyID?,
        registration: DeviceRegistration
    ) throws(CLIError) -> (bundle: KeyBundle, stored: StoredKey) {
        let (stored, provider) = try StoreCommand.run(location) { () throws(KeyStoreError) -> (StoredKey, IdentityKeyPair) in
            let stored: StoredKey
            if let epoch {
                guard let item = try store.items(conversation: conversation).first(where: { $0.epoch == epoch }) else { throw .itemNotFound }
                stored = try store.key(for: item.keyID)
            } else {
                stored = try store.currentKey(conversation: conversation)
            }
            return (stored, try store.providerKey(id: providerKeyID))
        }
        do throws(KeyBundleSealingError) {
            let bundle = try KeyBundle.seal(
                stored.key, conversation: conversation, epoch: stored.item.epoch, notAfter: stored.item.notAfter, provider: provider,
                devicePublicKey: registration.publicKey)
            return (bundle, stored)
        } catch {
            throw .failure("\(error)")
        }
    }

    static func runSeal(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let location = try StoreCommand.location(arguments)
        let conversation = try StoreCommand.conversation(arguments)!
        let epoch = try StoreCommand.epoch(arguments)
        let providerKeyID = try arguments.value("provider-key-id") { (text) throws(ValueError) -> KeyID in
            guard let id = KeyID(base64URL: text) else { throw ValueError("not a 16-byte base64url id") }
            return id
        }
        let registration = try registration(context)!
        let store = try StoreCommand.open(location, clock: StoreCommand.clock(try StoreCommand.now(arguments)))
        let (bundle, _) = try seal(
            store: store, location: location, conversation: conversation, epoch: epoch, providerKeyID: providerKeyID, registration: registration)
        context.write(bundle.text + "\n")
        return .success
    }

    /// The bundle text of an input: its bytes without surrounding whitespace.
    static func bundleText(_ input: [UInt8]) -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        let trimmed = input.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        return String(decoding: trimmed, as: UTF8.self)
    }

    static func runInstall(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context.arguments)
        let now = try StoreCommand.now(context.arguments)
        let input = try context.readInput(from: context.arguments.argument("file"), what: "bundle text", limit: 4096)
        let store = try StoreCommand.open(location, clock: StoreCommand.clock(now))
        do throws(KeyBundleError) {
            let bundle = try KeyBundle(text: bundleText(input))
            let (outcome, conversation) = try store.installReportingConversation(bundle)
            var writer = JSONWriter()
            writer.append(.object(JSONObject(members: [
                .init(name: "outcome", value: .string(outcome.rawValue)),
                .init(name: "conversation", value: .string(conversation)),
                .init(name: "epoch", value: .number(String(bundle.header.epoch))),
                .init(name: "kid", value: .string(bundle.header.keyID.base64URL)),
            ])))
            context.write(writer.text + "\n")
            return .success
        } catch {
            throw .failure(Diagnostic("key bundle refused (\(error.reason.rawValue)): \(error)", hints: hints(for: error, location: location)))
        }
    }

    static func hints(for error: KeyBundleError, location: StoreCommand.Location) -> [String] {
        switch error {
        case .wrongDevice: ["the bundle was sealed to another device's registration; 'pushseal device show \(location.commandLineOptions)' prints this one's"]
        case .unknownProvider: ["pin the provider's public key first: pushseal device pin \(location.commandLineOptions) --provider-key <key>"]
        case .storeLocked: ["a device store needs a device key: pushseal device init \(location.commandLineOptions)"]
        default: []
        }
    }
}
