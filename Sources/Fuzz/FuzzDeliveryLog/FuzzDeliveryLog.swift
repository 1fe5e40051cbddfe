import FuzzSupport
import PushSealCore
import PushSealKeyStore
import PushSealPlatform

/// libFuzzer target: the duplicate log's file (Docs/KEY-STORE.md §2.1) from arbitrary bytes.
/// Each input becomes the whole `pushseal-deliveries` file of a scratch store directory, read and
/// written through `DeliveryLogFile` under a fixed log key. Properties checked on every input:
/// - reading it (the count, a probe for a tag) never crashes and counts no more records than
///   the file has slots;
/// - a mark of a fresh tag is then found, a second mark of it is a duplicate (its envelope
///   digest kept: a different one is a conflict), and the count is at least one;
/// - after that write the file starts with a header whose own check holds (an independent
///   reading: magic `PSDL`, check = the first 8 bytes of SHA-256 of bytes 0–119) and holds a
///   whole table (128 + 128 · 2^k bytes, 2^k ≥ 256);
/// - pruning everything leaves no record, and the log then records again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeliveryLogTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: size > 0 ? UnsafeRawPointer(data) : nil, count: size))
    write(bytes)
    let log = DeliveryLogFile(directory: directory, logKey: logKey)
    do {
        let slots = bytes.count > 128 ? (bytes.count - 128) / 128 : 0
        let before = try log.count(confirmCurrent: {})
        fuzzCheck(before >= 0 && before <= max(slots, 0), "count \(before) for a file of \(slots) slots")
        _ = try log.contains(fresh, confirmCurrent: {})
        let first = try log.mark(tag: fresh, envelopeTag: envelope, now: 1_000, retention: nil, confirmCurrent: {})
        let found = try log.contains(fresh, confirmCurrent: {})
        fuzzCheck(found, "a mark (\(first)) is not found")
        let again = try log.mark(tag: fresh, envelopeTag: envelope, now: 1_001, retention: nil, confirmCurrent: {})
        fuzzCheck(again == .duplicate, "a second mark with the same envelope is \(again), not a duplicate")
        let other = [UInt8](repeating: 0x5A, count: 32)
        if first == .first {
            let conflicting = try log.mark(tag: fresh, envelopeTag: other, now: 1_002, retention: nil, confirmCurrent: {})
            fuzzCheck(conflicting == .conflict, "a mark with another envelope is \(conflicting), not a conflict")
        }
        let after = try log.count(confirmCurrent: {})
        fuzzCheck(after >= 1, "no record after a mark")
        let file = read()
        fuzzCheck(file.count >= 128 + 128 * 256 && (file.count - 128) % 128 == 0, "the file (\(file.count) bytes) is not a whole table")
        let slotCount = (file.count - 128) / 128
        fuzzCheck(slotCount & (slotCount - 1) == 0, "\(slotCount) slots is not a power of two")
        fuzzCheck(Array(file[0..<4]) == Array("PSDL".utf8) && Array(file[120..<128]) == Array(SHA256Digest.hash(Array(file[0..<120])).prefix(8)),
                  "the header after a write does not check: \(fuzzHex(file[0..<128]))")
        _ = try log.prune(before: .max, confirmCurrent: {})
        let left = try log.count(confirmCurrent: {})
        let stillFound = try log.contains(fresh, confirmCurrent: {})
        fuzzCheck(left == 0 && !stillFound, "records left after pruning everything: \(left)")
        let renewed = try log.mark(tag: fresh, envelopeTag: nil, now: 2_000, retention: nil, confirmCurrent: {})
        fuzzCheck(renewed == .first, "a mark after pruning everything is \(renewed)")
    } catch {
        fuzzFail("a log file made an operation fail: \(error)")
    }
    return 0
}

/// The scratch store directory (one per process) and its log file.
let directory: String = try! FileSystem.makeTemporaryDirectory(prefix: "fuzz-delivery-log")
let path = FileSystem.join(directory, DeliveryLogFile.fileName)
let logKey = SecretKey(bytes: [UInt8](repeating: 0x42, count: 32))
/// A tag no seed holds, and an envelope digest.
let fresh = [UInt8](repeating: 0xC3, count: 32)
let envelope = [UInt8](repeating: 0x3C, count: 32)

func write(_ bytes: [UInt8]) {
    _ = unlink(path)
    do {
        try FileSystem.writeFile(bytes, to: path, permissions: 0o600)
    } catch {
        fuzzFail("cannot write \(path): \(error)")
    }
}

func read() -> [UInt8] {
    do {
        return try FileSystem.readFile(at: path, limit: 1 << 26)
    } catch {
        fuzzFail("cannot read \(path): \(error)")
    }
}
