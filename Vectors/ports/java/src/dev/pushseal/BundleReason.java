package dev.pushseal;

/** Why a key bundle was refused, in the receiver's check order (plus {@code store_locked}). {@link #code()} is the exact string. */
public enum BundleReason {
    MALFORMED_BUNDLE("malformed_bundle"),
    UNSUPPORTED_BUNDLE_VERSION("unsupported_bundle_version"),
    WRONG_DEVICE("wrong_device"),
    UNKNOWN_PROVIDER("unknown_provider"),
    BUNDLE_AUTHENTICATION_FAILED("bundle_authentication_failed"),
    KID_MISMATCH("kid_mismatch"),
    BUNDLE_EXPIRED("bundle_expired"),
    CONFLICTING_KEY("conflicting_key"),
    STORE_LOCKED("store_locked");

    private final String code;

    BundleReason(String code) { this.code = code; }

    /** The reason code as printed, stored and compared everywhere (e.g. {@code wrong_device}). */
    public String code() { return code; }

    /** The reason with this code, or null. */
    public static BundleReason fromCode(String code) {
        for (BundleReason r : values()) if (r.code.equals(code)) return r;
        return null;
    }
}
