internal import PushSealPlatform
import Dispatch
public import PushSealCore

public import PushSealKeyDirectory
/// One notification of a batch: the content, its key (or nil to ask the batch's key provider for
/// the current key of `content.conversationID`), and its transport options.
public struct BatchItem<Options: TransportOptions>: Sendable {
    /// The content to seal.
    public var content: NotificationContent
    /// The key to seal under; nil to use the batch's `CurrentKeyProvider`.
    public var key: ConversationKey?
    /// ``APNsOptions`` or ``FCMOptions`` for this notification.
    public var options: Options

    /// An item.
    public init(content: NotificationContent, key: ConversationKey? = nil, options: Options) {
        self.content = content
        self.key = key
        self.options = options
    }
}

extension NotificationSealer {
    /// Seals many notifications on all cores, for the transport of the items' options
    /// (``APNsOptions`` or ``FCMOptions``). Results are in input order; an invalid item fails only
    /// itself. Items without a key use `keyProvider`, which is asked at most once per
    /// conversation and thread of the call. The calling thread alone reads the results after the
    /// call; to send them from every core as they are sealed, pass a `deliver` closure.
    public func seal<Options: TransportOptions>(
        batch items: [BatchItem<Options>], keyProvider: (any CurrentKeyProvider)? = nil
    ) -> [Result<Options.SealedRequest, ProviderError>] {
        collectBatch(items.count) { deliver in Options.sealing.sealBatch(self, items, keyProvider, deliver) }
    }

    /// Seals many notifications on all cores and hands each result to `deliver` as soon as it
    /// is sealed, on the thread that sealed it. The fastest way to seal many notifications: the
    /// requests are read, sent and freed on every core instead of by the caller alone
    /// (Docs/PROVIDER.md, "Sealing many notifications").
    ///
    /// `deliver` is called exactly once per item, with the item's index in `items`, from several
    /// threads at once and in no particular order; the call returns after the last one. Keep it
    /// short (hand the request to a sender's queue, say): a thread seals nothing while it runs.
    /// An invalid item fails only itself. Items without a key use `keyProvider`, asked at most
    /// once per conversation and thread of the call.
    ///
    /// ```swift
    /// sealer.seal(batch: items) { index, result in
    ///     switch result {
    ///     case let .success(request): sender.enqueue(request, for: recipients[index])
    ///     case let .failure(error): log.notSealed(recipients[index], error.code)
    ///     }
    /// }
    /// ```
    public func seal<Options: TransportOptions>(
        batch items: [BatchItem<Options>], keyProvider: (any CurrentKeyProvider)? = nil,
        deliver: @Sendable (_ index: Int, _ result: consuming Result<Options.SealedRequest, ProviderError>) -> Void
    ) {
        Options.sealing.sealBatch(self, items, keyProvider, deliver)
    }

    /// The results of a batch in input order: `run` (a delivering `seal(batch:)`) delivers each
    /// exactly once, into its place.
    @inline(__always)
    private func collectBatch<Output>(
        _ count: Int, _ run: (@Sendable (Int, consuming Result<Output, ProviderError>) -> Void) -> Void
    ) -> [Result<Output, ProviderError>] {
        guard count > 0 else { return [] }
        // Each result is initialized in place, exactly once, by the thread that seals its item.
        return [Result<Output, ProviderError>](unsafeUninitializedCapacity: count) { buffer, initialized in
            nonisolated(unsafe) let slots = buffer.baseAddress!
            run { index, result in (slots + index).initialize(to: result) }
            initialized = count
        }
    }

    /// The fewest and the most items a thread of a batch claims at a time. A claim is a share
    /// of what is left (guided scheduling): large while much is left, so that claims are few (each
    /// moves the claim counter's cache line between the cores, and neighbouring results share
    /// cache lines), small at the end, so that the threads finish together.
    static let batchClaimSizes = 4...64

