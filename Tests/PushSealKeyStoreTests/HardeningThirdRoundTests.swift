import Foundation
import PushSealCore
@testable import PushSealKeyStore
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store-level defects of issue 29's hostile trial (THREAT-MODEL.md §7).
@Suite("Hostile trial, third round")
struct HardeningThirdRoundTests {
    /// A PID that is certainly dead: a child that has exited and been reaped.
    private func deadPID() -> pid_t {
        var child: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { free(argv[0]) }
        precondition(posix_spawn(&child, "/bin/true", nil, nil, argv, environ) == 0)
        var status: Int32 = 0
        waitpid(child, &status, 0)
        return child
    }

    private func write(_ path: String, count: Int) {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0xA5, count: count),
                                               attributes: [.posixPermissions: 0o600]))
    }

    // MARK: item 6. A killed `store rotate-master` leaves its new key's temporaries

    @Test("The next open removes a killed rotate-master's new.key.tmp-PID-RANDOM files beside the master key; nothing else")
    func killedRotateMasterTemporariesRemovedAtOpen() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        _ = try store.rotate(conversation: "c")
        let dead = deadPID()
        let stale = dir.file("new.key.tmp-\(dead)-0011223344556677")
        let staleEmpty = dir.file("other.key.tmp-\(dead)-8899aabbccddeeff")
        let alive = dir.file("new.key.tmp-\(getpid())-8899aabbccddeeff")
        let notRandom = dir.file("new.key.tmp-\(dead)-notsixteenhexdig")
        let tooLong = dir.file("notes.tmp-\(dead)-0011223344556677")
        let aDirectory = dir.file("d.tmp-\(dead)-0011223344556677")
        let aLink = dir.file("l.tmp-\(dead)-0011223344556677")
        write(stale, count: 32)
        write(staleEmpty, count: 0)
        write(alive, count: 32)
        write(notRandom, count: 32)
        write(tooLong, count: 33)
        try FileManager.default.createDirectory(atPath: aDirectory, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: aLink, withDestinationPath: stale)

        // An ordinary open: no store or key file is created.
        _ = try reopen(dir).items(conversation: nil)
        let exists = { (path: String) in FileManager.default.fileExists(atPath: path) }
        #expect(!exists(stale), "a dead rotate-master's 32-byte new key is still on disk")
        #expect(!exists(staleEmpty))
        #expect(exists(alive))
        #expect(exists(notRandom))
        #expect(exists(tooLong))
        #expect(exists(aDirectory))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: aLink)) == stale)
    }

    @Test("Key-file temporary names: NAME.tmp-PID-RANDOM with 16 hex digits, read from the end",
          arguments: [
              ("master.key.tmp-123-0011223344556677", Int32(123)),
              ("new.key.tmp-4-aabbccddeeff0011", 4),
              ("a.tmp-1-b.tmp-77-0011223344556677", 77),
              ("new.key.tmp--0011223344556677", nil),
              ("new.key.tmp-12-001122334455667", nil),
              ("new.key.tmp-12-00112233445566778", nil),
              ("new.key.tmp-0-0011223344556677", nil),
              (".tmp-12-0011223344556677", nil),
              ("new.key.tmp-1x2-0011223344556677", nil),
              ("master.key", nil),
          ] as [(String, Int32?)])
    func temporaryNames(_ name: String, _ pid: Int32?) {
        #expect(KeyFile.temporaryCreator(name) == pid)
    }
}
