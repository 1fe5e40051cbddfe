import PushSealCore
import PushSealKeyDirectory
internal import PushSealPlatform

/// The receiver's key lookup: found / not found / unavailable, in SPEC §10.2 order.
extension DeviceKeyStore {
    /// The receiver's three-way lookup (found / not found / unavailable); never throws.
    public func lookup(_ id: KeyID) -> KeyLookup {
        do {
            return .found(try key(for: id))
        } catch let error {
            if case .itemNotFound = error { return .notFound }
            return .unavailable(error)
        }
    }

    /// The receiver's lookup straight from a directory, in SPEC §10.2 order: the key-id index is
    /// read first (it needs no master key), so a store that does not hold `id` answers
    /// `KeyLookup.notFound` even when the master key is unavailable; only a held id needs the
    /// master key. Never creates, migrates or writes anything; never throws.
    public static func lookup(_ id: KeyID, directory: String, masterKey source: MasterKeySource) -> KeyLookup {
        let path = FileSystem.join(directory, fileName)
        let header: Schema.Header
        let row: Row?
        do {
            switch FileSystem.status(path) {
            case .regularFile: break
            case .missing: throw KeyDirectoryError.storeNotFound("\(path) does not exist")
            case .directory, .other: throw KeyDirectoryError.invalidStore("\(path) is not a regular file")
            case let .failed(code): throw KeyDirectoryError.locked("cannot access \(path): \(Errno.message(code))")
            }
            let connection = try connect(path)
            defer { connection.close() }
            (header, row) = try connection.transaction(.read) { () throws(KeyDirectoryError) -> (Schema.Header, Row?) in
                let header = try Schema.readHeader(connection)
                try requireCurrent(header, path: path)
                return (header, try SQLiteKeyDirectoryTransaction(connection, recordKey: nil).row(kid: id.bytes))
            }
        } catch let error as KeyDirectoryError {
            return .unavailable(error)
        } catch {
            return .unavailable(.locked("\(error)"))
        }
        guard let row else { return .notFound }
        do {
            let key = try source.load(mayCreate: false)
            guard ItemSealing.verify(header.verifier!, masterKey: key) else { return .unavailable(KeyDirectoryLimits.wrongKey(source)) }
            return .found(try row.unseal(masterKey: key))
        } catch let error {
            return .unavailable(error)
        }
    }
}
