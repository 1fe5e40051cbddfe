import PushSealPlatform
import PushSealCLIKit

/// `pushseal bench --postgres URI`: the PostgreSQL key directory's figures, measured by the
/// `pushseal-keydir-worker` helper next to `pushseal` (it links libpq, which the static
/// `pushseal` cannot): cached-key sealing vs a key in memory, a cold lookup, rotation-to-use
/// across two processes, concurrent rotations. Returns the helper's output lines.
enum PostgreSQLBenchProcess {
    static let executableName = "pushseal-keydir-worker"

    static func run(uri: String) throws(CLIError) -> [UInt8] {
        let path = try HelperExecutable.path(
            executableName, neededBy: "'pushseal bench --postgres'",
            hints: "build both: swift build -c release --product pushseal --product \(executableName)")
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw .failure("cannot create a pipe: \(Errno.message(errno))") }
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        let (child, status) = ProcessSpawner.spawn([path, "bench", "--uri", uri], descriptors: [(pipeEnds[1], 1)])
        close(pipeEnds[1])
        guard status == 0 else {
            close(pipeEnds[0])
            throw .failure("cannot start \(path): \(Errno.message(status))")
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            output += chunk[..<count]
        }
        close(pipeEnds[0])
        let exit = ProcessSpawner.wait(for: child)
        // The helper's own diagnostic ("error …", password redacted) went to our stderr.
        guard exit == 0 else { throw .failure("the PostgreSQL figures failed (\(executableName) exit status \(exit >> 8))") }
        return output
    }
}
