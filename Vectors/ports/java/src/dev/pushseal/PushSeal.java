package dev.pushseal;

/**
 * PushSeal v1 for Java 11+ and Android API 28+ (JCE {@code HmacSHA256} and ChaCha20-Poly1305,
 * which the JDK has from 11, JEP 329, and Android from API 28): open sealed payloads with a
 * {@link Receiver}, seal contents with a {@link Sealer}. Key bundles ({@link KeyBundle}) need
 * X25519 as well: Android API 33+. This class holds the version, a key generator and the
 * derivations of SPEC §4.
 */
public final class PushSeal {
    private PushSeal() {}

    /** The library version (equal to the repository's VERSION file). */
    public static final String VERSION = "0.3.0";

    /** A new conversation key: 32 bytes from {@link java.security.SecureRandom} (SPEC §3.1). */
    public static byte[] generateKey() {
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        return key;
    }

    /** kid = HKDF-Expand(K, "pushseal v1 key id", 16). */
    public static byte[] keyId(byte[] key) { return Wire.keyId(key); }

    /** The default APNs thread-id: base64url(HKDF-Expand(K, "pushseal v1 thread id", 16)). */
    public static String opaqueThreadId(byte[] key) { return Wire.b64urlEncode(Wire.threadId(key)); }

    /** base64url without padding. */
    public static String base64url(byte[] bytes) { return Wire.b64urlEncode(bytes); }

    /** Strict base64url decoding (SPEC §8); null for anything a receiver rejects. */
    public static byte[] fromBase64url(String text) { return Wire.b64urlDecode(text); }
}
