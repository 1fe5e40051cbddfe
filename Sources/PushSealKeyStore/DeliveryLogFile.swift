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
    /// The slot count the open file was last found to hold (``DeliveryLogTable/read(_:path:checkedSlotCount:)``),
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
            let existing = try? DeliveryLogTable.read(descriptor, path: path)
            let live = (try? existing?.liveCount()) ?? 0
            try DeliveryLogTable.initialize(descriptor, path: path, slotCount: DeliveryLogLayout.minimumSlotCount, logID: logID)
            return live
        }!
    }

    // MARK: The table under the lock

    /// Runs `body` on the table under the lock; nil when the log does not exist and `exclusive`
    /// is false. A write initializes a missing, empty or unreadable log, resets another key's
    /// (after `confirmCurrent`), and writes the header back when `body` changed it.
    private func withTable<R>(
        exclusive: Bool, confirmCurrent: ConfirmCurrent, _ body: (inout DeliveryLogTable) throws(KeyDirectoryError) -> R
    ) throws(KeyDirectoryError) -> R? {
        try withLockedFile(exclusive: exclusive, create: exclusive, confirmCurrent: confirmCurrent) { descriptor throws(KeyDirectoryError) -> R? in
            var table: DeliveryLogTable
            switch try DeliveryLogTable.read(descriptor, path: path, checkedSlotCount: checkedSlotCount) {
            case var found? where found.header.logID == logID || found.headerWasDamaged:
                if found.headerWasDamaged, exclusive {
                    // Rebuilt from the slots (their checks hold); the cutoff is lost (records
                    // pruned but not yet tombstoned count again: older than any freshness window).
                    found.header.logID = logID
                    try found.recount()
                }
                table = found
            case .some:
                // Another key's log: stale once this instance is confirmed current.
                try confirmCurrent()
                fallthrough
            case nil:
                guard exclusive else { return nil }
                try DeliveryLogTable.initialize(descriptor, path: path, slotCount: DeliveryLogLayout.minimumSlotCount, logID: logID)
                table = try DeliveryLogTable.read(descriptor, path: path)!
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

    /// Opens the log read-write (read-only when it may not be written): a regular file of this
    /// user (``FileSystem/openOwnedRegularFile(_:writable:)``), created exclusively with mode 0600
    /// first when missing and `create`.
    private func openLog(create: Bool, confirmCurrent: ConfirmCurrent) throws(KeyDirectoryError) -> (descriptor: Int32, identity: FileSystem.Identity)? {
        while true {
            var opening = FileSystem.openOwnedRegularFile(path, writable: true)
            if case let .openFailed(code) = opening, code == EACCES || code == EROFS {
                // A log this process may only read (a read-only store): reads work, a mark fails
                // at its write.
                opening = FileSystem.openOwnedRegularFile(path, writable: false)
            }
            switch opening {
            case let .opened(descriptor, _, _, identity):
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
    func rebuild(_ table: DeliveryLogTable, slotCount: Int64, live: [DeliveryLogLayout.Record]) throws(KeyDirectoryError) -> DeliveryLogTable {
        let temporary = FileSystem.join(directory, Self.rebuildFileName)
        _ = unlink(temporary)  // stale: only a holder of this lock creates it
        if let code = FileSystem.createExclusively(temporary) {
            throw .locked("cannot create \(temporary): \(Errno.message(code))")
        }
        guard case let .opened(descriptor, _, _, _) = FileSystem.openOwnedRegularFile(temporary, writable: true) else {
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
        try DeliveryLogTable.initialize(descriptor, path: temporary, slotCount: slotCount, logID: table.header.logID)
        var rebuilt = try DeliveryLogTable.read(descriptor, path: temporary)!
        for record in live { try rebuilt.place(record) }
        try rebuilt.writeHeaderIfChanged(from: nil)
        guard FileDescriptor.sync(descriptor) else { throw .locked("cannot sync \(temporary): \(Errno.message(errno))") }
        guard rename(temporary, path) == 0 else { throw .locked("cannot rename \(temporary) over \(path): \(Errno.message(errno))") }
        committed = true
        FileSystem.syncDirectory(directory)
        return rebuilt
    }
}
