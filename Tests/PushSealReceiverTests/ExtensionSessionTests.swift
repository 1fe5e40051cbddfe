import Dispatch
import Foundation
@_spi(Vectors) import PushSealCore
import PushSealReceiver
import PushSealTestSupport
import Synchronization
import Testing

/// Records every delivery a session makes.
final class DeliveryRecorder: Sendable {
    private let deliveries = Mutex<[ReceivedNotification]>([])
    var all: [ReceivedNotification] { deliveries.withLock { $0 } }
    func record(_ notification: ReceivedNotification) { deliveries.withLock { $0.append(notification) } }
}

/// A clock tests can move.
final class TestClock: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    func advance(by seconds: Int64) { value.withLock { $0 += seconds } }
    var clock: SecondsClock { { self.value.withLock { $0 } } }
}

@Suite("Extension session: exactly once, best attempt at the deadline")
struct ExtensionSessionTests {
    let payload = ReceiverPayload.json(apns(wire: validWire))

    func session(_ source: any ReceiverKeySource, deadline: Int64? = nil, clock: SecondsClock? = nil,
                 recorder: DeliveryRecorder) -> ExtensionSession {
        ExtensionSession(receiver: makeReceiver(source), deadline: deadline, clock: clock) { recorder.record($0) }
    }

    @Test("Success delivers the decrypted content once; later calls deliver nothing")
    func success() {
        let recorder = DeliveryRecorder()
        let s = session(sourceA(), recorder: recorder)
        #expect(s.start(payload))
        #expect(!s.expire())
        #expect(!s.complete(with: makeReceiver(sourceA()).bestAttemptWithoutPayload()))
        #expect(!s.start(payload))
        #expect(!s.expireIfDue())
        #expect(recorder.all.count == 1)
        #expect(recorder.all.first?.outcome == .decrypted)
        #expect(recorder.all.first?.body == .plain("Hello from A"))
        #expect(s.delivered?.notification == recorder.all[0] && s.delivered?.kind == .opened)
    }

    @Test("Failure delivers the fallback once")
    func failure() {
        let recorder = DeliveryRecorder()
        let s = session(sourceA(), recorder: recorder)
        #expect(s.start(.json(apns(wire: tampered(at: 50)))))
        #expect(!s.expire())
        #expect(recorder.all.map(\.reason) == [.authenticationFailed])
        #expect(recorder.all[0].body == .plain(placeholderBody))
    }

    @Test("not_sealed is delivered as a pass-through without touching the key source")
    func passThrough() {
        let recorder = DeliveryRecorder()
        let source = InstrumentedSource(sourceA())
        let s = session(source, recorder: recorder)
        #expect(s.start(.json(#"{"aps":{"alert":"Other push"}}"#)))
        #expect(recorder.all.count == 1 && recorder.all[0].isPassThrough)
        #expect(source.lookups == 0)
    }

    @Test("expire before start: the app's text; start afterwards does no work")
    func expireFirst() {
        let recorder = DeliveryRecorder()
        let source = InstrumentedSource(sourceA())
        let s = session(source, recorder: recorder)
        #expect(s.expire())
        #expect(!s.start(payload))
        #expect(source.lookups == 0)
        #expect(recorder.all.count == 1)
        #expect(recorder.all[0].textSource == .appFallback && recorder.all[0].reason == nil && recorder.all[0].outcome == .fallback)
        #expect(s.delivered?.kind == .bestAttempt)
        // Nothing was recorded in the duplicate log: the real open later is not a duplicate.
        #expect(!makeReceiver(source.inner).open(payload).isDuplicate)
    }