    /// Hands each item's result to `deliver` on the thread that sealed it. Inlined into the
    /// transports' batch sealing (``TransportOptions/sealing``), so it
    /// is specialized for APNs and FCM (unspecialized, every item, option and result was copied
    /// through generic value witnesses).
    ///
    /// One task per core; each sets up its private state once (key copies, the key-provider
    /// cache), then claims items (``batchClaimSizes``) until
    /// none are left. A thread that starts late (waking one takes tens of microseconds on a
    /// virtual machine) finds less or nothing to do instead of leaving a share unfinished.
    @inline(__always)
    func sealBatch<Options: TransportOptions, Output>(
        _ items: [BatchItem<Options>], keyProvider: (any CurrentKeyProvider)?,
        deliver: @Sendable (Int, consuming Result<Output, ProviderError>) -> Void,
        sealOne: @Sendable (borrowing NotificationContent, ConversationKey, borrowing Options) throws(ProviderError) -> Output
    ) {
        let count = items.count
        guard count > 0 else { return }
        let claimSizes = Self.batchClaimSizes
        let threads = min(Processors.onlineCount, (count + claimSizes.lowerBound - 1) / claimSizes.lowerBound)
        let claims = BatchClaims(count: count, threads: threads, claimSizes: claimSizes)
        items.withUnsafeBufferPointer { input in
            nonisolated(unsafe) let input = UnsafePointer(input.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                // Current keys looked up by this thread, by conversation id bytes.
                var cache: [[UInt8]: Result<ConversationKey, ProviderError>] = [:]
                // Given keys, each replaced by a copy private to this thread (see below).
                var privateKeys = PrivateKeyCopies()
                while let claim = claims.next() {
                    for index in claim {
                        let item = input + index
                        deliver(index, Result { () throws(ProviderError) -> Output in
                            let key: ConversationKey
                            // The identity is read without copying the shared key out of the item.
                            if let identity = item.pointee.key?.storageIdentity {
                                key = privateKeys.copy(of: identity) { item.pointee.key! }
                            } else {
                                try SizePolicy.validate(item.pointee.content)
                                guard let keyProvider else {
                                    throw .keyUnavailable(conversation: item.pointee.content.conversationID, detail: "no key given and no key provider")
                                }
                                let id = Array(item.pointee.content.conversationID.utf8)
                                let lookup = cache[id] ?? Result { () throws(ProviderError) -> ConversationKey in
                                    try Self.currentKey(for: item.pointee.content, from: keyProvider).privateCopy()
                                }
                                cache[id] = lookup
                                key = try lookup.get()
                            }
                            // Salts come from the sealer's source: for random salts, this thread's pool.
                            return try sealOne(item.pointee.content, key, item.pointee.options)
                        })
                    }
                }
            }
        }
    }
}

/// The items of one batch call not yet claimed by a thread, handed out a share at a time.
final class BatchClaims: @unchecked Sendable {
    private let lock = Lock()
    private let count: Int
    private let threads: Int
    private let claimSizes: ClosedRange<Int>
    /// The first unclaimed item; guarded by `lock`.
    private var unclaimed = 0

    init(count: Int, threads: Int, claimSizes: ClosedRange<Int>) {
        self.count = count
        self.threads = threads
        self.claimSizes = claimSizes
    }

    /// The next items to seal (half of an even share of what is left, within `claimSizes`), or
    /// nil when every item has been claimed.
    func next() -> Range<Int>? {
        lock.withLock {
            guard unclaimed < count else { return nil }
            let start = unclaimed
            let share = (count - start) / (2 * threads)
            unclaimed = min(count, start + min(claimSizes.upperBound, max(claimSizes.lowerBound, share)))
            return start..<unclaimed
        }
    }
}

/// The private copies of the keys one thread of a batch seals with. Every item of a batch usually
/// carries the same key; if each thread sealed with that one key, every retain and release of its
/// storage would move a cache line between the cores (Docs/PERFORMANCE.md §5.2). A thread instead
/// copies each distinct key once and uses its copy.
private struct PrivateKeyCopies {
    private var last: (original: ObjectIdentifier, copy: ConversationKey)?
    private var others: [ObjectIdentifier: ConversationKey] = [:]

