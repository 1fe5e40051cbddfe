package dev.pushseal;

/** A key source's answer: found (the key, the conversation it is stored for and its retire-by time), not found, or locked. */
public final class KeyLookup {
    /** No key with that id (→ {@code unknown_key}). */
    public static final KeyLookup NOT_FOUND = new KeyLookup(null, null);
    /** The id is known but the key cannot be read now (→ {@code store_locked}). */
    public static final KeyLookup LOCKED = new KeyLookup(null, null);

    final byte[] key;
    final String conversation;
    /** The key's retire-by time in seconds since 1970, or null while it is current (SPEC §10.2 step 11). */
    final Long retireBy;

    private KeyLookup(byte[] key, String conversation) { this(key, conversation, null); }

    private KeyLookup(byte[] key, String conversation, Long retireBy) {
        this.key = key;
        this.conversation = conversation;
        this.retireBy = retireBy;
    }

    /** The key K (32 bytes) and the conversation it is stored for; the key is current. */
    public static KeyLookup found(byte[] key, String conversation) { return found(key, conversation, null); }

    /** The key K (32 bytes), the conversation it is stored for, and its retire-by time (null: current). */
    public static KeyLookup found(byte[] key, String conversation, Long retireBy) {
        if (key == null || key.length != 32 || conversation == null) throw new IllegalArgumentException("a 32-byte key and a conversation");
        if (retireBy != null && retireBy < 0) throw new IllegalArgumentException("retireBy must be 0 to 2^63 - 1");
        return new KeyLookup(key.clone(), conversation, retireBy);
    }
}
