// pushseal-store-worker: a helper process for the key store's multi-process, crash (kill -9)
// and permission tests. Not a product; not part of the CLI's contract.
//
//   pushseal-store-worker COMMAND --dir DIR (--key-file PATH | --key-hex HEX) [options]
//
//   init                         create the store (and the key file) if missing
//   mixed --id N --iterations K [--go FILE]
//                                K rounds of: add a key to conversation "wN", rotate "shared",
//                                look both up, record deliveries ("dup"/"mI" shared by all
//                                workers, "wN"/"mI" twice); prints "add KID", "rot KID EPOCH",
//                                "new MID" after each commit, then "done"
//   rotate-loop --conversation C rotate C forever, printing "KID EPOCH" after each commit
//   deliver-loop --conversation C
//                                record deliveries of C, messages m0, m1, … forever (one store
//                                instance, as a receiver keeps it), printing "MID" after each
//                                mark returned as new
//   mark-many --id N --count K [--go FILE]
//                                marks "wN"/"mI" twice (new, then a duplicate) and "shared"/"mI"
//                                for I in 0..<K (the log grows and is rebuilt meanwhile);
//                                prints "new mI" when the shared mark was new, then "done"
//   probe [--as-nobody]          open, read every item, then try a write; prints one line each:
//                                "open ok" | "open ERR", "read ok N" | "read ERR",
//                                "write ok" | "write ERR", ERR being the error's case and details
//
// Every line goes out with one write(2) right after the operation returned, so a test that
// kills the process knows that everything it read had been committed.
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealKeyDirectorySQLite
import PushSealPlatform

/// The start barrier of `--go FILE`: waits (up to 20 s) until the file exists, so that all
/// workers begin together.
func waitForStart(_ go: String?) {
    guard let go else { return }
    var waited = 0
    while access(go, F_OK) != 0 {
        usleep(500)
        waited += 1
        if waited > 40_000 { fail("start barrier \(go) never appeared") }
    }
}

func emit(_ line: String, to fd: Int32 = 1) {
    var bytes = Array((line + "\n").utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
        if n > 0 { done += n } else if n < 0, errno == EINTR { continue } else { return }
    }
    bytes.removeAll()
}

func fail(_ message: String) -> Never {
    emit("error \(message)", to: 2)
    exit(1)
}

/// A compact, parseable form of an error: its case name and payload.
func code(_ error: KeyDirectoryError) -> String {
    switch error {
    case let .locked(why): "locked \(why)"
    case .itemNotFound: "itemNotFound"
    case .duplicateItem: "duplicateItem"
    case let .corruptedItem(kid): "corruptedItem \(kid)"
    case let .epochRecordMissing(conversation): "epochRecordMissing \(conversation)"
    case let .rolledBack(conversation, epoch, highWater): "rolledBack \(conversation) \(epoch) \(highWater)"
    case let .providerKeyMissing(kid): "providerKeyMissing \(kid.map(String.init(describing:)) ?? "record")"
    case let .unsupportedFileVersion(found, supported): "unsupportedFileVersion \(found) \(supported)"
    case let .sqlite(code, extended, message): "sqlite \(code) \(extended) \(message)"
    case let .storeNotFound(why): "storeNotFound \(why)"
    case let .invalidStore(why): "invalidStore \(why)"
    case let .invalidArgument(why): "invalidArgument \(why)"
    case let .serverUnavailable(why): "serverUnavailable \(why)"
    case let .server(sqlState, message): "server \(sqlState) \(message)"
    }
}

@main
enum Worker {
    static func main() {
        run()
    }
}

