import Dispatch
public import PushSealCore

extension KeyBundle {
    /// Seals one conversation key to many devices at once (a rotation's fan-out), on every core
    /// (or `maximumThreads`): one result per device public key, in order. Each bundle has its own
    /// fresh ephemeral key; a bad device key fails only its own result.
    public static func seal(
        _ key: ConversationKey, conversation: String, epoch: Int64, notAfter: Int64?, provider: IdentityKeyPair,
        devicePublicKeys: [[UInt8]], maximumThreads: Int? = nil
    ) -> [Result<KeyBundle, KeyBundleSealingError>] {
        let count = devicePublicKeys.count
        let threads = max(1, min(maximumThreads ?? NotificationSealer.activeProcessorCount, count))
        var results = [Result<KeyBundle, KeyBundleSealingError>](
            repeating: .failure(.invalidField("not sealed")), count: count)
        // Claims, not one fixed share per thread (NotificationSealer's batch does the same): with
        // fixed shares the join waits for the slowest thread, one whose processor is slower or
        // shared with another process; a thread that falls behind now claims less.
        let claims = BatchClaims(count: count, threads: threads, claimSizes: NotificationSealer.batchClaimSizes)
        results.withUnsafeMutableBufferPointer { output in
            nonisolated(unsafe) let output = output
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                let privateKey = key.privateCopy()
                while let claim = claims.next() {
                    for index in claim {
                        output[index] = Result { () throws(KeyBundleSealingError) in
                            try KeyBundle.seal(
                                privateKey, conversation: conversation, epoch: epoch, notAfter: notAfter, provider: provider,
                                devicePublicKey: devicePublicKeys[index])
                        }
                    }
                }
            }
        }
        return results
    }
}
