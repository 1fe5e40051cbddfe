import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealProvider
import PushSealJSON

/// `pushseal bundle`: key bundles, one device's key sealed to that device (SPEC §16, format 2).
enum BundleCommand {
    static let spec = CommandSpec(
        name: "bundle",
        abstract: "Seal a device's key to it as a key bundle, or install one into a device store.",
        discussion: """
            A key bundle (format 2) carries one device's key K_d, derived from the conversation \
            key K of one conversation and epoch (K itself never leaves the directory), sealed with \
            HPKE auth mode from the key directory's provider key to that device key. The same \
            bytes travel out of band (the app's API) or in band (the "pushseal-bundle" member of \
            a payload: 'pushseal seal --registration'). 'pushseal inspect --bundle' explains one \
            without any key.
            """,
        subcommands: [sealSpec, installSpec])

    static let sealSpec = CommandSpec(
        name: "seal",
        abstract: "Seal a conversation's key from a key directory to a device registration; print the bundle.",
        discussion: """
            Takes the conversation's current key (or --epoch's, which may be retired: it then \
            installs as retired), derives the device's key from it, and seals it with the epoch's \
            since time (its created time), its retire-by time (none while current, else its \
            not-after time) and an expiry of now + --lifetime, with the directory's current \
            provider key (or --provider-key-id's). Prints the bundle text (538 base64url \
            characters) and a newline. The registration is the JSON 'pushseal device init' \
            printed on the device, or the device key id of a device registered in the \
            directory ('pushseal store device register'); a revoked device is refused, and so \
            is an unregistered one once the directory has registrations. --dir may be a \
            PostgreSQL connection URI. An epoch whose key went out in format-1 bundles (created \
            before per-device keys) is refused: rotate the conversation first.
            """,
        options: StoreCommand.locationOptions + [
            StoreCommand.requiredConversation,
            StoreCommand.epoch,
            registration.required(),
            providerKeyID,
            lifetime,
            CommonOptions.now,
        ],
        run: runSeal)

    /// `--provider-key-id <id>`: the provider key to seal with.
    static let providerKeyID = Option<KeyID?>(
        "provider-key-id", valueName: "id", abstract: "Seal with this provider key (default: the current one).",
        parse: ArgumentDecoding.keyID("id"))

    /// `--lifetime <seconds>`: how long the bundle may be installed.
    static let lifetime = Option<Int64?>(
        "lifetime", valueName: "seconds", abstract: "The bundle may be installed for this long (default 2592000, 30 days)."
    ) { (text) throws(ValueError) -> Int64 in
        guard let value = Int64(text), value >= 0 else { throw ValueError("not a number of seconds from 0 to 2^63 - 1") }
        return value
    }

    /// `[<file>]` of `install`.
    static let bundleFile = CommonOptions.inputFile("bundle text")

    static let installSpec = CommandSpec(
        name: "install",
        abstract: "Check a key bundle and install its key into a device store.",
        discussion: """
            Runs the device's checks and installation rules (SPEC §16.5) in one store \
            transaction. Prints {"outcome":…,"conversation":…,"epoch":…,"kid":…}, the outcome \
            being installed, installed_retired or already_installed. A refused bundle is an error naming its reason \
            code (malformed_bundle, unsupported_bundle_version, unknown_provider, \
            bundle_authentication_failed, kid_mismatch, bundle_expired, epoch_purged, \
            epoch_out_of_range, conflicting_key, store_locked), exit status 1.
            """,
        arguments: [bundleFile],
        options: StoreCommand.locationOptions + [CommonOptions.now],
        run: runInstall)

    /// `--registration <file|id>`: a device registration JSON file ('-': standard input), or the
    /// device key id of a device registered in the key directory.
    static let registration = Option<String?>(
        "registration", valueName: "file|id",
        abstract: "The device's registration JSON ('pushseal device init'), '-' for standard input, or a registered device's key id.",
        discussion: "A value that is a device key id (22 base64url characters) names a registered device; write a file of such a name as ./<name>.")

    /// `--registration <file>` of `store device register`: a file only.
    static let registrationFile = Option<String?>(
        "registration", valueName: "file", abstract: "The device's registration JSON ('pushseal device init'), '-' for standard input.")

