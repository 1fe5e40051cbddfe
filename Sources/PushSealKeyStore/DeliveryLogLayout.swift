import PushSealCore

/// The byte layout of the duplicate-log file `pushseal-deliveries` (Docs/KEY-STORE.md §2.1): a
/// 128-byte header slot, then 2^k slots of 128 bytes, an open-addressing hash table with linear
/// probing. 128 divides 512 and 4096, so no slot straddles a sector or a page. All integers are
/// big-endian. Every slot and the header end with a check: the first 8 bytes of SHA-256 of the
/// bytes before it, which detects a torn or garbage slot. It is not authentication (tags are
/// HMACs; whoever can write the file can delete marks, as with any file of the store).
enum DeliveryLogLayout {
    /// Bytes in the header and in every slot.
    static let slotSize = 128
    /// Where the check value starts in a slot or the header (its last 8 bytes).
    static let checkOffset = 120
    /// The table size of a new or reset log: 256 slots (a 32 KiB table).
    static let minimumSlotCount: Int64 = 256
    /// The header's first bytes: "PSDL" (PushSeal delivery log).
    static let magic: [UInt8] = Array("PSDL".utf8)
    /// The layout version in the header.
    static let version: UInt32 = 1

    /// The check value of `bytes[0..<120]` (a slot or the header).
    static func check(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        Array(SHA256Digest.hash(Array(bytes.prefix(checkOffset))).prefix(8))
    }

    /// The first slot probed for `tag`: its first 8 bytes (uniform: the tag is an HMAC) modulo
    /// the slot count.
    static func homeSlot(of tag: [UInt8], slotCount: Int64) -> Int64 {
        Int64(bitPattern: bigEndian(tag, at: 0) & UInt64(slotCount - 1))
    }

    /// Where slot `index` starts in the file.
    static func offset(ofSlot index: Int64) -> Int64 { Int64(slotSize) * (index + 1) }

    /// The file size of a table of `slotCount` slots.
    static func fileSize(slotCount: Int64) -> Int64 { offset(ofSlot: slotCount) }

    /// The slot count a file of `size` bytes can hold as a whole table (a power of two of at
    /// least ``minimumSlotCount``), nil otherwise: how a log whose header is damaged is read.
    static func slotCount(fileSize size: Int64) -> Int64? {
        guard size > Int64(slotSize), size % Int64(slotSize) == 0 else { return nil }
        let count = size / Int64(slotSize) - 1
        guard count >= minimumSlotCount, count & (count - 1) == 0 else { return nil }
        return count
    }

    // MARK: Header

    /// The header: magic (4) | version (4) | slot count (8) | records (8) | tombstones (8) |
    /// retention cutoff (8) | log id (32) | zeros (48) | check (8).
    struct Header: Equatable {
        var slotCount: Int64
        /// Slots in state record (expired ones included).
        var records: Int64
        /// Slots in state tombstone.
        var tombstones: Int64
        /// Records seen before this time are absent (pruned; their slots reusable).
        var cutoff: Int64
        /// ``ItemSealing/deliveryLogID(logKey:)`` of the key the log was written under.
        var logID: [UInt8]

        /// An empty table of `slotCount` slots.
        static func empty(slotCount: Int64, logID: [UInt8]) -> Header {
            Header(slotCount: slotCount, records: 0, tombstones: 0, cutoff: .min, logID: logID)
        }

        var encoded: [UInt8] {
            var bytes = magic
            bytes.reserveCapacity(slotSize)
            appendBigEndian(version, to: &bytes)
            for value in [slotCount, records, tombstones, cutoff] { appendBigEndian(UInt64(bitPattern: value), to: &bytes) }
            bytes += logID
            bytes += [UInt8](repeating: 0, count: checkOffset - bytes.count)
            bytes += check(bytes[...])
            return bytes
        }

        /// The header in `bytes` (128 of them), nil when its magic, version, check or fields are
        /// not a header's.
        init?(_ bytes: ArraySlice<UInt8>) {
            let b = Array(bytes)
            guard b.count == slotSize, Array(b[0..<4]) == magic, bigEndian32(b, at: 4) == version,
                  Array(b[checkOffset...]) == check(b[...]), b[72..<checkOffset].allSatisfy({ $0 == 0 })
            else { return nil }
            let count = Int64(bitPattern: bigEndian(b, at: 8))
            guard count >= minimumSlotCount, count & (count - 1) == 0, count <= Int64(1) << 40 else { return nil }
            self.init(
                slotCount: count, records: Int64(bitPattern: bigEndian(b, at: 16)), tombstones: Int64(bitPattern: bigEndian(b, at: 24)),
                cutoff: Int64(bitPattern: bigEndian(b, at: 32)), logID: Array(b[40..<72]))
        }

