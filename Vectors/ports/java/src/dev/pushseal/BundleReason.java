package dev.pushseal;

/** Why a key bundle was refused, in the receiver's check order (plus {@code store_locked}). {@link #code()} is the exact string. */
public enum BundleReason {
    MALFORMED_BUNDLE("malformed_bundle"),
    UNSUPPORTED_BUNDLE_VERSION("unsupported_bundle_version"),
    UNKNOWN_PROVIDER("unknown_provider"),
    BUNDLE_AUTHENTICATION_FAILED("bundle_authentication_failed"),
    KID_MISMATCH("kid_mismatch"),
    BUNDLE_EXPIRED("bundle_expired"),
    /** In band: the bundle's kid is not the kid of the envelope it rides with (step 8b). */
    ENVELOPE_MISMATCH("envelope_mismatch"),
    /** The epoch is at or below the conversation's purge tombstone (rule 9a). */
    EPOCH_PURGED("epoch_purged"),
    /** The epoch is more than 65536 above the conversation's high-water epoch (rule 9b). */
    EPOCH_OUT_OF_RANGE("epoch_out_of_range"),
    CONFLICTING_KEY("conflicting_key"),
    STORE_LOCKED("store_locked");

    private final String code;

    BundleReason(String code) { this.code = code; }

    /** The reason code as printed, stored and compared everywhere (e.g. {@code bundle_expired}). */
    public String code() { return code; }

    /** The reason with this code, or null. */
    public static BundleReason fromCode(String code) {
        for (BundleReason r : values()) if (r.code.equals(code)) return r;
        return null;
    }
}
