package dev.pushseal;

/** Why a payload fell back: the reason codes of SPEC §10.2. {@link #code()} is the exact string. */
public enum Reason {
    NOT_SEALED("not_sealed"),
    MALFORMED_ENVELOPE("malformed_envelope"),
    UNSUPPORTED_VERSION("unsupported_version"),
    UNKNOWN_KEY("unknown_key"),
    STORE_LOCKED("store_locked"),
    AUTHENTICATION_FAILED("authentication_failed"),
    MALFORMED_CONTENT("malformed_content"),
    CONVERSATION_MISMATCH("conversation_mismatch"),
    STALE("stale"),
    RETIRED_KEY("retired_key");

    private final String code;

    Reason(String code) { this.code = code; }

    /** The reason code as printed, stored and compared everywhere (e.g. {@code unknown_key}). */
    public String code() { return code; }

    /** The reason with this code, or null. */
    public static Reason fromCode(String code) {
        for (Reason r : values()) if (r.code.equals(code)) return r;
        return null;
    }
}
