package dev.pushseal;

/** A key bundle was refused; {@link #getReason()} is the first failed check. Carries no key material. */
public final class BundleException extends Exception {
    private static final long serialVersionUID = 1L;
    private final BundleReason reason;

    BundleException(BundleReason reason) {
        super("cannot install key bundle: " + reason.code());
        this.reason = reason;
    }

    /** The reason. */
    public BundleReason getReason() { return reason; }

    /** The reason code (e.g. {@code bundle_expired}). */
    public String getCode() { return reason.code(); }
}
