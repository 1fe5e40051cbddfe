import Dispatch
import Foundation
@_spi(Vectors) import PushSealCore
import Synchronization
import Testing
import PushSealPlatform

/// The defects of issue 16's hostile trial, through the command line (THREAT-MODEL.md §7).
@Suite("Hostile trial, second round (CLI)")
struct HostileTrialCLITests {
    static let key = Fixtures.keyBase64URL
    static let content = #"{"cid":"c1","mid":"m1","ts":1700000000,"body":"Lunch at noon?"}"#

    // MARK: 1. A master key file that is a FIFO fails at once, in every command

    @Test func aFIFOMasterKeyFileFailsAtOnceInEveryCommand() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("s")
        _ = try sandbox.store("add", "s", ["--conversation", "c1"])
        let sealed = try runPushSeal(["seal", "--store", sandbox.path("s")], stdin: Self.content)
        try #require(sealed.status == 0, "\(sealed)")
        try FileManager.default.removeItem(atPath: sandbox.masterKey("s"))
        #expect(mkfifo(sandbox.masterKey("s"), 0o600) == 0)
        let runs = [
            try runPushSeal(["store", "get", "--dir", sandbox.path("s"), "--conversation", "c1"], timeout: 5),
            try runPushSeal(["seal", "--store", sandbox.path("s")], stdin: Array(Self.content.utf8), timeout: 5),
            try runPushSeal(["open", "--store", sandbox.path("s")], stdin: sealed.stdoutBytes, timeout: 5),
        ]
        for run in runs.dropLast() {
            expectFailure(run, messagePrefix: "key store is locked: master key file \(sandbox.masterKey("s")) is not a regular file (it is a FIFO)", hint: true)
        }
        // open falls back (exit 3) with the reason instead of failing.
        #expect(runs[2].status == 3, "\(runs[2])")
        #expect(runs[2].stdout.contains("store_locked"), "\(runs[2])")
    }

    // MARK: 2. seal --batch streams

    /// A child process with its standard input and output on pipes, reaped with `wait4` so that
    /// its own peak RSS is known.
    final class Child: @unchecked Sendable {
        let pid: pid_t
        let input: Int32
        let output: Int32

        init(_ arguments: [String]) throws {
            let executable = try #require(PushSealExecutable.path)
            // Close-on-exec pipes: the child keeps only its dup2'd standard input and output, so
            // closing our write end is the end of its input.
            var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
            #expect(pipe(&toChild) == 0 && pipe(&fromChild) == 0)
            for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            let (pid, status) = ProcessSpawner.spawn([executable] + arguments, descriptors: [(toChild[0], 0), (fromChild[1], 1)])
            close(toChild[0])
            close(fromChild[1])
            try #require(status == 0, "posix_spawn: \(status)")
            self.pid = pid
            input = toChild[1]
            output = fromChild[0]
        }

        func send(_ bytes: [UInt8]) -> Bool {
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { write(input, $0.baseAddress! + done, $0.count - done) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }

        /// Reads one line, waiting at most `timeout` seconds; nil on timeout or end of output.
        func readLine(timeout: Double) -> String? {
            var line: [UInt8] = []
            let deadline = MonotonicClock.seconds() + timeout
            var byte: UInt8 = 0
            while true {
                var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
                let left = Int32(max(0, (deadline - MonotonicClock.seconds()) * 1000))
                guard poll(&poller, 1, left) == 1 else { return nil }
                guard read(output, &byte, 1) == 1 else { return nil }
                if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
                line.append(byte)
            }
        }

        func closeInput() { close(input) }

        /// The child's peak RSS so far in KiB: `VmHWM` of /proc/PID/status. (Not `ru_maxrss` of
        /// `wait4`: after a vfork-style spawn it also counts the parent's RSS at exec time.)
        func peakResidentKiB() -> Int? {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
            else { return nil }
            return Int(line.dropFirst(6).filter { $0.isNumber })
        }

        /// Waits for the exit; the exit status.
        func wait() -> Int32 {
            close(output)
            let status = ProcessSpawner.wait(for: pid)
            return (status >> 8) & 0xFF
        }
    }

    @Test func aBatchCoProcessAnswersEachLineBeforeItsInputEnds() throws {
        let child = try Child(["seal", "--batch", "--key", Self.key])
        for index in 1...3 {
            let line = #"{"cid":"c1","mid":"m\#(index)","ts":1700000000,"body":"line \#(index)"}"# + "\n"
            #expect(child.send(Array(line.utf8)))
            let result = try #require(child.readLine(timeout: 10), "no result for line \(index) while standard input is still open")
            #expect(result.hasPrefix(#"{"aps":"#), "\(result)")
        }
        #expect(child.send(Array("{}\n".utf8)))
        let error = try #require(child.readLine(timeout: 10))
        #expect(error.hasPrefix(#"{"error":{"line":4,"#), "\(error)")
        child.closeInput()
        #expect(child.readLine(timeout: 10) == nil)
        #expect(child.wait() == 1)  // line 4 failed
    }

    @Test func aBatchOfAnySizeStreamsInConstantMemory() throws {
        let child = try Child(["seal", "--batch", "--key", Self.key])
        let valid = Array(#"{"cid":"c1","mid":"m","ts":1700000000,"body":"\#(String(repeating: "hello ", count: 16))"}"#.utf8) + [0x0A]
        let targetBytes = 24 << 20  // beyond the 16 MiB that bounded the whole input before
        let lineCount = targetBytes / valid.count
        let overLongAt = lineCount / 2
        let writer = Thread {
            var chunk: [UInt8] = []
            for index in 0..<lineCount {
                if index == overLongAt {
                    // One line of 3 MiB: reported as an error line, never kept whole.
                    chunk += [UInt8](repeating: UInt8(ascii: " "), count: 3 << 20) + [0x0A]
                } else if index % 100 == 7 {
                    chunk += Array("{}\n".utf8)
                } else {
                    chunk += valid
                }
                if chunk.count >= 1 << 16 {
                    guard child.send(chunk) else { return }
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            _ = child.send(chunk)
            child.closeInput()
        }
        writer.start()
        var lines = 0, errors = 0
        var errorLines: [Int] = []
        let output = FileHandle(fileDescriptor: child.output, closeOnDealloc: false)
        var pending: [UInt8] = []
        var peakKiB = 0, samples = 0
        while true {
            let data = output.availableData
            // Sampled all along (the peak is the child's own high-water mark, so the last sample
            // before its exit covers everything before it).
            if let sample = child.peakResidentKiB() {
                peakKiB = max(peakKiB, sample)
                samples += 1
            }
            if data.isEmpty { break }
            pending += data
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = pending[..<newline]
                if line.starts(with: Array(#"{"error":{"line":"#.utf8)) {
                    errors += 1
                    let digits = line.dropFirst(17).prefix { $0 >= 0x30 && $0 <= 0x39 }
                    errorLines.append(Int(String(decoding: digits, as: UTF8.self)) ?? -1)
                }
                lines += 1
                pending.removeSubrange(...newline)
            }
        }
        let status = child.wait()
        #expect(status == 1)
        #expect(samples > 10, "the child's memory was sampled")
        #expect(lines == lineCount)
        let expectedErrors = (0..<lineCount).filter { $0 == overLongAt || $0 % 100 == 7 }.map { $0 + 1 }
        #expect(errors == expectedErrors.count)
        #expect(errorLines == expectedErrors, "error lines name their input lines, in order")
        #expect(peakKiB < 64 * 1024, "peak RSS \(peakKiB) KiB")
        print("seal --batch: \(lineCount) lines (\((lineCount * valid.count) >> 20) MiB + a 3 MiB line), peak RSS \(peakKiB / 1024) MiB")
    }

    // MARK: 4. --salt only for test vectors, never with --store

    @Test func aFixedSaltNeedsTheTestFlagAndNeverGoesWithAStore() throws {
        let salt = Base64URL.encode(Fixtures.salt)
        expectUsageError(
            try runPushSeal(["seal", "--key", Self.key, "--salt", salt], stdin: Self.content), command: "pushseal seal",
            message: "'--salt <salt>' makes test vectors only: add '--test-vectors-only' to say so. Sealing two contents under one key with one salt gives away their XOR.")
        expectUsageError(
            try runPushSeal(["seal", "--store", "/nonexistent", "--salt", salt, "--test-vectors-only"], stdin: Self.content), command: "pushseal seal",
            message: "'--salt <salt>' cannot be used with '--store <dir>': a store's keys are real keys, and a fixed salt reuses their keystream.")
        expectUsageError(
            try runPushSeal(["seal", "--key", Self.key, "--test-vectors-only"], stdin: Self.content), command: "pushseal seal",
            message: "'--test-vectors-only' only goes with '--salt <salt>'.")
        let vector = try runPushSeal(["seal", "--key", Self.key, "--salt", salt, "--test-vectors-only"], stdin: Self.content)
        #expect(vector.status == 0, "\(vector)")
    }

    // MARK: 6. Racing inits: exactly one says it created the store

    @Test func racingInitsReportOneCreation() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        var created: [Int] = []
        for round in 0..<30 {
            let results = Mutex<[PushSealRun]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                if let run = try? runPushSeal(["store", "init", "--dir", sandbox.path("r\(round)")]) {
                    results.withLock { $0.append(run) }
                }
            }
            let runs = results.withLock { $0 }
            #expect(runs.count == 4 && runs.allSatisfy { $0.status == 0 }, "round \(round): \(runs)")
            created.append(runs.filter { $0.stdout.contains(#""created":true"#) }.count)
        }
        #expect(created.allSatisfy { $0 == 1 }, "created:true per round: \(created)")
    }

    // MARK: 7. Invalid UTF-8 in an argument is a usage error

    /// Runs `pushseal` through `sh`, whose printf makes arguments that are not valid UTF-8.
    private func runWithRawArguments(_ script: String, _ arguments: [String]) throws -> PushSealRun {
        let executable = try #require(PushSealExecutable.path)
        return try runPushSeal(["-c", script, executable] + arguments, executable: "/bin/sh")
    }

    @Test func invalidUTF8InAnArgumentIsAUsageError() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        try sandbox.initStore("s")
        let dir = sandbox.path("s")
        let separate = try runWithRawArguments(#"exec "$0" store add --dir "$1" --conversation "$(printf '\377\376')""#, [dir])
        expectUsageError(separate, command: "pushseal store add",
                         message: "The value of '--conversation' is not valid UTF-8; every argument must be UTF-8 text (a repaired one would name something else).")
        let inline = try runWithRawArguments(#"exec "$0" store get --dir "$1" "--conversation=$(printf 'a\300b')""#, [dir])
        expectUsageError(inline, command: "pushseal store get",
                         message: "The value of '--conversation' is not valid UTF-8; every argument must be UTF-8 text (a repaired one would name something else).")
        let positional = try runWithRawArguments(#"exec "$0" inspect "$(printf '\377.json')""#, [])
        expectUsageError(positional, command: "pushseal inspect",
                         message: "Argument 2 is not valid UTF-8; every argument must be UTF-8 text (a repaired one would name something else).")
        // Nothing was stored.
        #expect(try sandbox.store("list", "s").stdout.contains("\u{FFFD}") == false)
        // Valid UTF-8 beyond ASCII is fine.
        let valid = try sandbox.store("add", "s", ["--conversation", "caf\u{E9} \u{1F510}"])
        #expect(valid.status == 0, "\(valid)")
    }

    // MARK: 9. A killed store init leaves no temporary file behind the next init

    @Test func killedInitsLeaveNoTemporaryKeyFiles() throws {
        let sandbox = try StoreSandbox()
        defer { sandbox.remove() }
        let executable = try #require(PushSealExecutable.path)
        for round in 0..<40 {
            let child = try ChildPipes.spawn(executable, ["store", "init", "--dir", sandbox.path("k\(round % 4)")], environment: nil, feedsInput: false)
            close(child.output)
            close(child.errors)
            usleep(UInt32.random(in: 0..<12_000))
            ProcessSpawner.send(SIGKILL, to: child.pid)
            ProcessSpawner.wait(for: child.pid)
        }
        for store in 0..<4 {
            let directory = sandbox.path("k\(store)")
            if FileManager.default.fileExists(atPath: directory) {
                _ = try sandbox.initStore("k\(store)")
                let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
                #expect(left == [], "\(left)")
            }
        }
    }
}
