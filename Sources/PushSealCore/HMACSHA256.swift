internal import CSodium

/// HMAC-SHA256 on libsodium's multi-part API, which accepts keys of any length.
public enum HMACSHA256 {
    /// Length of a full authentication code in bytes.
    public static let byteCount = 32

    /// Computes HMAC-SHA256(key, message).
    public static func authenticationCode(for message: some Sequence<UInt8>, using key: SymmetricKey) -> [UInt8] {
        let message = Array(message)
        return key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                var state = KeyedHMACState(key: keyBytes)
                state.update(messageBytes)
                return state.finalize()
            }
        }
    }

    /// Checks `code` against HMAC-SHA256(key, message) in constant time. A shorter `code`
    /// (at least 16 bytes) is compared against the same-length prefix, as for a truncated tag.
    public static func isValidAuthenticationCode(
        _ code: some Sequence<UInt8>, for message: some Sequence<UInt8>, using key: SymmetricKey
    ) -> Bool {
        let code = Array(code)
        guard code.count >= 16, code.count <= byteCount else { return false }
        let expected = authenticationCode(for: message, using: key)
        return expected.withUnsafeBytes { e in
            code.withUnsafeBytes { c in Sodium.constantTimeEqual(UnsafeRawBufferPointer(rebasing: e[..<c.count]), c) }
        }
    }
}

/// A running HMAC-SHA256 computation. Copying the value copies the state, which is how a key's
/// precomputed inner/outer state is reused. Callers zero it with ``wipe()`` when it held a secret.
struct KeyedHMACState {
    var raw = crypto_auth_hmacsha256_state()

    init(key: UnsafeRawBufferPointer) {
        Sodium.ensureInitialized()
        var empty: UInt8 = 0
        if let base = key.baseAddress, key.count > 0 {
            crypto_auth_hmacsha256_init(&raw, base.assumingMemoryBound(to: UInt8.self), key.count)
        } else {
            crypto_auth_hmacsha256_init(&raw, &empty, 0)
        }
    }

    init(raw: crypto_auth_hmacsha256_state) {
        self.raw = raw
    }

    @inline(__always)
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        crypto_auth_hmacsha256_update(&raw, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    @inline(__always)
    mutating func update(byte: UInt8) {
        var byte = byte
        crypto_auth_hmacsha256_update(&raw, &byte, 1)
    }

    /// Writes the 32-byte code to `output` and wipes the state.
    @inline(__always)
    mutating func finalize(into output: UnsafeMutablePointer<UInt8>) {
        crypto_auth_hmacsha256_final(&raw, output)
        wipe()
    }

    /// Returns the 32-byte code and wipes the state.
    mutating func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: HMACSHA256.byteCount) { buffer, initialized in
            finalize(into: buffer.baseAddress!)
            initialized = HMACSHA256.byteCount
        }
    }

    /// Zeroes the state (it is derived from the key).
    @inline(__always)
    mutating func wipe() {
        withUnsafeMutableBytes(of: &raw) { Sodium.zero($0) }
    }
}
