import PushSealCore

/// The Notification Service Extension contract, platform-neutral and thread-safe: one session per
/// notification delivers exactly once, whatever happens.
///
/// - ``start(_:)`` parses the payload, prepares the best attempt from its outer fields (before any
///   key is looked up or any byte decrypted), opens it, and delivers the result. It is
///   ``prepare(_:)`` followed by ``open(_:)``.
/// - ``expire()`` (`serviceExtensionTimeWillExpire`) delivers the best attempt prepared so far —
///   the payload's fallback once parsed, the app's text before that.
/// - ``complete(with:)`` delivers something the app built itself (for example after fetching a
///   content-free message).
///
/// Whichever of these comes first delivers; every later call — a second `start`, a late result
/// after `expire`, concurrent completions on other threads — delivers nothing and returns false.
/// The handler runs outside the session's lock, at most once, and is released afterwards.
public final class ExtensionSession: @unchecked Sendable {
    /// Which path delivered.
    public enum DeliveryKind: String, Sendable, Equatable {
        /// The receiver's result from ``start(_:)``.
        case opened
        /// The best attempt, from ``expire()``, ``expireIfDue()`` or a deadline already past in ``start(_:)``.
        case bestAttempt
        /// The app's own notification, from ``complete(with:)``.
        case explicit
    }

    /// What was delivered, and how.
    public struct Delivery: Sendable, Equatable {
        /// The delivered notification.
        public let notification: ReceivedNotification
        /// The path that delivered it.
        public let kind: DeliveryKind
    }

    /// The receiver that opens the payload.
    public let receiver: Receiver
    /// Seconds since 1970 after which ``start(_:)`` no longer begins opening and
    /// ``expireIfDue()`` expires; nil for none (the platform calls ``expire()`` itself).
    public let deadline: Int64?
    private let clock: SecondsClock

    private let lock = Lock()
    // Guarded by `lock`.
    private var handler: ((ReceivedNotification) -> Void)?
    private var started = false
    private var best: ReceivedNotification
    private var delivery: Delivery?

    /// A session that calls `deliver` exactly once. `clock` defaults to the receiver's clock.
    ///
    /// `deliver` may be called on any thread: on the thread of whichever call delivers.
    public init(receiver: Receiver, deadline: Int64? = nil, clock: SecondsClock? = nil, deliver: @escaping (ReceivedNotification) -> Void) {
        self.receiver = receiver
        self.deadline = deadline
        self.clock = clock ?? receiver.configuration.clock
        self.handler = deliver
        self.best = receiver.bestAttemptWithoutPayload()
    }

    /// Processes the notification: ``prepare(_:)``, then ``open(_:)``. Synchronous; run it off the
    /// thread that must stay free for ``expire()``.
    ///
    /// Returns true if this call delivered. A second call returns false at once; once something
    /// was delivered, opening is skipped (so the duplicate log records nothing for it).
    @discardableResult
    public func start(_ payload: ReceiverPayload) -> Bool {
        guard let parsed = prepare(payload) else { return false }
        return open(parsed)
    }

    /// Parses the payload and makes the best attempt from its outer fields — before any key is
    /// looked up or any byte decrypted — so that ``expire()`` has it from now on. For a payload that
    /// is not PushSeal's, the best attempt is the pass-through result itself.
    ///
    /// Returns nil, doing nothing, if the session was already started or has delivered. Use it with
    /// ``complete(with:)`` to do more work before delivering (for example fetching the message of
    /// a content-free notification: `session.receiver.open(parsed)`, fetch, `complete(with:)`).
    public func prepare(_ payload: ReceiverPayload) -> ParsedPayload? {
        let first = lock.withLock { () -> Bool in
            guard !started, delivery == nil else { return false }
            started = true
            return true
        }
        guard first else { return nil }

        let parsed = ParsedPayload(payload)
        // A payload that is not ours is already final (pass through) and needs no key.
        let prepared = parsed.isSealed ? receiver.bestAttempt(for: parsed) : receiver.open(parsed)
        return lock.withLock { () -> ParsedPayload? in
            guard delivery == nil else { return nil }
            best = prepared
            return parsed
        }
    }

    /// Opens a prepared payload and delivers the result, unless something was delivered already
    /// or the ``deadline`` has passed (then it delivers the best attempt). Returns true if this
    /// call delivered.
    @discardableResult
    public func open(_ parsed: ParsedPayload) -> Bool {
        if delivered != nil { return false }
        if isPastDeadline { return expire() }
        return claim(receiver.open(parsed), kind: .opened)
    }

    /// Delivers `notification` unless something was delivered already. Returns true if it did.
    @discardableResult
    public func complete(with notification: ReceivedNotification) -> Bool {
        claim(notification, kind: .explicit)
    }

    /// `serviceExtensionTimeWillExpire`: delivers the best attempt unless something was delivered
    /// already. Returns true if it did.
    @discardableResult
    public func expire() -> Bool {
        let winner = lock.withLock { () -> (handler: (ReceivedNotification) -> Void, notification: ReceivedNotification)? in
            guard delivery == nil, let handler else { return nil }
            delivery = Delivery(notification: best, kind: .bestAttempt)
            self.handler = nil
            return (handler, best)
        }
        guard let winner else { return false }
        winner.handler(winner.notification)
        return true
    }

    /// Expires if the clock has reached the ``deadline``. Returns true if this call delivered.
    @discardableResult
    public func expireIfDue() -> Bool {
        isPastDeadline ? expire() : false
    }

    /// What was delivered, if anything yet.
    public var delivered: Delivery? {
        lock.withLock { delivery }
    }

    /// What ``expire()`` would deliver now.
    public var bestAttempt: ReceivedNotification {
        lock.withLock { best }
    }

    private var isPastDeadline: Bool {
        guard let deadline else { return false }
        return clock() >= deadline
    }

    private func claim(_ notification: ReceivedNotification, kind: DeliveryKind) -> Bool {
        let winner = lock.withLock { () -> ((ReceivedNotification) -> Void)? in
            guard delivery == nil, let handler else { return nil }
            delivery = Delivery(notification: notification, kind: kind)
            self.handler = nil
            return handler
        }
        guard let winner else { return false }
        winner(notification)
        return true
    }
}
