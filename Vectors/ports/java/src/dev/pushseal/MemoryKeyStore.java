package dev.pushseal;

import java.util.HashMap;
import java.util.Map;

/**
 * An in-memory key store: installs bundles ({@link BundleKeyStore}) and is a receiver
 * {@link KeySource}, so a notification sealed under an installed key opens. For tests and examples;
 * a real app keeps keys in protected storage.
 */
public final class MemoryKeyStore implements BundleKeyStore, KeySource {
    private final Map<String, byte[]> keys = new HashMap<String, byte[]>(); // "epoch conversation" -> K
    private final Map<String, String[]> kids = new HashMap<String, String[]>(); // kid hex -> {conversation, epoch}

    private static String place(String conversation, long epoch) { return Long.toString(epoch) + " " + conversation; }

    @Override
    public synchronized byte[] keyFor(String conversation, long epoch) {
        byte[] k = keys.get(place(conversation, epoch));
        return k == null ? null : k.clone();
    }

    @Override
    public synchronized boolean storedElsewhere(byte[] kid, String conversation, long epoch) {
        String[] where = kids.get(Wire.hex(kid));
        return where != null && !(where[0].equals(conversation) && where[1].equals(Long.toString(epoch)));
    }

    @Override
    public synchronized void install(String conversation, long epoch, byte[] key, long notAfter) {
        keys.put(place(conversation, epoch), key.clone());
        kids.put(Wire.hex(Wire.keyId(key)), new String[] {conversation, Long.toString(epoch)});
    }

    @Override
    public synchronized KeyLookup lookup(byte[] kid) {
        String[] where = kids.get(Wire.hex(kid));
        return where == null ? KeyLookup.NOT_FOUND : KeyLookup.found(keys.get(where[1] + " " + where[0]), where[0]);
    }
}
