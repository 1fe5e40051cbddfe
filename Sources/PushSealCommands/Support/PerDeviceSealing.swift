import PushSealCLIKit
import PushSealCore
import PushSealKeyStore

/// The rules of sealing per device on the provider (SPEC §16.9): which device a seal is for, and
/// which epochs may be the root of per-device keys.
enum PerDeviceSealing {
    /// The one place where a device key id given to the provider (`seal --device`, a JSON line's
    /// `device`) is checked against the key directory's device registrations. The directory's
    /// registration table (register/list/revoke) plugs in here; until then every well-formed id
    /// is accepted, and the sealing key is derived from it alone.
    static func checkRegistration(_ deviceKeyID: KeyID, store: KeyStore, location: StoreCommand.Location) throws(CLIError) -> KeyID {
        deviceKeyID
    }

    /// Refuses an epoch created before per-device keys: its K may have gone out in format-1
    /// bundles to every member, so device keys derived from it would be no secret among them.
    static func requirePerDevice(store: KeyStore, location: StoreCommand.Location, item: KeyItem) throws(CLIError) {
        let shared = try StoreCommand.run(location) { () throws(KeyStoreError) -> Bool in
            try store.isSharedEpoch(conversation: item.conversation, epoch: item.epoch)
        }
        guard shared else { return }
        throw .failure(Diagnostic(
            "epoch \(item.epoch) of \(item.conversation) was created before per-device keys (its key went out in format-1 bundles); it cannot be sealed per device",
            hints: ["rotate the conversation first: pushseal store rotate \(location.commandLineOptions) --conversation <id>, then seal the new epoch per device"]))
    }
}
