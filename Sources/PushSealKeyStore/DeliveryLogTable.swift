import PushSealCore
import PushSealKeyDirectory
internal import PushSealPlatform

/// The log's table as read under the lock: the header and positioned slot reads and writes.
struct DeliveryLogTable {
    typealias Layout = DeliveryLogLayout
    let descriptor: Int32
    let path: String
    var header: Layout.Header
    /// The header's check failed and the slot count was taken from the file size.
    var headerWasDamaged = false

    /// The table in the file: nil when the file holds no usable table (empty, too short, or a
    /// damaged header over a size that is not a table's). A valid header's slot count is
    /// checked against the file's size (`fstat`), except when it is `checkedSlotCount`, the count
    /// this descriptor's file was last found to hold (one system call less per mark).
    static func read(_ descriptor: Int32, path: String, checkedSlotCount: Int64? = nil) throws(KeyDirectoryError) -> DeliveryLogTable? {
        var bytes = [UInt8](repeating: 0, count: Layout.slotSize)
        let count: Int
        switch bytes.withUnsafeMutableBytes({ FileDescriptor.read(into: $0, from: descriptor, at: 0, path: path) }) {
        case let .success(read): count = read
        case let .failure(error): throw .locked("the duplicate log: \(error)")
        }
        let header = count == Layout.slotSize ? Layout.Header(bytes[...]) : nil
        if let header, header.slotCount == checkedSlotCount { return DeliveryLogTable(descriptor: descriptor, path: path, header: header) }
        guard let size = FileDescriptor.size(descriptor) else { throw .locked("cannot stat the duplicate log \(path)") }
        if let header, size >= Layout.fileSize(slotCount: header.slotCount) {
            return DeliveryLogTable(descriptor: descriptor, path: path, header: header)
        }
        guard let slots = Layout.slotCount(fileSize: size) else { return nil }
        return DeliveryLogTable(descriptor: descriptor, path: path, header: .empty(slotCount: slots, logID: []), headerWasDamaged: true)
    }

    /// Makes the file an empty table of `slotCount` slots (truncated to nothing first, so no
    /// old slot survives).
    static func initialize(_ descriptor: Int32, path: String, slotCount: Int64, logID: [UInt8]) throws(KeyDirectoryError) {
        do throws(IOError) {
            try FileDescriptor.setSize(descriptor, to: 0, path: path)
            try FileDescriptor.setSize(descriptor, to: Layout.fileSize(slotCount: slotCount), path: path)
            try DeliveryLogTable.write(Layout.Header.empty(slotCount: slotCount, logID: logID).encoded, to: descriptor, at: 0, path: path)
        } catch {
            throw .locked("the duplicate log: \(error)")
        }
    }

    /// Writes the header when it differs from `before` (nil: always).
    mutating func writeHeaderIfChanged(from before: Layout.Header?) throws(KeyDirectoryError) {
        guard before != header || headerWasDamaged else { return }
        headerWasDamaged = false
        try write(header.encoded, at: 0)
    }