    /// `--registration` for sealing: the registered device it names (by device key id), or the
    /// registration read from its file, checked against the directory's registrations (a revoked
    /// device, or an unregistered one where devices are registered, is refused); nil when absent.
    static func registration(
        _ context: CommandContext, directory: any KeyDirectory, location: StoreCommand.Location
    ) throws(CLIError) -> DeviceRegistration? {
        guard let value = try context.arguments[Self.registration] else { return nil }
        let registration: DeviceRegistration
        if let id = KeyID(base64URL: value) {
            do throws(KeyDirectoryError) {
                registration = try directory.registeredDevice(id: id).registration
            } catch .itemNotFound {
                throw .failure(
                    "no registered device with id \(id) in the key directory \(location.displayName)",
                    hints: "register it with: pushseal store device register \(location.commandLineOptions) --registration <file>",
                    "a registration file whose name is 22 base64url characters is given as ./<name>")
            } catch {
                throw KeyStoreDiagnostics.error(error, location: location)
            }
        } else {
            registration = try registrationFromFile(context)!
        }
        return registration
    }

    /// Reads and checks `--registration` as a file, or nil when absent.
    static func registrationFromFile(_ context: CommandContext) throws(CLIError) -> DeviceRegistration? {
        guard let path = try context.arguments[Self.registration] else { return nil }
        let bytes = try context.readInput(from: path, what: "device registration")
        do throws(KeyBundleSealingError) {
            return try DeviceRegistration(json: bytes)
        } catch {
            throw .failure("\(error)", hints: "the registration is the JSON printed by 'pushseal device init' or 'pushseal device show'")
        }
    }

    /// Seals the key of `registration`'s device for `conversation` (current epoch, or `epoch`,
    /// retired or not) from the key directory at `location` with its provider key (current, or
    /// `providerKeyID`), by the provider's `KeyBundle.seal(from:…)`: each refusal said as such,
    /// with what to do.
    static func seal(
        store: any KeyDirectory, location: StoreCommand.Location, conversation: String, epoch: Int64?, providerKeyID: KeyID?,
        registration: DeviceRegistration, now: Int64, lifetime: Int64 = KeyBundle.defaultLifetime
    ) throws(CLIError) -> DeviceBundle {
        do throws(DeviceBundleError) {
            return try KeyBundle.seal(
                from: store, conversation: conversation, epoch: epoch, providerKeyID: providerKeyID, device: registration, now: now,
                lifetime: lifetime)
        } catch {
            throw self.error(error, location: location)
        }
    }

    /// The command's error for a bundle the key directory did not seal.
    static func error(_ error: DeviceBundleError, location: StoreCommand.Location) -> CLIError {
        let options = location.commandLineOptions
        switch error {
        case let .deviceNotRegistered(id):
            return .failure(
                "device \(id) is not registered in the key directory \(location.displayName), which registers its devices",
                hints: "register it first: pushseal store device register \(options) --registration <file>")
        case let .deviceNotSealable(_, why):
            return .failure(why, hints: "the device registers a new device key (after a logout wipe) to be sealed to again")
        case let .noKeys(conversation):
            return .failure(
                "conversation \(JSONText.quoted(conversation)) has no keys in the key directory \(location.displayName)",
                hints: "give its first key with: pushseal store rotate \(options) --conversation \(ShellQuoting.quote(conversation))",
                "list the conversations with: pushseal store list \(options)")
        case let .noSuchEpoch(conversation, epoch, epochs):
            return .failure(
                "conversation \(JSONText.quoted(conversation)) has no epoch \(epoch) (its epochs: \(epochs.map(String.init).joined(separator: ", ")))",
                hints: "omit --epoch to deliver the current key, or give one of its epochs")
        case let .noCurrentKey(conversation):
            let quoted = ShellQuoting.quote(conversation)
            return .failure(
                "conversation \(JSONText.quoted(conversation)) has no current key: every epoch is past its not-after time",
                hints: "give it a new epoch with: pushseal store rotate \(options) --conversation \(quoted)",
                "or deliver an earlier epoch with --epoch (see: pushseal store list \(options) --conversation \(quoted))")
        case let .noProviderKey(id?):
            return .failure(
                "the key directory \(location.displayName) has no provider key \(id)",
                hints: "list its provider keys with: pushseal store provider-key list \(options)",
                "or omit --provider-key-id to use the current one")
        case .noProviderKey(nil):
            return .failure(
                "the key directory \(location.displayName) has no provider key to seal key bundles with",
                hints: "create one with: pushseal store provider-key create \(options)",
                "then pin its public key on each device (pushseal device pin) before sealing bundles to it")
        case .sharedEpoch:
            return .failure(Diagnostic(
                "\(error)",
                hints: ["rotate the conversation first: pushseal store rotate \(options) --conversation <id>, then seal the new epoch per device"]))
        case let .invalidLifetime(lifetime):
            return .usage("--lifetime \(lifetime) is negative or runs past 2^63 - 1")
        case let .directory(error):
            return KeyStoreDiagnostics.error(error, location: location)
        case let .sealing(error):
            return .failure("\(error)", hints: "a bundle carries only a conversation id a notification can use (SPEC §5.1: 1 to 256 bytes of UTF-8, no control character U+0000-U+001F) and fields in the ranges of SPEC §16.3")
        }
    }

