import PushSealCore

/// The sessions of one extension object that have not delivered yet.
///
/// A Notification Service Extension object may be asked to handle many requests, and the system
/// may keep its process for many notifications; `serviceExtensionTimeWillExpire` must still reach
/// every session that has not delivered. A session made by ``makeSession(receiver:deadline:clock:deliver:)``
/// is listed until it delivers — by whichever path — and leaves the list then, so the list holds
/// only sessions still in progress and does not grow with the number of notifications handled.
public final class ExtensionSessionRegistry: @unchecked Sendable {
    private let lock = Lock()
    // Guarded by `lock`.
    private var pending: [UInt64: ExtensionSession] = [:]
    private var nextID: UInt64 = 0

    /// An empty registry.
    public init() {}

    /// A new ``ExtensionSession``, listed until it delivers. `deliver` is called exactly once, as
    /// for ``ExtensionSession/init(receiver:deadline:clock:deliver:)``, after the session left the list.
    public func makeSession(
        receiver: Receiver, deadline: Int64? = nil, clock: SecondsClock? = nil,
        deliver: @escaping (ReceivedNotification) -> Void
    ) -> ExtensionSession {
        let id = lock.withLock { () -> UInt64 in
            nextID &+= 1
            return nextID
        }
        let session = ExtensionSession(receiver: receiver, deadline: deadline, clock: clock) { [weak self] notification in
            self?.remove(id)
            deliver(notification)
        }
        // No one holds the session yet, so it cannot have delivered before it is listed.
        lock.withLock { pending[id] = session }
        return session
    }

    /// The number of listed sessions: those made here that have not delivered.
    public var count: Int {
        lock.withLock { pending.count }
    }

    /// `serviceExtensionTimeWillExpire`: delivers the best attempt of every listed session (each
    /// leaves the list as it delivers). Returns how many this call delivered.
    @discardableResult
    public func expireAll() -> Int {
        let sessions = lock.withLock { Array(pending.values) }
        return sessions.reduce(0) { $0 + ($1.expire() ? 1 : 0) }
    }

    private func remove(_ id: UInt64) {
        _ = lock.withLock { pending.removeValue(forKey: id) }
    }
}