    @Test("expire while opening delivers the best attempt prepared before decryption; the late result is dropped")
    func expireDuringOpen() {
        let recorder = DeliveryRecorder()
        let source = InstrumentedSource(sourceA(), blockLookups: true)
        let s = session(source, recorder: recorder)
        let started = Mutex<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let delivered = s.start(self.payload)
            started.withLock { $0 = delivered }
            done.signal()
        }
        source.waitUntilLookupStarted()
        // The best attempt is ready before the key is even looked up.
        #expect(s.bestAttempt.textSource == .payloadPlaceholder)
        #expect(s.bestAttempt.body == .plain(placeholderBody))
        #expect(s.expire())
        source.releaseLookup()
        done.wait()
        #expect(started.withLock { $0 } == false)
        #expect(recorder.all.count == 1)
        #expect(recorder.all[0].outcome == .fallback && recorder.all[0].reason == nil)
        #expect(recorder.all[0].title == .plain(placeholderTitle))
        #expect(recorder.all[0].threadIdentifier == "opaque-thread")
        #expect(s.delivered?.kind == .bestAttempt)
        for text in allText(of: recorder.all[0]) { #expect(!text.contains("Hello from A")) }
    }

    @Test("A deadline already past at start delivers the best attempt without looking up a key")
    func deadlinePassed() {
        let recorder = DeliveryRecorder()
        let source = InstrumentedSource(sourceA())
        let clock = TestClock(now)
        let s = session(source, deadline: now, clock: clock.clock, recorder: recorder)
        #expect(s.deadline == now)
        #expect(s.start(payload))
        #expect(source.lookups == 0)
        #expect(recorder.all.count == 1)
        #expect(recorder.all[0].textSource == .payloadPlaceholder && recorder.all[0].reason == nil)
        #expect(s.delivered?.kind == .bestAttempt)
    }

    @Test("expireIfDue follows the injected clock")
    func expireIfDue() {
        let recorder = DeliveryRecorder()
        let clock = TestClock(now)
        let s = session(sourceA(), deadline: now + 25, clock: clock.clock, recorder: recorder)
        #expect(!s.expireIfDue())
        clock.advance(by: 24)
        #expect(!s.expireIfDue())
        clock.advance(by: 1)
        #expect(s.expireIfDue())
        #expect(!s.expireIfDue())
        #expect(recorder.all.count == 1)
        // Without a deadline it never expires by itself.
        let open = session(sourceA(), clock: clock.clock, recorder: DeliveryRecorder())
        clock.advance(by: 1_000_000)
        #expect(!open.expireIfDue())
    }

    @Test("complete(with:) delivers the app's own result once")
    func explicit() {
        let recorder = DeliveryRecorder()
        let s = session(sourceA(), recorder: recorder)
        var mine = makeReceiver(sourceA()).open(payload)
        mine.body = .plain("fetched")
        #expect(s.complete(with: mine))
        #expect(!s.start(payload))
        #expect(!s.expire())
        #expect(recorder.all == [mine])
        #expect(s.delivered?.kind == .explicit)
    }

    @Test("prepare + complete(with:): the app's own work (fetch) before delivering; expire still wins if first")
    func prepareThenComplete() {
        let recorder = DeliveryRecorder()
        let s = session(sourceA(), recorder: recorder)
        let contentFree = ReceiverPayload.json(apns(wire: seal(contentA(mid: "cf", body: nil))))
        guard let parsed = s.prepare(contentFree) else {
            Issue.record("prepare refused")
            return
        }
        #expect(s.prepare(contentFree) == nil)
        #expect(!s.start(contentFree))
        #expect(s.bestAttempt.textSource == .payloadPlaceholder)
        var result = s.receiver.open(parsed)
        #expect(result.requiresFetch && result.messageID == "cf")
        result.body = .plain("fetched text")
        result.textSource = .content
        #expect(s.complete(with: result))
        #expect(!s.open(parsed))
        #expect(recorder.all.map(\.body) == [.plain("fetched text")])

        // Expire during the app's work: the best attempt; the late completion is dropped.
        let late = DeliveryRecorder()
        let t = session(sourceA(), recorder: late)
        let p = t.prepare(contentFree)
        #expect(p != nil)
        #expect(t.expire())
        #expect(!t.complete(with: result))
        #expect(late.all.count == 1 && late.all[0].textSource == .payloadPlaceholder)
    }

    @Test("A store that cannot be opened at all: store_locked for every key")
    func unavailableStore() {
        let recorder = DeliveryRecorder()
        let s = session(UnavailableKeySource(reason: "keychain item not accessible before first unlock"), recorder: recorder)
        #expect(s.start(payload))
        #expect(recorder.all.map(\.reason) == [.storeLocked])
        #expect(recorder.all[0].diagnostic?.contains("first unlock") == true)
        #expect(UnavailableKeySource(reason: "x").markDelivered(conversation: "c", messageID: "m", envelope: []) == .unavailable("x"))
    }