    static func runSeal(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let location = try StoreCommand.location(context, acceptsURI: true)
        let conversation = try arguments[StoreCommand.requiredConversation]
        let epoch = try arguments[StoreCommand.epoch]
        let providerKeyID = try arguments[Self.providerKeyID]
        let lifetime = try arguments[Self.lifetime] ?? KeyBundle.defaultLifetime
        let clock = StoreCommand.clock(try arguments[CommonOptions.now])
        let store = try StoreCommand.openDirectory(location, clock: clock)
        let registration = try registration(context, directory: store, location: location)!
        let sealed = try seal(
            store: store, location: location, conversation: conversation, epoch: epoch, providerKeyID: providerKeyID, registration: registration,
            now: clock(), lifetime: lifetime)
        context.write(sealed.bundle.text + "\n")
        return .success
    }

    /// The bundle text of an input: its bytes without surrounding whitespace.
    static func bundleText(_ input: [UInt8]) -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        let trimmed = input.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        return String(decoding: trimmed, as: UTF8.self)
    }

    static func runInstall(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context)
        let now = try context.arguments[CommonOptions.now]
        let input = try context.readInput(from: try context.arguments[Self.bundleFile], what: "bundle text", limit: 4096)
        let store = try StoreCommand.open(location, clock: StoreCommand.clock(now))
        do throws(KeyBundleError) {
            let bundle = try KeyBundle(text: bundleText(input))
            let installed = try store.installReportingConversation(bundle)
            context.write(installationJSON(installed) + "\n")
            return .success
        } catch {
            throw .failure(Diagnostic("key bundle refused (\(error.reason.rawValue)): \(error)", hints: hints(for: error, location: location)))
        }
    }

    /// What `install` prints: `{"outcome":…,"conversation":…,"epoch":…,"kid":…}` (one line, no newline).
    static func installationJSON(_ installed: (installation: KeyBundleInstallation, conversation: String, epoch: Int64, keyID: KeyID)) -> String {
        var writer = JSONWriter()
        writer.append(.object(JSONObject(members: [
            .init(name: "outcome", value: .string(installed.installation.rawValue)),
            .init(name: "conversation", value: .string(installed.conversation)),
            .init(name: "epoch", value: .number(String(installed.epoch))),
            .init(name: "kid", value: .string(installed.keyID.base64URL)),
        ])))
        return writer.text
    }

    static func hints(for error: KeyBundleError, location: StoreCommand.Location) -> [String] {
        switch error {
        case .bundleAuthenticationFailed:
            ["the bundle was forged, tampered with, or sealed to another device's registration (or to this device before a logout wipe); 'pushseal device show \(location.commandLineOptions)' prints this one's"]
        case .unsupportedBundleVersion: ["this device reads bundle format 2 only; ask the provider for a new bundle ('pushseal bundle seal')"]
        case .epochPurged: ["this epoch was purged on the device and never comes back; ask the provider for the current epoch's bundle"]
        case .unknownProvider: ["pin the provider's public key first: pushseal device pin \(location.commandLineOptions) --provider-key <key>"]
        case .storeLocked: ["a device store needs a device key: pushseal device init \(location.commandLineOptions)"]
        default: []
        }
    }
}
