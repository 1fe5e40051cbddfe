// pushseal-keydir-worker: a helper process for the PostgreSQL key directory's multi-process,
// kill -9 and staleness tests and scripts/postgres-reliability.sh. Not a product; not part of
// the CLI's contract (`pushseal bench --postgres` and `pushseal demo --postgres` run in
// `pushseal-full`; the bench's peer processes are its hidden `bench postgres-peer`).
//
//   pushseal-keydir-worker COMMAND --uri URI --key-hex HEX --conversation C [options]
//
//   rotate --count K     rotate C K times, printing "rot KID EPOCH" after each commit, then "done"
//   rotate-loop          rotate C until killed, printing "rot KID EPOCH" after each commit
//   watch [--ttl S]      a PostgreSQLKeyProvider (cache + LISTEN/NOTIFY): prints "ready KID" once
//                        listening, then "kid KID" whenever C's current key changes (polled
//                        every millisecond), until killed
//
// Every line goes out with one write(2) right after the operation returned. Errors: "error
// CASE details" on stderr, exit 1.
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyDirectoryPostgreSQL
import PushSealPlatform

func emit(_ line: String, to fd: Int32 = 1) {
    let bytes = Array((line + "\n").utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
        if n > 0 { done += n } else if n < 0, errno == EINTR { continue } else { return }
    }
}

func fail(_ message: String) -> Never {
    emit("error \(message)", to: 2)
    exit(1)
}

func hexBytes(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    var index = 0
    while index < digits.count {
        guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
        bytes.append(byte)
        index += 2
    }
    return bytes
}

@main
enum Worker {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first else { fail("usage: pushseal-keydir-worker COMMAND --uri URI --key-hex HEX --conversation C") }
        arguments.removeFirst()
        var options: [String: String] = [:]
        var index = 0
        while index + 1 < arguments.count {
            options[String(arguments[index].dropFirst(2))] = arguments[index + 1]
            index += 2
        }
        guard let uri = options["uri"], let hex = options["key-hex"], let key = hexBytes(hex), let conversation = options["conversation"]
        else { fail("--uri, --key-hex and --conversation are required") }
        do throws(KeyDirectoryError) {
            let directory = try PostgreSQLKeyDirectory(uri: uri, masterKey: .bytes(key), create: true)
            switch command {
            case "rotate":
                let count = Int(options["count"] ?? "1") ?? 1
                for _ in 0..<count {
                    let stored = try directory.rotate(conversation: conversation)
                    emit("rot \(stored.item.keyID) \(stored.item.epoch)")
                }
                emit("done")
            case "rotate-loop":
                while true {
                    let stored = try directory.rotate(conversation: conversation)
                    emit("rot \(stored.item.keyID) \(stored.item.epoch)")
                }
            case "watch":
                let provider = try PostgreSQLKeyProvider(directory: directory, timeToLive: Double(options["ttl"] ?? "60") ?? 60)
                var last = try provider.currentKeyID(conversation)
                emit("ready \(last)")
                while true {
                    let now = try provider.currentKeyID(conversation)
                    if now != last {
                        emit("kid \(now)")
                        last = now
                    }
                    usleep(1000)
                }
            default:
                fail("unknown command \(command)")
            }
        } catch {
            fail("\(error)")
        }
    }
}

extension PostgreSQLKeyProvider {
    func currentKeyID(_ conversation: String) throws(KeyDirectoryError) -> KeyID {
        do {
            return try currentKey(conversation: conversation).id
        } catch let error as KeyDirectoryError {
            throw error
        } catch {
            fail("\(error)")
        }
    }
}
