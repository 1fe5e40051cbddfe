import PushSealCore
import PushSealKeyDirectory
internal import PushSealPlatform

/// Listens on a dedicated connection for the key directory's change notifications
/// (``PostgreSQLKeyDirectory/notificationChannel``) and reports each changed conversation
/// (nil: any conversation) to `onChange`, on its own thread.
///
/// When the connection drops it reconnects with backoff (50 ms doubling to 1 s) and, once
/// listening again, reports nil: notifications sent while it was away are lost, so everything
/// must be considered changed. ``isListening`` says whether it is connected now. It runs until
/// ``stop()`` (its thread keeps it alive until then; `PostgreSQLKeyProvider` stops its own).
public final class KeyDirectoryListener: @unchecked Sendable {
    private let uri: ConnectionURI
    private let options: PostgreSQLKeyDirectory.Options
    private let onChange: @Sendable (String?) -> Void
    private let lock = Lock()
    private var stopped = false
    private var listening = false
    private var thread: pthread_t?
    private var reconnects = 0

    /// Starts listening at `uri` (the directory's URI). Returns at once; the first connection is
    /// made on the listener's thread (see ``waitUntilListening(seconds:)``).
    public init(uri: String, options: PostgreSQLKeyDirectory.Options = .init(), onChange: @escaping @Sendable (String?) -> Void) throws(KeyDirectoryError) {
        self.uri = try ConnectionURI(uri)
        self.options = options
        self.onChange = onChange
        let box = Unmanaged.passRetained(self)
        var handle = pthread_t()
        let status = pthread_create(&handle, nil, { argument in
            let listener = Unmanaged<KeyDirectoryListener>.fromOpaque(argument!).takeRetainedValue()
            listener.run()
            return nil
        }, box.toOpaque())
        guard status == 0 else {
            box.release()
            throw .serverUnavailable("cannot start the listener thread (error \(status))")
        }
        thread = handle
    }

    /// Whether the listener is connected and listening now.
    public var isListening: Bool { lock.withLock { listening } }

    /// How many times the listener connected again after losing its connection.
    public var reconnectCount: Int { lock.withLock { reconnects } }

    /// Waits up to `seconds` for ``isListening``; returns it.
    @discardableResult
    public func waitUntilListening(seconds: Double) -> Bool {
        var waited = 0.0
        while !isListening, waited < seconds {
            usleep(10_000)
            waited += 0.01
        }
        return isListening
    }

    /// Stops listening and waits for the thread to end (at most one poll interval, 100 ms).
    public func stop() {
        let handle = lock.withLock { () -> pthread_t? in
            stopped = true
            defer { thread = nil }
            return thread
        }
        if let handle { pthread_join(handle, nil) }
    }

    deinit { stop() }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func run() {
        var delay = 0.05
        var connectedBefore = false
        while !isStopped {
            let connection: PostgreSQLConnection
            do throws(KeyDirectoryError) {
                connection = try PostgreSQLKeyDirectory.connect(uri, options)
                try connection.execute("LISTEN \(PostgreSQLKeyDirectory.notificationChannel)")
            } catch {
                usleep(useconds_t(delay * 1_000_000))
                delay = min(delay * 2, 1)
                continue
            }
            delay = 0.05
            lock.withLock {
                listening = true
                if connectedBefore { reconnects += 1 }
            }
            // Whatever changed while no connection was listening is unknown.
            onChange(nil)
            connectedBefore = true
            listen(on: connection)
            lock.withLock { listening = false }
        }
    }

    /// Reports notifications until the connection fails or the listener stops.
    private func listen(on connection: PostgreSQLConnection) {
        while !isStopped {
            var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready < 0, errno != EINTR { return }
            do throws(KeyDirectoryError) {
                for notification in try connection.notifications() {
                    onChange(notification.payload.isEmpty ? nil : notification.payload)
                }
            } catch {
                return
            }
        }
    }
}
