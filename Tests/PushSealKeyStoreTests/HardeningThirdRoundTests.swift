import Foundation
import PushSealCore
@testable import PushSealKeyDirectory
@testable import PushSealKeyStore
import PushSealKeyDirectorySQLite
import Testing
import PushSealPlatform

/// The store-level defects of issue 29's hostile trial (THREAT-MODEL.md §7).
@Suite("Hostile trial, third round")
struct HardeningThirdRoundTests {
    /// A PID that is certainly dead: a child that has exited and been reaped.
    private func deadPID() -> pid_t {
        let (child, status) = ProcessSpawner.spawn(["/bin/true"])
        precondition(status == 0)
        ProcessSpawner.wait(for: child)
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
        _ = try store.asDirectory.rotate(conversation: "c")
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

    // MARK: item 5. device pin: small-order points and the device's own key

    @Test("pinProviderKey refuses small-order points (any encoding) and the store's own device key; a provider key is pinned",
          arguments: [
              "0000000000000000000000000000000000000000000000000000000000000000",
              "0100000000000000000000000000000000000000000000000000000000000000",
              "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
              "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
              "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
              "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b880",
          ])
    func pinRefusesSmallOrder(_ point: String) throws {
        let store = try makeStore(TemporaryDirectory())
        let error = storeError { try store.pinProviderKey(Hex.decode(point)!) }
        guard case let .invalidArgument(why)? = error else {
            Issue.record("a small-order point was pinned: \(String(describing: error))")
            return
        }
        #expect(why.contains("small order"))
        #expect(try store.pinnedProviderKeys().isEmpty)
    }

    @Test("pinProviderKey refuses the device's own public key and pins a provider's")
    func pinRefusesOwnDeviceKey() throws {
        let dir = TemporaryDirectory()
        let device = try makeStore(dir)
        let registration = try device.createDeviceKey()
        let error = storeError { try device.pinProviderKey(registration.publicKey) }
        guard case let .invalidArgument(why)? = error else {
            Issue.record("the device's own key was pinned: \(String(describing: error))")
            return
        }
        #expect(why.contains("own device public key"))
        let provider = try makeStore(TemporaryDirectory()).asDirectory.createProviderKey()
        #expect(try device.pinProviderKey(provider.publicKey) == provider.id)
        #expect(try device.pinnedProviderKeys() == [provider.publicKey])
    }
}
