import PushSealBench
import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory

/// `pushseal bench postgres-peer` (hidden, internal): the second process of the bench's
/// PostgreSQL figures (`bench --postgres`), on the same directory and master key file. The
/// bench reads its standard output (``PostgreSQLPeer``); not part of the CLI's contract.
enum BenchPeerCommand {
    static let postgres = Option<String>("postgres", valueName: "uri", abstract: "The PostgreSQL key directory.")
    static let masterKeyFile = Option<FilePath>("master-key-file", valueName: "file", abstract: "Its master key file (the bench's).")
    static let conversation = Option<String>("conversation", valueName: "cid", abstract: "The conversation.")
    static let watch = Flag("watch", abstract: "Print the conversation's current key id from a listening cache whenever it changes.")
    static let rotations = Option<Int?>("rotations", valueName: "n", abstract: "Rotate the conversation n times.", in: 1...1_000_000)

    static let spec = CommandSpec(
        name: "postgres-peer",
        abstract: "Internal: the second process of the bench's PostgreSQL figures.",
        options: [postgres, masterKeyFile, conversation, watch, rotations],
        isHidden: true,
        run: run)

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let backend = try context.postgreSQLBackend()
        let conversation = try arguments[Self.conversation]
        let rotations = try arguments[Self.rotations]
        guard arguments[Self.watch] != (rotations != nil) else { throw .usage("Give exactly one of '--watch' and '--rotations <n>'.") }
        let uri = try arguments[Self.postgres]
        let masterKeyFile = try arguments[Self.masterKeyFile].path
        let directory: any KeyDirectory
        do throws(KeyDirectoryError) {
            directory = try backend.open(uri, masterKeyFile, false, systemClock).directory
            if let rotations {
                try PostgreSQLPeer.rotate(directory, conversation: conversation, count: rotations)
                return .success
            }
        } catch {
            throw .failure("\(error)")
        }
        do {
            try PostgreSQLPeer.watch(backend.listeningCache(directory, PostgreSQLPeer.timeToLive), conversation: conversation)
        } catch {
            throw .failure("\(error)")
        }
    }
}
