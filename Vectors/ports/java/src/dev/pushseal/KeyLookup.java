package dev.pushseal;

/** A key source's answer: found (the key and the conversation it is stored for), not found, or locked. */
public final class KeyLookup {
    /** No key with that id (→ {@code unknown_key}). */
    public static final KeyLookup NOT_FOUND = new KeyLookup(null, null);
    /** The id is known but the key cannot be read now (→ {@code store_locked}). */
    public static final KeyLookup LOCKED = new KeyLookup(null, null);

    final byte[] key;
    final String conversation;

    private KeyLookup(byte[] key, String conversation) {
        this.key = key;
        this.conversation = conversation;
    }

    /** The key K (32 bytes) and the conversation it is stored for. */
    public static KeyLookup found(byte[] key, String conversation) {
        if (key == null || key.length != 32 || conversation == null) throw new IllegalArgumentException("a 32-byte key and a conversation");
        return new KeyLookup(key.clone(), conversation);
    }
}
