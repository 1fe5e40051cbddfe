package dev.pushseal;

/**
 * What {@link KeyBundle#open} needs from the device's key store (SPEC §16.5 step 9). Each method
 * throws {@link Locked} when the store cannot be used now (reported as {@code store_locked}).
 * {@code open} reads and then writes while holding the store's monitor
 * ({@code synchronized (store)}), so a store used only through {@code open} in one process needs
 * nothing more; a store shared with other processes must make them one transaction. Epochs and
 * times are longs (up to 2^63 − 1); a not-after time of {@link KeyBundle#NO_RETIRE_BY} means the
 * key is current.
 */
public interface BundleKeyStore {
    /** The key stored for (conversation, epoch) and its not-after time, or null. */
    KeyBundle.StoredKey keyFor(String conversation, long epoch) throws Locked;

    /** True if a key with this kid is stored for another (conversation, epoch). */
    boolean storedElsewhere(byte[] kid, String conversation, long epoch) throws Locked;

    /** The conversation record; without one, the newest stored epoch and its created time; null if neither. */
    KeyBundle.ConversationRecord record(String conversation) throws Locked;

    /**
     * The earliest created time of the conversation's stored keys with an epoch above {@code epoch}, or
     * null when there is none: each of them retired every earlier epoch when it started (step 9f).
     */
    Long startedAbove(String conversation, long epoch) throws Locked;

    /**
     * Stores a new key for (conversation, epoch) with created time {@code created} (from a bundle: its
     * start, min(since, install time)); copy {@code key}, it is wiped afterwards.
     */
    void install(String conversation, long epoch, byte[] key, long notAfter, long created) throws Locked;

    /** Sets the not-after time of the stored key of (conversation, epoch). */
    void setNotAfter(String conversation, long epoch, long notAfter) throws Locked;

    /** Every stored key of the conversation below {@code epoch} gets notAfter := min(its notAfter, at). */
    void retireEarlier(String conversation, long epoch, long at) throws Locked;

    /** Writes the conversation record. */
    void setRecord(String conversation, KeyBundle.ConversationRecord record) throws Locked;

    /** The store cannot be read or written now. */
    final class Locked extends Exception {
        private static final long serialVersionUID = 1L;

        /** A locked store. */
        public Locked() { super("the key store is locked"); }
    }
}