    /// This thread's copy of the key whose ``ConversationKey/storageIdentity`` is `identity`,
    /// made from `key()` on first use. The key stays alive (it is in the batch's items) while the
    /// batch call runs, so its storage identity cannot be reused by another key meanwhile.
    @inline(__always)
    mutating func copy(of identity: ObjectIdentifier, _ key: () -> ConversationKey) -> ConversationKey {
        if let last, last.original == identity { return last.copy }
        let copy: ConversationKey
        if let known = others[identity] {
            copy = known
        } else {
            copy = key().privateCopy()
            others[identity] = copy
        }
        last = (identity, copy)
        return copy
    }
}

extension NotificationSealer {
    /// Seals a stream of JSON lines (``SealRequestLine``: `pushseal seal --batch`) in bounded
    /// memory, with one outcome per line, in input order, and each line's error as a value.
    ///
    /// Lines are read in groups of at most ``SealLineLimits/lines`` lines and
    /// ``SealLineLimits/bytes`` bytes (only those already read, see
    /// ``JSONLineReader/nextLines(maximumCount:maximumByteCount:)``), so memory stays bounded
    /// whatever the input's length, and each group is handed to `outcomes` before more input is
    /// read: a caller that writes and flushes them there serves a co-process that writes one
    /// line and waits for its result. For each line of a group, in order, on the calling
    /// thread: a line longer than the reader's ``JSONLineReader/maximumLineByteCount`` (never
    /// held in memory) fails as ``ProviderError/invalidOption(field:detail:)`` of `line`; a line
    /// that is no request fails with ``SealRequestLine/init(parsing:)``'s error; otherwise
    /// `item` makes the item to seal from the request (the caller's key and transport options
    /// per line; what it throws is that line's failure). The group's items are then sealed on
    /// all cores (``seal(batch:keyProvider:)``; items without a key use `keyProvider`).
    ///
    /// `outcomes` receives every line's ``SealLineOutcome``, numbered from 1 across the whole
    /// stream. What the reader or `outcomes` throws ends the call. Returns the number of lines.
    ///
    /// ```swift
    /// let reader = JSONLineReader(maximumLineByteCount: SealRequestLine.maximumByteCount, read: socket.read)
    /// let count = try sealer.seal(lines: reader, keyProvider: keys, item: { request in
    ///     BatchItem(content: request.content, key: request.key, options: APNsOptions(placeholder: .text(title: nil, body: "New message")))
    /// }, outcomes: { outcomes in
    ///     for outcome in outcomes { try socket.write(outcome) }
    /// })
    /// ```
    public func seal<Options: TransportOptions, ReadError: Error>(
        lines reader: JSONLineReader<ReadError>, keyProvider: (any CurrentKeyProvider)? = nil, limits: SealLineLimits = SealLineLimits(),
        item: (_ request: SealRequestLine) throws(ProviderError) -> BatchItem<Options>,
        outcomes: (_ outcomes: [SealLineOutcome<Options.SealedRequest>]) throws(ReadError) -> Void
    ) throws(ReadError) -> Int {
        var lineCount = 0
        while let lines = try reader.nextLines(maximumCount: limits.lines, maximumByteCount: limits.bytes) {
            var results = [Result<Options.SealedRequest, ProviderError>?](repeating: nil, count: lines.count)
            var items: [BatchItem<Options>] = []
            var positions: [Int] = []
            for (index, line) in lines.enumerated() {
                do throws(ProviderError) {
                    switch line {
                    case let .complete(bytes):
                        items.append(try item(try SealRequestLine(parsing: bytes)))
                    case let .tooLong(count):
                        throw .invalidOption(
                            field: "line",
                            detail: "is \(count) bytes, more than the \(SealLineLimits.sizeText(reader.maximumLineByteCount)) a batch line may have")
                    }
                    positions.append(index)
                } catch {
                    results[index] = .failure(error)
                }
            }
            for (position, result) in zip(positions, seal(batch: items, keyProvider: keyProvider)) {
                results[position] = result
            }
            let first = lineCount + 1
            lineCount += lines.count
            try outcomes(results.enumerated().map { SealLineOutcome(line: first + $0.offset, result: $0.element!) })
        }
        return lineCount
    }
}
