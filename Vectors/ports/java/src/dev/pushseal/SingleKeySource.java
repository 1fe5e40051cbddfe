package dev.pushseal;

import java.util.Arrays;

/** A key source holding one conversation key; {@code locked} makes it answer {@link KeyLookup#LOCKED}. */
public final class SingleKeySource implements KeySource {
    private final byte[] key;
    private final byte[] kid;
    private final String conversation;
    private final boolean locked;
    private final Long retireBy;

    public SingleKeySource(byte[] key, String conversation) { this(key, conversation, false); }

    public SingleKeySource(byte[] key, String conversation, boolean locked) { this(key, conversation, locked, null); }

    /** A source whose key was retired at {@code retireBy} (seconds since 1970; null: current). */
    public SingleKeySource(byte[] key, String conversation, boolean locked, Long retireBy) {
        if (key == null || key.length != 32) throw new IllegalArgumentException("a conversation key is 32 bytes");
        this.key = key.clone();
        this.kid = Wire.keyId(key);
        this.conversation = conversation;
        this.locked = locked;
        this.retireBy = retireBy;
    }

    @Override public KeyLookup lookup(byte[] want) {
        if (!Arrays.equals(kid, want)) return KeyLookup.NOT_FOUND;
        return locked ? KeyLookup.LOCKED : KeyLookup.found(key, conversation, retireBy);
    }
}
