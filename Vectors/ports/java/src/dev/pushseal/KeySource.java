package dev.pushseal;

/** The receiver's key lookup (SPEC §2). Implementations MUST derive the kid from each stored key. */
public interface KeySource {
    /** {@link KeyLookup#found}, {@link KeyLookup#NOT_FOUND} or {@link KeyLookup#LOCKED} for a 16-byte key id. */
    KeyLookup lookup(byte[] kid);
}