    private func write(_ bytes: [UInt8], at offset: Int64) throws(KeyDirectoryError) {
        do throws(IOError) {
            try Self.write(bytes, to: descriptor, at: offset, path: path)
        } catch {
            throw .locked("the duplicate log: \(error)")
        }
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32, at offset: Int64, path: String) throws(IOError) {
        let result: Result<Void, IOError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(IOError) in try FileDescriptor.write(buffer, to: descriptor, at: offset, path: path) }
        }
        try result.get()
    }

    /// `count` slots from slot `first` (not past the table's end).
    private func readSlots(from first: Int64, count: Int64) throws(KeyDirectoryError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(count) * Layout.slotSize)
        if case let .failure(error) = bytes.withUnsafeMutableBytes({ FileDescriptor.read(into: $0, from: descriptor, at: Layout.offset(ofSlot: first), path: path) }) {
            throw .locked("the duplicate log: \(error)")
        }
        return bytes  // a short read (a file cut short) leaves zeros: empty slots
    }

    /// Every slot, in chunks of 1024, with its index.
    private func forEachSlot(_ body: (Int64, Layout.Slot) throws(KeyDirectoryError) -> Void) throws(KeyDirectoryError) {
        var first: Int64 = 0
        while first < header.slotCount {
            let count = min(1024, header.slotCount - first)
            let bytes = try readSlots(from: first, count: count)
            for index in 0..<Int(count) {
                let start = index * Layout.slotSize
                try body(first + Int64(index), Layout.decode(bytes[start..<(start + Layout.slotSize)]))
            }
            first += count
        }
    }

    /// Whether `record` is pruned (seen before the cutoff).
    private func isLive(_ record: Layout.Record) -> Bool { record.seenAt >= header.cutoff }

    /// What probing for a tag found: its live record (and slot), else the first slot an insert
    /// may use (a tombstone, invalid or pruned slot on the way, or the empty slot that ended the
    /// probe) and what was in it.
    struct Probe {
        var record: Layout.Record?
        var slot: Int64?
        var free: (index: Int64, previous: Previous)?
    }

    /// What a free slot held before an insert takes it (for the header's counts).
    enum Previous {
        case empty
        /// A record seen before the cutoff.
        case pruned
        /// A tombstone, or a slot that is neither empty nor valid.
        case tombstone
    }

    /// Linear probing from the tag's home slot, 8 slots per read, until the tag's live record or
    /// an empty slot (or all slots were seen). Only a slot holding the tag is decoded and its
    /// check verified (one SHA-256); another tag's record is passed on its state byte and tag
    /// bytes, and is reusable when its seen time is below the cutoff (were it garbage, reusing
    /// it loses nothing).
    func find(_ tag: [UInt8]) throws(KeyDirectoryError) -> Probe {
        let mask = header.slotCount - 1
        var probe = Probe()
        var index = Layout.homeSlot(of: tag, slotCount: header.slotCount)
        var seen: Int64 = 0
        while seen < header.slotCount {
            let count = min(8, header.slotCount - index, header.slotCount - seen)
            let bytes = try readSlots(from: index, count: count)
            for offset in 0..<Int(count) {
                let start = offset * Layout.slotSize
                let at = index + Int64(offset)
                switch Layout.classify(bytes, at: start, tag: tag, cutoff: header.cutoff) {
                case .empty:
                    if probe.free == nil { probe.free = (at, .empty) }
                    return probe
                case let .match(record):
                    probe.record = record
                    probe.slot = at
                    return probe
                case .otherRecord:
                    break
                case .pruned:
                    if probe.free == nil { probe.free = (at, .pruned) }
                case .tombstone:
                    if probe.free == nil { probe.free = (at, .tombstone) }
                }
            }
            seen += count
            index = (index + count) & mask
        }
        return probe
    }

    /// Inserts `record` unless its tag has a live record, which is returned instead. Rebuilds
    /// first (through `file`) when taking an empty slot would fill more than half the table.
    mutating func insert(_ record: Layout.Record, rebuildingIn file: DeliveryLogFile) throws(KeyDirectoryError) -> Layout.Record? {
        var probe = try find(record.tag)
        if let found = probe.record { return found }
        let takesEmptySlot: Bool
        if case .empty? = probe.free?.previous { takesEmptySlot = true } else { takesEmptySlot = probe.free == nil }
        // No free slot at all (the header's counts are not to be trusted for that) rebuilds too.
        if probe.free == nil || takesEmptySlot && (header.records + header.tombstones + 1) * 2 > header.slotCount {
            var live: [Layout.Record] = []
            try forEachSlot { _, slot throws(KeyDirectoryError) in
                if case let .record(found) = slot, isLive(found) { live.append(found) }
            }
            var slotCount = Layout.minimumSlotCount
            while (Int64(live.count) + 1) * 4 > slotCount { slotCount *= 2 }
            self = try file.rebuild(self, slotCount: slotCount, live: live)
            probe = try find(record.tag)
        }
        try put(record, into: probe)
        return nil
    }

    /// Writes `record` into a fresh table (rebuild): its tag is not there.
    mutating func place(_ record: Layout.Record) throws(KeyDirectoryError) {
        try put(record, into: try find(record.tag))
    }

    private mutating func put(_ record: Layout.Record, into probe: Probe) throws(KeyDirectoryError) {
        guard let (index, previous) = probe.free else { throw .locked("the duplicate log \(path) is full") }
        try write(Layout.encode(record), at: Layout.offset(ofSlot: index))
        switch previous {
        case .empty: header.records += 1
        case .tombstone:
            header.records += 1
            header.tombstones = max(header.tombstones - 1, 0)
        case .pruned: break
        }
    }

    /// Tombstones every record seen before `max(cutoff, header cutoff)`; returns how many of
    /// them were live. The header's cutoff is then spent (nothing below it is left).
    mutating func prune(before cutoff: Int64) throws(KeyDirectoryError) -> Int {
        let limit = max(cutoff, header.cutoff)
        var pruned = 0
        var tombstoned: [Int64] = []
        try forEachSlot { index, slot throws(KeyDirectoryError) in
            guard case let .record(record) = slot, record.seenAt < limit else { return }
            if isLive(record) { pruned += 1 }
            tombstoned.append(index)
        }
        for index in tombstoned { try write(Layout.tombstone, at: Layout.offset(ofSlot: index)) }
        header.records -= Int64(tombstoned.count)
        header.tombstones += Int64(tombstoned.count)
        header.cutoff = .min
        return pruned
    }

    /// Records not pruned.
    func liveCount() throws(KeyDirectoryError) -> Int {
        var count = 0
        try forEachSlot { _, slot throws(KeyDirectoryError) in
            if case let .record(record) = slot, isLive(record) { count += 1 }
        }
        return count
    }

    /// Counts records and tombstones (invalid slots as tombstones) from the slots: a header
    /// rebuilt after damage.
    mutating func recount() throws(KeyDirectoryError) {
        var records: Int64 = 0, tombstones: Int64 = 0
        try forEachSlot { _, slot throws(KeyDirectoryError) in
            switch slot {
            case .record: records += 1
            case .tombstone, .invalid: tombstones += 1
            case .empty: break
            }
        }
        (header.records, header.tombstones) = (records, tombstones)
    }
}
