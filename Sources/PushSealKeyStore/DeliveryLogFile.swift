import PushSealCore
import PushSealKeyDirectory
internal import PushSealPlatform

/// The duplicate log's file `pushseal-deliveries` beside the store's database (Docs/KEY-STORE.md
/// §2.1, §4): an on-disk hash table (``DeliveryLogLayout``) written without any sync, so a mark
/// costs a few system calls and survives a killed process (the operating system's cache has it)
/// but not necessarily a power loss.
///
/// Every operation runs under `flock` on the file's descriptor — exclusive for writes, shared
/// for reads — waited for within the store's busy wait and released before it returns (no lock
/// outlives a call: the iOS 0xdead10cc rule). After taking the lock, the descriptor's file is
/// compared with the path's: a log rebuilt (renamed over) or replaced meanwhile is reopened.
/// One instance per store instance; calls are serialized behind its lock. Package-visible for
/// the fuzz target that parses arbitrary log files (Sources/Fuzz/FuzzDeliveryLog).
package final class DeliveryLogFile: @unchecked Sendable {
    /// The file's name in the store directory.
    package static let fileName = "pushseal-deliveries"
    /// The rebuild's temporary file (created exclusively, renamed over the log). Only a holder
    /// of the exclusive lock on the current log creates it, so one found by such a holder is
    /// stale (a killed rebuild) and is removed.
    static let rebuildFileName = "pushseal-deliveries.rebuild"

    let directory: String
    let path: String
    /// The id this instance's log key gives (``ItemSealing/deliveryLogID(logKey:)``).
    let logID: [UInt8]
    private let lock = Lock()
    /// The open log and the file it is (`fstat` at open), with `lock` held.
    private var open: (descriptor: Int32, identity: FileSystem.Identity)?
    /// The slot count the open file was last found to hold (``Table/read(_:path:checkedSlotCount:)``),
    /// with `lock` held; nil whenever another file is opened.
    private var checkedSlotCount: Int64?

    package init(directory: String, logKey: SecretKey) {
        self.directory = directory
        self.path = FileSystem.join(directory, Self.fileName)
        self.logID = ItemSealing.deliveryLogID(logKey: logKey)
    }

    deinit {
        if let open { close(open.descriptor) }
    }

    // MARK: Operations

    /// What to do when the header names another key's log: `confirmCurrent` throws when this
    /// instance's master key is no longer the store's (then nothing is touched); when it returns,
    /// the log is stale (another master key, a rotation interrupted before its reset) and a write
    /// resets it, a read sees it empty.
    package typealias ConfirmCurrent = () throws(KeyDirectoryError) -> Void

    /// Checks and records `tag` at `now`; with `retention`, records seen before `now - retention`
    /// are pruned first (the header's cutoff). A repeat is a conflict when both envelope tags
    /// exist and differ.
    package func mark(
        tag: [UInt8], envelopeTag: [UInt8]?, now: Int64, retention: Int64?, confirmCurrent: ConfirmCurrent
    ) throws(KeyDirectoryError) -> DeliveryCheck {
        try withTable(exclusive: true, confirmCurrent: confirmCurrent) { table throws(KeyDirectoryError) -> DeliveryCheck in
            if now < table.header.cutoff { _ = try table.prune(before: table.header.cutoff) }  // the clock went back
            if let retention {
                let (cutoff, overflow) = now.subtractingReportingOverflow(retention)
                if !overflow, cutoff > table.header.cutoff { table.header.cutoff = cutoff }
            }
            let record = DeliveryLogLayout.Record(tag: tag, seenAt: now, envelopeTag: envelopeTag)
            switch try table.insert(record, rebuildingIn: self) {
            case nil:
                return .first
            case let recorded?:
                guard let envelopeTag, let earlier = recorded.envelopeTag else { return .duplicate }
                let same = earlier.withUnsafeBytes { e in envelopeTag.withUnsafeBytes { n in SecureMemory.constantTimeEqual(e, n) } }
                return same ? .duplicate : .conflict
            }
        }!
    }

    /// Records every one of `records` that is not recorded yet (the first record of a tag is
    /// kept): the format 8 → 9 migration, idempotent.
    func insertAll(_ records: [DeliveryLogLayout.Record], confirmCurrent: ConfirmCurrent) throws(KeyDirectoryError) {
        _ = try withTable(exclusive: true, confirmCurrent: confirmCurrent) { table throws(KeyDirectoryError) in
            for record in records { _ = try table.insert(record, rebuildingIn: self) }
        }
    }

    /// Whether `tag` is recorded (and not pruned). A missing log has no records.
    package func contains(_ tag: [UInt8], confirmCurrent: ConfirmCurrent) throws(KeyDirectoryError) -> Bool {
        try withTable(exclusive: false, confirmCurrent: confirmCurrent) { table throws(KeyDirectoryError) in
            try table.find(tag).record != nil
        } ?? false
    }

    /// The number of records not pruned.
    package func count(confirmCurrent: ConfirmCurrent) throws(KeyDirectoryError) -> Int {
        try withTable(exclusive: false, confirmCurrent: confirmCurrent) { table throws(KeyDirectoryError) in
            try table.liveCount()
        } ?? 0
    }

    /// Tombstones the records seen before `cutoff` (and those below the header's cutoff);
    /// returns how many of them were not pruned yet.
    package func prune(before cutoff: Int64, confirmCurrent: ConfirmCurrent) throws(KeyDirectoryError) -> Int {
        try withTable(exclusive: true, confirmCurrent: confirmCurrent) { table throws(KeyDirectoryError) in
            try table.prune(before: cutoff)
        }!
    }

    /// Empties the log (a new table under this instance's id), whatever it held and whoever
    /// wrote it; returns how many records were live. Creates the log when missing.
    @discardableResult
    package func reset() throws(KeyDirectoryError) -> Int {
        try withLockedFile(exclusive: true, create: true, confirmCurrent: {}) { descriptor throws(KeyDirectoryError) -> Int in
            let existing = try? Table.read(descriptor, path: path)
            let live = (try? existing?.liveCount()) ?? 0
            try Table.initialize(descriptor, path: path, slotCount: DeliveryLogLayout.minimumSlotCount, logID: logID)
            return live
        }!
    }

    // MARK: The table under the lock

    /// Runs `body` on the table under the lock; nil when the log does not exist and `exclusive`
    /// is false. A write initializes a missing, empty or unreadable log, resets another key's
    /// (after `confirmCurrent`), and writes the header back when `body` changed it.
    private func withTable<R>(
        exclusive: Bool, confirmCurrent: ConfirmCurrent, _ body: (inout Table) throws(KeyDirectoryError) -> R
    ) throws(KeyDirectoryError) -> R? {
        try withLockedFile(exclusive: exclusive, create: exclusive, confirmCurrent: confirmCurrent) { descriptor throws(KeyDirectoryError) -> R? in
            var table: Table
            switch try Table.read(descriptor, path: path, checkedSlotCount: checkedSlotCount) {
            case var found? where found.header.logID == logID || found.headerWasDamaged:
                if found.headerWasDamaged, exclusive {
                    // Rebuilt from the slots (their checks hold); the cutoff is lost (records
                    // pruned but not yet tombstoned count again: older than any freshness window).
                    found.header.logID = logID
                    try found.recount()
                }
                table = found
            case .some:
                try confirmCurrent()
                guard exclusive else { return nil }
                try Table.initialize(descriptor, path: path, slotCount: DeliveryLogLayout.minimumSlotCount, logID: logID)
                table = try Table.read(descriptor, path: path)!
            case nil:
                guard exclusive else { return nil }
                try Table.initialize(descriptor, path: path, slotCount: DeliveryLogLayout.minimumSlotCount, logID: logID)
                table = try Table.read(descriptor, path: path)!
            }
            checkedSlotCount = table.header.slotCount
            let before = table.header
            let result: R
            do throws(KeyDirectoryError) {
                result = try body(&table)
            } catch {
                if table.descriptor != descriptor { close(table.descriptor) }  // a rebuilt log, and its lock
                throw error
            }
            if table.descriptor != descriptor {
                // Rebuilt: the new file is the log now (locked by the rebuild until here).
                try table.writeHeaderIfChanged(from: nil)
                FileDescriptor.unlock(table.descriptor)
                checkedSlotCount = table.header.slotCount  // written by the rebuild
                adopt(table.descriptor)
            } else if exclusive {
                try table.writeHeaderIfChanged(from: before)
            }
            return result
        }
    }

    /// Opens the log when needed (creating it exclusively, 0600, when missing and `create`;
    /// `confirmCurrent` runs first when it is missing: a store removed underneath is reported,
    /// not given a new log), takes the lock, checks that the path still names the open file
    /// (reopening and retrying when not), runs `body` and releases the lock. Nil when the log is
    /// missing and not `create`.
    private func withLockedFile<R>(
        exclusive: Bool, create: Bool, confirmCurrent: ConfirmCurrent, _ body: (Int32) throws(KeyDirectoryError) -> R?
    ) throws(KeyDirectoryError) -> R? {
        try lock.withLock { () throws(KeyDirectoryError) -> R? in
            let deadline = MonotonicClock.milliseconds() + UInt64(DeviceKeyStore.lockWaitSeconds) * 1000
            while true {
                if open == nil {
                    guard let opened = try openLog(create: create, confirmCurrent: confirmCurrent) else { return nil }
                    open = opened
                }
                let (descriptor, identity) = open!
                let remaining = Int(Int64(deadline) - Int64(MonotonicClock.milliseconds()))
                switch FileDescriptor.lock(descriptor, exclusive: exclusive, timeoutMilliseconds: remaining) {
                case .locked:
                    break
                case .timedOut:
                    throw .locked("the duplicate log \(path) stayed locked by another process for \(DeviceKeyStore.lockWaitSeconds) s")
                case let .failed(code):
                    closeLog()
                    throw .locked("cannot lock the duplicate log \(path): \(Errno.message(code))")
                }
                guard FileSystem.identity(path, followingSymbolicLinks: false) == identity else {
                    // Rebuilt or replaced since it was opened: open what the path names now.
                    FileDescriptor.unlock(descriptor)
                    closeLog()
                    continue
                }
                defer { if let current = open?.descriptor { FileDescriptor.unlock(current) } }
                do throws(KeyDirectoryError) {
                    return try body(descriptor)
                } catch {
                    closeLog()  // whatever went wrong, the next call starts from the path
                    throw error
                }
            }
        }
    }

    /// Opens the log read-write: a regular file of this user (``FileSystem/openOwnedRegularFile(_:writable:)``),
    /// created exclusively with mode 0600 first when missing and `create`.
    private func openLog(create: Bool, confirmCurrent: ConfirmCurrent) throws(KeyDirectoryError) -> (descriptor: Int32, identity: FileSystem.Identity)? {
        while true {
            switch FileSystem.openOwnedRegularFile(path, writable: true) {
            case let .opened(descriptor, _, _):
                guard let identity = FileDescriptor.identity(descriptor) else {
                    close(descriptor)
                    throw .locked("cannot stat the duplicate log \(path)")
                }
                // O_NONBLOCK only served the open; regular files ignore it.
                return (descriptor, identity)
            case .missing:
                try confirmCurrent()
                guard create else { return nil }
                if let code = FileSystem.createExclusively(path) {
                    throw .locked("cannot create the duplicate log \(path): \(Errno.message(code))")
                }
            case .symbolicLink:
                throw .invalidStore("the duplicate log \(path) is a symbolic link")
            case .unopenableType:
                throw .invalidStore("the duplicate log \(path) is not a regular file")
            case let .notRegularFile(kind):
                throw .invalidStore("the duplicate log \(path) is not a regular file (it is \(kind))")
            case let .otherOwner(uid):
                throw .locked("the duplicate log \(path) is owned by user \(uid), not by this user (\(geteuid()))")
            case let .openFailed(code), let .statFailed(code):
                if code == EISDIR { throw .invalidStore("the duplicate log \(path) is not a regular file (it is a directory)") }
                throw .locked("cannot open the duplicate log \(path): \(Errno.message(code))")
            }
        }
    }

    private func closeLog() {
        if let open { close(open.descriptor) }
        open = nil
        checkedSlotCount = nil
    }

    /// Makes `descriptor` (a rebuilt log, renamed over the path) the open log.
    private func adopt(_ descriptor: Int32) {
        let slotCount = checkedSlotCount
        closeLog()
        if let identity = FileDescriptor.identity(descriptor) { open = (descriptor, identity) } else { close(descriptor) }
        checkedSlotCount = slotCount
    }

    // MARK: Rebuild

    /// Writes the live records of `table` into a new table of `slotCount` slots in a temporary
    /// file (created exclusively in the directory, locked, synced), renames it over the log and
    /// syncs the directory; returns the new table, still locked. Runs with the exclusive lock
    /// on the current log, so waiters see the path change and reopen.
    fileprivate func rebuild(_ table: Table, slotCount: Int64, live: [DeliveryLogLayout.Record]) throws(KeyDirectoryError) -> Table {
        let temporary = FileSystem.join(directory, Self.rebuildFileName)
        _ = unlink(temporary)  // stale: only a holder of this lock creates it
        if let code = FileSystem.createExclusively(temporary) {
            throw .locked("cannot create \(temporary): \(Errno.message(code))")
        }
        guard case let .opened(descriptor, _, _) = FileSystem.openOwnedRegularFile(temporary, writable: true) else {
            _ = unlink(temporary)
            throw .locked("cannot open \(temporary)")
        }
        var committed = false
        defer {
            if !committed {
                close(descriptor)
                _ = unlink(temporary)
            }
        }
        guard FileDescriptor.lock(descriptor, exclusive: true, timeoutMilliseconds: 0) == .locked else {
            throw .locked("cannot lock \(temporary)")
        }
        try Table.initialize(descriptor, path: temporary, slotCount: slotCount, logID: table.header.logID)
        var rebuilt = try Table.read(descriptor, path: temporary)!
        for record in live { try rebuilt.place(record) }
        try rebuilt.writeHeaderIfChanged(from: nil)
        guard FileDescriptor.sync(descriptor) else { throw .locked("cannot sync \(temporary): \(Errno.message(errno))") }
        guard rename(temporary, path) == 0 else { throw .locked("cannot rename \(temporary) over \(path): \(Errno.message(errno))") }
        committed = true
        FileSystem.syncDirectory(directory)
        return rebuilt
    }
}