func run() {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard let command = arguments.first else { fail("usage: pushseal-store-worker COMMAND --dir DIR (--key-file PATH | --key-hex HEX) …") }
    arguments.removeFirst()
    var options: [String: String] = [:]
    var flags: Set<String> = []
    var index = 0
    while index < arguments.count {
        let name = arguments[index]
        guard name.hasPrefix("--") else { fail("unexpected argument \(name)") }
        if name == "--as-nobody" {
            flags.insert(name)
            index += 1
        } else {
            guard index + 1 < arguments.count else { fail("\(name) needs a value") }
            options[name] = arguments[index + 1]
            index += 2
        }
    }

    func option(_ name: String) -> String {
        guard let value = options[name] else { fail("missing \(name)") }
        return value
    }

    if flags.contains("--as-nobody"), geteuid() == 0 {
        // Permission tests run as root in CI: drop to nobody so file modes are enforced.
        guard setgroups(0, nil) == 0, setgid(65534) == 0, setuid(65534) == 0, geteuid() == 65534 else {
            fail("cannot drop privileges: \(Errno.message(errno))")
        }
    }

    let directory = option("--dir")
    let source: MasterKeySource
    if let path = options["--key-file"] {
        source = .keyFile(path: path, createIfMissing: command == "init")
    } else if let hex = options["--key-hex"], let bytes = Hex.decode(hex) {
        source = .bytes(SecretKey(bytes: bytes))
    } else {
        fail("need --key-file PATH or --key-hex HEX")
    }

    func openStore(create: Bool = false) -> DeviceKeyStore {
        do {
            return try DeviceKeyStore(directory: directory, masterKey: source, create: create)
        } catch {
            fail("open: \(code(error))")
        }
    }

    func attempt<R>(_ what: String, _ body: () throws(KeyDirectoryError) -> R) -> R {
        do {
            return try body()
        } catch {
            fail("\(what): \(code(error))")
        }
    }

    switch command {
    case "init":
        _ = openStore(create: true)
        emit("ok")

    case "mixed":
        guard let id = Int(option("--id")), let iterations = Int(option("--iterations")) else { fail("bad --id or --iterations") }
        waitForStart(options["--go"])
        let store = openStore()
        let own = "w\(id)"
        for round in 0..<iterations {
            let key = ConversationKey.generate()
            _ = attempt("add") { () throws(KeyDirectoryError) in try store.add(key, conversation: own, epoch: Int64(round), label: "worker \(id)") }
            emit("add \(key.id)")

            let rotated = attempt("rotate") { () throws(KeyDirectoryError) in try store.asDirectory.rotate(conversation: "shared") }
            emit("rot \(rotated.item.keyID) \(rotated.item.epoch)")

            let found = attempt("key(for:)") { () throws(KeyDirectoryError) in try store.key(for: key.id) }
            guard found.key == key, found.item.conversation.utf8.elementsEqual(own.utf8), found.item.epoch == Int64(round) else {
                fail("key(for:) returned another key")
            }
            let mine = attempt("key(for: rotated)") { () throws(KeyDirectoryError) in try store.key(for: rotated.item.keyID) }
            guard mine.key == rotated.key else { fail("rotated key changed") }
            let current = attempt("currentKey") { () throws(KeyDirectoryError) in try store.asDirectory.currentKey(conversation: "shared") }
            guard current.item.epoch >= rotated.item.epoch else { fail("current epoch went backwards") }

            let seen = attempt("recordDelivery dup") { () throws(KeyDirectoryError) in try store.recordDelivery(conversation: "dup", messageID: "m\(round)") }
            if !seen { emit("new m\(round)") }
            let first = attempt("recordDelivery own") { () throws(KeyDirectoryError) in try store.recordDelivery(conversation: own, messageID: "m\(round)") }
            let second = attempt("recordDelivery own again") { () throws(KeyDirectoryError) in try store.recordDelivery(conversation: own, messageID: "m\(round)") }
            guard !first, second else { fail("own delivery: first \(first), second \(second)") }

            let mineCount = attempt("items") { () throws(KeyDirectoryError) in try store.items(conversation: own).count }
            guard mineCount == round + 1 else { fail("conversation \(own) has \(mineCount) items after \(round + 1) adds") }
        }
        emit("done")

    case "mark-many":
        guard let id = Int(option("--id")), let count = Int(option("--count")) else { fail("bad --id or --count") }
        waitForStart(options["--go"])
        let store = openStore()
        for index in 0..<count {
            let first = attempt("mark own") { () throws(KeyDirectoryError) in try store.recordDelivery(conversation: "w\(id)", messageID: "m\(index)") }
            let second = attempt("mark own again") { () throws(KeyDirectoryError) in try store.recordDelivery(conversation: "w\(id)", messageID: "m\(index)") }
            guard !first, second else { fail("own mark m\(index): first \(first), second \(second)") }
            let seen = attempt("mark shared") { () throws(KeyDirectoryError) in try store.recordDelivery(conversation: "shared", messageID: "m\(index)") }
            if !seen { emit("new m\(index)") }
        }
        emit("done")

    case "rotate-loop":
        let conversation = option("--conversation")
        let store = openStore()
        while true {
            let rotated = attempt("rotate") { () throws(KeyDirectoryError) in try store.asDirectory.rotate(conversation: conversation) }
            emit("\(rotated.item.keyID) \(rotated.item.epoch)")
        }

    case "deliver-loop":
        let conversation = option("--conversation")
        let store = openStore()
        var message = 0
        while true {
            let seen = attempt("recordDelivery") { () throws(KeyDirectoryError) in
                try store.recordDelivery(conversation: conversation, messageID: "m\(message)")
            }
            if seen { fail("m\(message) was recorded before") }
            emit("m\(message)")
            message += 1
        }

    case "probe":
        let store: DeviceKeyStore
        do {
            store = try DeviceKeyStore(directory: directory, masterKey: source)
            emit("open ok")
        } catch {
            emit("open \(code(error))")
            exit(0)
        }
        do {
            let items = try store.items()
            for item in items { _ = try store.key(for: item.keyID) }
            emit("read ok \(items.count)")
        } catch {
            emit("read \(code(error))")
        }
        do {
            try store.add(ConversationKey.generate(), conversation: "probe", epoch: Int64(getpid()))
            emit("write ok")
        } catch {
            emit("write \(code(error))")
        }

    default:
        fail("unknown command \(command)")
    }
}
