import Dispatch
@_spi(Vectors) import PushSealCore
import PushSealReceiver
import Synchronization
import Testing

@Suite("Extension session registry: a session leaves the list when it delivers (issue 29 item 9)")
struct ExtensionSessionRegistryTests {
    let payload = ReceiverPayload.json(apns(wire: validWire))

    @Test("A process reused for many notifications keeps only the sessions still in progress")
    func reusedProcessDoesNotGrow() {
        let registry = ExtensionSessionRegistry()
        let recorder = DeliveryRecorder()
        for round in 1...500 {
            let session = registry.makeSession(receiver: makeReceiver(sourceA())) { recorder.record($0) }
            #expect(registry.count == 1)
            switch round % 3 {
            case 0: #expect(session.start(payload))
            case 1: #expect(session.complete(with: makeReceiver(sourceA()).bestAttemptWithoutPayload()))
            default:
                let parsed = session.prepare(payload)
                #expect(parsed != nil)
                #expect(session.expire())
            }
            #expect(registry.count == 0)
        }
        #expect(recorder.all.count == 500)
        // Nothing is left for serviceExtensionTimeWillExpire.
        #expect(registry.expireAll() == 0)
        #expect(recorder.all.count == 500)
    }

    @Test("expireAll delivers the best attempt of exactly the sessions that have not delivered, once each")
    func expireAllReachesPending() {
        let registry = ExtensionSessionRegistry()
        let done = DeliveryRecorder(), waiting = DeliveryRecorder()
        let finished = (0..<4).map { _ in registry.makeSession(receiver: makeReceiver(sourceA())) { done.record($0) } }
        let pending = (0..<3).map { _ in registry.makeSession(receiver: makeReceiver(sourceA())) { waiting.record($0) } }
        for session in finished { #expect(session.start(payload)) }
        _ = pending[0].prepare(payload)
        #expect(registry.count == 3)
        #expect(registry.expireAll() == 3)
        #expect(registry.count == 0)
        #expect(done.all.map(\.outcome) == Array(repeating: .decrypted, count: 4))
        #expect(waiting.all.count == 3)
        #expect(pending.allSatisfy { $0.delivered?.kind == .bestAttempt })
        #expect(registry.expireAll() == 0)
        #expect(waiting.all.count == 3)
    }

    @Test("The session has left the list before its handler runs")
    func removedBeforeHandler() {
        let registry = ExtensionSessionRegistry()
        let seen = Mutex<[Int]>([])
        let session = registry.makeSession(receiver: makeReceiver(sourceA())) { _ in
            seen.withLock { $0.append(registry.count) }
        }
        #expect(session.start(payload))
        #expect(seen.withLock { $0 } == [0])
    }

    @Test("Concurrent notifications and an expiry: every session delivers once and the list ends empty")
    func concurrent() {
        let registry = ExtensionSessionRegistry()
        let deliveries = Atomic<Int>(0)
        let sessions = (0..<200).map { _ in
            registry.makeSession(receiver: makeReceiver(sourceA())) { _ in deliveries.add(1, ordering: .relaxed) }
        }
        let group = DispatchGroup()
        for (index, session) in sessions.enumerated() {
            DispatchQueue.global().async(group: group) { _ = session.start(payload) }
            if index == 100 { DispatchQueue.global().async(group: group) { _ = registry.expireAll() } }
        }
        group.wait()
        #expect(deliveries.load(ordering: .relaxed) == 200)
        #expect(sessions.allSatisfy { $0.delivered != nil })
        #expect(registry.count == 0)
    }
}
