import PushSealCore

/// The limit: the primitives' ChaCha20-Poly1305-IETF called directly (libsodium's
/// `crypto_aead_chacha20poly1305_ietf_*_detached` on the libsodium backend), on the padded sizes the
/// envelopes use, with the envelope's 41-byte associated data (version, kid, salt) and a fixed
/// key and nonce. Nothing else: no allocation, no key derivation, no encoding.
enum RawAEAD {
    /// Associated data length: the envelope header.
    static let associatedDataByteCount = 41

    static func encryptName(_ paddedBytes: Int, allCores: Bool = false) -> String {
        "aead.encrypt.\(paddedBytes)" + (allCores ? ".allcores" : "")
    }

    static func decryptName(_ paddedBytes: Int) -> String {
        "aead.decrypt.\(paddedBytes)"
    }

    /// Buffers for one thread: plaintext, ciphertext + tag, associated data, key, nonce.
    private final class Buffers {
        let plaintext: UnsafeMutablePointer<UInt8>
        let ciphertext: UnsafeMutablePointer<UInt8>
        let associatedData: UnsafeMutablePointer<UInt8>
        let key: UnsafeMutablePointer<UInt8>
        let nonce: UnsafeMutablePointer<UInt8>
        let count: Int

        init(paddedBytes: Int) {
            count = paddedBytes
            plaintext = .allocate(capacity: paddedBytes)
            ciphertext = .allocate(capacity: paddedBytes + 16)
            associatedData = .allocate(capacity: RawAEAD.associatedDataByteCount)
            key = .allocate(capacity: 32)
            nonce = .allocate(capacity: 12)
            SystemRandom.fill(UnsafeMutableRawBufferPointer(start: plaintext, count: paddedBytes))
            SystemRandom.fill(UnsafeMutableRawBufferPointer(start: associatedData, count: RawAEAD.associatedDataByteCount))
            SystemRandom.fill(UnsafeMutableRawBufferPointer(start: key, count: 32))
            nonce.initialize(repeating: 0, count: 12)
            encrypt()
        }

        deinit {
            for pointer in [plaintext, ciphertext, associatedData, key, nonce] { pointer.deallocate() }
        }

        @inline(__always)
        func encrypt() {
            ChaCha20Poly1305.sealDetachedInPlace(
                output: UnsafeMutableRawBufferPointer(start: ciphertext, count: count + 16),
                plaintext: UnsafeRawBufferPointer(start: plaintext, count: count),
                key: UnsafeRawBufferPointer(start: key, count: 32), nonce: UnsafeRawBufferPointer(start: nonce, count: 12),
                authenticatedData: UnsafeRawBufferPointer(start: associatedData, count: RawAEAD.associatedDataByteCount))
        }

        @inline(__always)
        func decrypt() -> Int32 {
            ChaCha20Poly1305.openInPlace(
                output: UnsafeMutableRawBufferPointer(start: plaintext, count: count),
                ciphertextAndTag: UnsafeRawBufferPointer(start: ciphertext, count: count + 16),
                key: UnsafeRawBufferPointer(start: key, count: 32), nonce: UnsafeRawBufferPointer(start: nonce, count: 12),
                authenticatedData: UnsafeRawBufferPointer(start: associatedData, count: RawAEAD.associatedDataByteCount)) ? 0 : 1
        }
    }

    /// Raw encryption of `paddedBytes` bytes, on one thread or on every core.
    static func encrypt(paddedBytes: Int, threads: Int) -> Workload {
        Workload(
            name: encryptName(paddedBytes, allCores: threads > 1), group: "limit", threads: threads, cores: threads,
            // On every core, its speedup over one core is what the machine offers at the time:
            // the yardstick for the batch's speedup.
            speedupBase: threads > 1 ? encryptName(paddedBytes) : nil,
            attributes: [("padded_bytes", .integer(paddedBytes))],
            makeWorker: {
                let buffers = Buffers(paddedBytes: paddedBytes)
                return Worker { iterations in
                    for _ in 0..<iterations { buffers.encrypt() }
                    return Int(buffers.ciphertext[0])
                }
            })
    }

    /// Raw verification and decryption of `paddedBytes` bytes on one thread.
    static func decrypt(paddedBytes: Int) -> Workload {
        Workload(
            name: decryptName(paddedBytes), group: "limit",
            attributes: [("padded_bytes", .integer(paddedBytes))],
            makeWorker: {
                let buffers = Buffers(paddedBytes: paddedBytes)
                return Worker { iterations in
                    var failures = 0
                    for _ in 0..<iterations { failures &+= Int(buffers.decrypt()) }
                    precondition(failures == 0, "raw AEAD decryption failed")
                    return Int(buffers.plaintext[0])
                }
            })
    }
}
