import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealJSON

/// `pushseal store device`: the devices registered with a provider's key directory (SQLite or
/// PostgreSQL), by which `bundle seal`, `seal` and `send` seal to a device by its id alone.
enum StoreDeviceCommand {
    static let spec = CommandSpec(
        name: "device",
        abstract: "Manage the devices registered with the key directory: register, list, revoke.",
        discussion: """
            A registration is the device's public key (the JSON 'pushseal device init' or \
            'pushseal device show' prints), kept authenticated under the master key. A \
            registered device is sealed to by its device key id: 'bundle seal --registration \
            <id>', 'seal --registration <id>', and per-device keys ('seal --device', a 'send' \
            line's "device"). A revoked device is never sealed to again, and once a directory \
            has a registration, a per-device seal for an unregistered id is refused too. --dir \
            may be a PostgreSQL connection URI.
            """,
        subcommands: [registerSpec, listSpec, revokeSpec])

    static let registerSpec = CommandSpec(
        name: "register",
        abstract: "Register a device from its registration JSON; print its line.",
        discussion: "Prints {\"id\":…,\"publicKey\":…,\"createdAt\":…,\"revokedAt\":null}. Registering a device again changes nothing.",
        options: StoreCommand.locationOptions + [BundleCommand.registrationFile.required()],
        run: runRegister)

    static let listSpec = CommandSpec(
        name: "list",
        abstract: "List the registered devices, oldest first, revoked ones included.",
        discussion: "One JSON object per line: {\"id\":…,\"publicKey\":…,\"createdAt\":…,\"revokedAt\":…}.",
        options: StoreCommand.locationOptions,
        run: runList)

    static let revokeSpec = CommandSpec(
        name: "revoke",
        abstract: "Revoke a registered device by its device key id: nothing is sealed to it any more.",
        options: StoreCommand.locationOptions + [id],
        run: runRevoke)

    /// `--id <id>` of `revoke`.
    static let id = Option<KeyID?>(
        "id", valueName: "id", abstract: "The device key id (base64url).", parse: ArgumentDecoding.keyID("id")).required()

    static func line(_ device: RegisteredDevice) -> String {
        var writer = JSONWriter()
        writer.append(.object(JSONObject(members: [
            .init(name: "id", value: .string(device.id.base64URL)),
            .init(name: "publicKey", value: .string(Base64URL.encode(device.publicKey))),
            .init(name: "createdAt", value: .number(String(device.createdAt))),
            .init(name: "revokedAt", value: device.revokedAt.map { .number(String($0)) } ?? .null),
        ])))
        return writer.text + "\n"
    }

    static func runRegister(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context, acceptsURI: true)
        guard let registration = try BundleCommand.registrationFromFile(context) else { throw .usage("'--registration <file>' is required.") }
        let directory = try StoreCommand.openDirectory(location)
        do throws(KeyDirectoryError) {
            context.write(line(try directory.registerDevice(registration)))
        } catch let .invalidArgument(why) {
            throw .failure(why, hints: "the device makes a new device key with a logout wipe (pushseal store remove --all on its store), then registers that")
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
        return .success
    }

    static func runList(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context, acceptsURI: true)
        let directory = try StoreCommand.openDirectory(location)
        for device in try StoreCommand.run(location, { () throws(KeyDirectoryError) in try directory.registeredDevices() }) {
            context.write(line(device))
        }
        return .success
    }

    static func runRevoke(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let location = try StoreCommand.location(context, acceptsURI: true)
        let id = try context.arguments[Self.id]
        let directory = try StoreCommand.openDirectory(location)
        do throws(KeyDirectoryError) {
            context.write(line(try directory.revokeDevice(id: id)))
        } catch .itemNotFound {
            throw .failure("no registered device with id \(id) in \(location.displayName)",
                           hints: "pushseal store device list \(location.commandLineOptions) lists them")
        } catch {
            throw KeyStoreDiagnostics.error(error, location: location)
        }
        return .success
    }
}