    @Test("The handler is released after delivering")
    func handlerReleased() {
        final class Witness: Sendable {}
        weak var weakWitness: Witness?
        let s: ExtensionSession
        do {
            let witness = Witness()
            weakWitness = witness
            s = ExtensionSession(receiver: makeReceiver(sourceA())) { _ in _ = witness }
        }
        #expect(weakWitness != nil)
        s.start(payload)
        #expect(weakWitness == nil)
    }

    @Test("Invoked twice for one notification (two sessions): the second is flagged duplicate")
    func secondInvocation() {
        let source = sourceA()
        let first = DeliveryRecorder(), second = DeliveryRecorder()
        session(source, recorder: first).start(payload)
        session(source, recorder: second).start(.userInfo(userInfo(pushseal: .string(validWire))))
        #expect(first.all.map(\.isDuplicate) == [false])
        #expect(second.all.map(\.isDuplicate) == [true])
        #expect(second.all[0].outcome == .decrypted)
    }

    @Test("Races: many threads starting, expiring and completing one session deliver exactly once, the winner's notification",
          arguments: [ReceiverPayload.json(Array(apns(wire: validWire).utf8)), .json(Array(apns(wire: tampered(at: 50)).utf8)),
                      .fcmData(["pushseal": validWire])])
    func races(_ payload: ReceiverPayload) {
        let explicit: ReceivedNotification = {
            var n = makeReceiver(sourceA()).bestAttemptWithoutPayload()
            n.body = .plain("explicit")
            return n
        }()
        let opened = makeReceiver(sourceA()).open(payload)
        var generator = TestSeed.generator()
        var kinds: [ExtensionSession.DeliveryKind: Int] = [:]
        for round in 0..<300 {
            let recorder = DeliveryRecorder()
            // The roles of the threads whose call returned true.
            let winners = Mutex<[Int]>([])
            let s = ExtensionSession(receiver: makeReceiver(sourceA())) { recorder.record($0) }
            // Eight real threads released together by a gate, roles in a seeded random order.
            let roles = (0..<8).map { $0 % 4 }.shuffled(using: &generator)
            let gate = Atomic<Int>(0)
            let finished = DispatchSemaphore(value: 0)
            for role in roles {
                let thread = Thread {
                    gate.add(1, ordering: .acquiringAndReleasing)
                    while gate.load(ordering: .acquiring) < roles.count { sched_yield() }
                    let delivered: Bool
                    switch role {
                    case 0, 2: delivered = s.start(payload)
                    case 1: delivered = s.expire()
                    default: delivered = s.complete(with: explicit)
                    }
                    if delivered { winners.withLock { $0.append(role) } }
                    finished.signal()
                }
                thread.start()
            }
            for _ in roles { finished.wait() }
            #expect(recorder.all.count == 1, "round \(round)")
            let winner = winners.withLock { $0 }
            #expect(winner.count == 1, "round \(round): \(winner)")
            guard let delivery = s.delivered, let got = recorder.all.first, let role = winner.first else {
                Issue.record("round \(round): nothing delivered")
                continue
            }
            #expect(delivery.notification == got)
            kinds[delivery.kind, default: 0] += 1
            // The call that returned true is the one whose notification was delivered.
            switch role {
            case 0, 2:
                #expect(delivery.kind == .opened, "round \(round)")
                #expect(got.outcome == opened.outcome && got.reason == opened.reason && got.body == opened.body)
            case 1:
                #expect(delivery.kind == .bestAttempt, "round \(round)")
                #expect(got.outcome == .fallback && got.reason == nil && got.content == nil)
                #expect(got.textSource == .appFallback || got.textSource == .payloadPlaceholder)
            default:
                #expect(delivery.kind == .explicit, "round \(round)")
                #expect(got == explicit)
            }
        }
        print("races: winners by kind \(kinds.map { "\($0.key.rawValue) \($0.value)" }.sorted())")
    }
}
