import Dispatch
public import PushSealCore
internal import PushSealPlatform

extension KeyBundle {
    /// Seals epoch `epoch` of a conversation to many devices at once (a rotation's fan-out), on
    /// every core (or `maximumThreads`): one result per device, in order, each carrying that
    /// device's key K_d derived from `conversationKey` (`ConversationKey.deviceKey(for:)`). Each
    /// bundle has its own fresh ephemeral key; a bad device key fails only its own result.
    public static func seal(
        conversationKey: ConversationKey, conversation: String, epoch: Int64, since: Int64, retireBy: Int64?, expires: Int64,
        provider: IdentityKeyPair, devices: [DeviceRegistration], maximumThreads: Int? = nil
    ) -> [Result<KeyBundle, KeyBundleSealingError>] {
        let count = devices.count
        let threads = max(1, min(maximumThreads ?? Processors.onlineCount, count))
        var results = [Result<KeyBundle, KeyBundleSealingError>](
            repeating: .failure(.invalidField("not sealed")), count: count)
        // Claims, not one fixed share per thread (NotificationSealer's batch does the same): with
        // fixed shares the join waits for the slowest thread, one whose processor is slower or
        // shared with another process; a thread that falls behind now claims less.
        let claims = BatchClaims(count: count, threads: threads, claimSizes: NotificationSealer.batchClaimSizes)
        results.withUnsafeMutableBufferPointer { output in
            nonisolated(unsafe) let output = output
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                let privateKey = conversationKey.privateCopy()
                while let claim = claims.next() {
                    for index in claim {
                        output[index] = Result { () throws(KeyBundleSealingError) in
                            try KeyBundle.seal(
                                conversationKey: privateKey, conversation: conversation, epoch: epoch, since: since, retireBy: retireBy,
                                expires: expires, provider: provider, device: devices[index])
                        }
                    }
                }
            }
        }
        return results
    }
}
