package dev.pushseal;

/**
 * A payload could not be opened ({@link #getReason()} is its SPEC §10.2 reason), or the provider
 * refused to seal ({@link #getCode()} is the Swift provider's code: {@code invalid_content},
 * {@code does_not_fit}, {@code missing_placeholder}, {@code invalid_placeholder},
 * {@code invalid_fcm_token}, {@code invalid_pad_block}, {@code invalid_option}, {@code invalid_key},
 * {@code invalid_salt}). The message never contains plaintext.
 */
public final class PushSealException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String code;
    private final Reason reason;

    private PushSealException(String code, Reason reason, String message) {
        super(message);
        this.code = code;
        this.reason = reason;
    }

    static PushSealException open(Reason reason) {
        return new PushSealException(reason.code(), reason, "cannot open payload: " + reason.code());
    }

    static PushSealException seal(String code, String detail) {
        return new PushSealException(code, null, code + ": " + detail);
    }

    /** The reason code (opening) or the provider error code (sealing). */
    public String getCode() { return code; }

    /** The reason when opening failed; null for a sealing error. */
    public Reason getReason() { return reason; }
}
