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
        results.withUnsafeMutableBufferPointer { output in
            nonisolated(unsafe) let output = output
            // Contiguous shares: thread t seals devices [t·count/threads, (t+1)·count/threads).
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                let privateKey = key.privateCopy()
                for index in (thread * count / threads)..<((thread + 1) * count / threads) {
                    output[index] = Result { () throws(KeyBundleSealingError) in
                        try KeyBundle.seal(
                            privateKey, conversation: conversation, epoch: epoch, notAfter: notAfter, provider: provider,
                            devicePublicKey: devicePublicKeys[index])
                    }
                }
            }
        }
        return results
    }
}
