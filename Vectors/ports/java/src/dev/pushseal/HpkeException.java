package dev.pushseal;

/**
 * An HPKE operation failed. {@link #getCode()} is {@code invalid_key} (not a 32-byte X25519 key),
 * {@code zero_shared_secret} (the X25519 result is all zero: a small-order public key, refused as
 * RFC 9180 §7.1.4 requires) or {@code open_failed} (the ciphertext does not authenticate).
 */
public final class HpkeException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String code;

    HpkeException(String code) {
        super("hpke: " + code);
        this.code = code;
    }

    /** The failure's code. */
    public String getCode() { return code; }
}
