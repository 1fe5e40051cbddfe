package dev.pushseal;

/**
 * What {@link KeyBundle#open} needs from the device's key store. Each method throws
 * {@link Locked} when the store cannot be used now (reported as {@code store_locked}).
 * {@code open} calls {@code keyFor}, {@code storedElsewhere} and then {@code install} (steps 10-11)
 * while holding the store's monitor ({@code synchronized (store)}), so a store used only through
 * {@code open} in one process needs nothing more; a store shared with other processes must make
 * them one transaction.
 */
public interface BundleKeyStore {
    /** The key stored for (conversation, epoch), or null. */
    byte[] keyFor(String conversation, long epoch) throws Locked;

    /** True if a key with this kid is stored for another (conversation, epoch). */
    boolean storedElsewhere(byte[] kid, String conversation, long epoch) throws Locked;

    /** Stores a new key for (conversation, epoch) with its notAfter ({@link KeyBundle#NO_EXPIRY}: none); copy {@code key}, it is wiped afterwards. */
    void install(String conversation, long epoch, byte[] key, long notAfter) throws Locked;

    /** The store cannot be read or written now. */
    final class Locked extends Exception {
        private static final long serialVersionUID = 1L;

        /** A locked store. */
        public Locked() { super("the key store is locked"); }
    }
}