/// The log's table as read under the lock: the header and positioned slot reads and writes.
private struct Table {
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
    static func read(_ descriptor: Int32, path: String, checkedSlotCount: Int64? = nil) throws(KeyDirectoryError) -> Table? {
        var bytes = [UInt8](repeating: 0, count: Layout.slotSize)
        let read = bytes.withUnsafeMutableBytes { FileDescriptor.read(into: $0, from: descriptor, at: 0) }
        guard case let .success(count) = read else { throw .locked("cannot read the duplicate log \(path): \(Errno.message(errno))") }
        let header = count == Layout.slotSize ? Layout.Header(bytes[...]) : nil
        if let header, header.slotCount == checkedSlotCount { return Table(descriptor: descriptor, path: path, header: header) }
        guard let size = FileDescriptor.size(descriptor) else { throw .locked("cannot stat the duplicate log \(path)") }
        if let header, size >= Layout.fileSize(slotCount: header.slotCount) {
            return Table(descriptor: descriptor, path: path, header: header)
        }
        guard let slots = Layout.slotCount(fileSize: size) else { return nil }
        return Table(descriptor: descriptor, path: path, header: .empty(slotCount: slots, logID: []), headerWasDamaged: true)
    }

    /// Makes the file an empty table of `slotCount` slots (truncated to nothing first, so no
    /// old slot survives).
    static func initialize(_ descriptor: Int32, path: String, slotCount: Int64, logID: [UInt8]) throws(KeyDirectoryError) {
        do throws(IOError) {
            try FileDescriptor.setSize(descriptor, to: 0)
            try FileDescriptor.setSize(descriptor, to: Layout.fileSize(slotCount: slotCount))
            try Table.write(Layout.Header.empty(slotCount: slotCount, logID: logID).encoded, to: descriptor, at: 0)
        } catch {
            throw .locked("cannot write the duplicate log \(path): \(error)")
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
            try Self.write(bytes, to: descriptor, at: offset)
        } catch {
            throw .locked("cannot write the duplicate log \(path): \(error)")
        }
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32, at offset: Int64) throws(IOError) {
        let result: Result<Void, IOError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(IOError) in try FileDescriptor.write(buffer, to: descriptor, at: offset) }
        }
        try result.get()
    }

    /// `count` slots from slot `first` (not past the table's end).
    private func readSlots(from first: Int64, count: Int64) throws(KeyDirectoryError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(count) * Layout.slotSize)
        let read = bytes.withUnsafeMutableBytes { FileDescriptor.read(into: $0, from: descriptor, at: Layout.offset(ofSlot: first)) }
        guard case .success = read else { throw .locked("cannot read the duplicate log \(path): \(Errno.message(errno))") }
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
        if takesEmptySlot, (header.records + header.tombstones + 1) * 2 > header.slotCount {
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