        init(slotCount: Int64, records: Int64, tombstones: Int64, cutoff: Int64, logID: [UInt8]) {
            (self.slotCount, self.records, self.tombstones, self.cutoff, self.logID) = (slotCount, records, tombstones, cutoff, logID)
        }
    }

    // MARK: Slots

    /// One slot: state (1: 0 empty, 1 record, 2 tombstone) | flags (1: bit 0 = envelope tag
    /// present) | zeros (6) | seen_at (8) | tag (32) | envelope tag (32, zeros without one) |
    /// zeros (40) | check (8). An empty slot is 128 zero bytes (no check: a sparse file reads as
    /// empty slots).
    enum Slot: Equatable {
        case empty
        case record(Record)
        case tombstone
        /// Neither empty nor a slot whose check holds (torn or garbage): treated like a
        /// tombstone (never matches; probing goes on; reusable).
        case invalid
    }

    /// A recorded delivery.
    struct Record: Equatable {
        var tag: [UInt8]
        var seenAt: Int64
        var envelopeTag: [UInt8]?
    }

    /// The bytes of a record slot.
    static func encode(_ record: Record) -> [UInt8] {
        var bytes: [UInt8] = [1, record.envelopeTag == nil ? 0 : 1, 0, 0, 0, 0, 0, 0]
        bytes.reserveCapacity(slotSize)
        appendBigEndian(UInt64(bitPattern: record.seenAt), to: &bytes)
        bytes += record.tag
        bytes += record.envelopeTag ?? [UInt8](repeating: 0, count: 32)
        bytes += [UInt8](repeating: 0, count: checkOffset - bytes.count)
        bytes += check(bytes[...])
        return bytes
    }

    /// The bytes of a tombstone slot.
    static let tombstone: [UInt8] = {
        var bytes = [UInt8](repeating: 0, count: checkOffset)
        bytes[0] = 2
        return bytes + check(bytes[...])
    }()

    /// The slot in `bytes` (128 of them).
    static func decode(_ bytes: ArraySlice<UInt8>) -> Slot {
        guard bytes.count == slotSize else { return .invalid }
        let start = bytes.startIndex
        if bytes.allSatisfy({ $0 == 0 }) { return .empty }
        guard bytes[(start + checkOffset)...].elementsEqual(check(bytes)) else { return .invalid }
        let b = Array(bytes)
        guard b[2..<8].allSatisfy({ $0 == 0 }), b[80..<checkOffset].allSatisfy({ $0 == 0 }) else { return .invalid }
        switch (b[0], b[1]) {
        case (2, 0) where b[8..<80].allSatisfy({ $0 == 0 }):
            return .tombstone
        case (1, 0) where b[48..<80].allSatisfy({ $0 == 0 }):
            return .record(Record(tag: Array(b[16..<48]), seenAt: Int64(bitPattern: bigEndian(b, at: 8)), envelopeTag: nil))
        case (1, 1):
            return .record(Record(tag: Array(b[16..<48]), seenAt: Int64(bitPattern: bigEndian(b, at: 8)), envelopeTag: Array(b[48..<80])))
        default:
            return .invalid
        }
    }

    /// A slot as a probe for `tag` sees it (``classify(_:at:tag:cutoff:)``).
    enum Probed {
        case empty
        /// The tag's record, valid and seen at or after the cutoff.
        case match(Record)
        /// Another tag's record seen at or after the cutoff (its check is not verified).
        case otherRecord
        /// A record seen before the cutoff (the tag's own included): reusable.
        case pruned
        /// A tombstone, a slot holding the tag whose check fails, or any other state: reusable.
        case tombstone
    }

    /// The slot at `bytes[start..<start + 128]` for a probe of `tag`: only a slot holding the
    /// tag is decoded in full (its check verified).
    static func classify(_ bytes: [UInt8], at start: Int, tag: [UInt8], cutoff: Int64) -> Probed {
        switch bytes[start] {
        case 0:
            var zero = true
            for index in start..<(start + slotSize) where bytes[index] != 0 {
                zero = false
                break
            }
            return zero ? .empty : .tombstone
        case 1:
            var same = true
            for index in 0..<32 where bytes[start + 16 + index] != tag[index] {
                same = false
                break
            }
            guard same else {
                return Int64(bitPattern: bigEndian(bytes, at: start + 8)) < cutoff ? .pruned : .otherRecord
            }
            guard case let .record(record) = decode(bytes[start..<(start + slotSize)]) else { return .tombstone }
            return record.seenAt >= cutoff ? .match(record) : .pruned
        default:
            return .tombstone
        }
    }

    // MARK: Integers

    static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        for shift in stride(from: T.bitWidth - 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    static func bigEndian(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + 8) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    static func bigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in offset..<(offset + 4) { value = value << 8 | UInt32(bytes[index]) }
        return value
    }
}
