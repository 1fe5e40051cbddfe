package dev.pushseal;

import java.util.HashMap;
import java.util.Map;

/**
 * An in-memory key store: installs bundles ({@link BundleKeyStore}) and is a receiver
 * {@link KeySource} (with each key's retire-by time), so a notification sealed under an installed
 * key opens. For tests and examples; a real app keeps keys and conversation records in protected
 * storage.
 */
public final class MemoryKeyStore implements BundleKeyStore, KeySource {
    private static final class Row {
        final String conversation;
        final long epoch, created;
        final byte[] key;
        long notAfter;

        Row(String conversation, long epoch, byte[] key, long notAfter, long created) {
            this.conversation = conversation;
            this.epoch = epoch;
            this.key = key;
            this.notAfter = notAfter;
            this.created = created;
        }
    }

    private final Map<String, Row> keys = new HashMap<String, Row>(); // "epoch conversation" -> row
    private final Map<String, Row> kids = new HashMap<String, Row>(); // kid hex -> row
    private final Map<String, KeyBundle.ConversationRecord> records = new HashMap<String, KeyBundle.ConversationRecord>();

    private static String place(String conversation, long epoch) { return Long.toString(epoch) + " " + conversation; }

    @Override
    public synchronized KeyBundle.StoredKey keyFor(String conversation, long epoch) {
        Row r = keys.get(place(conversation, epoch));
        return r == null ? null : new KeyBundle.StoredKey(r.key, r.notAfter);
    }

    @Override
    public synchronized boolean storedElsewhere(byte[] kid, String conversation, long epoch) {
        Row r = kids.get(Wire.hex(kid));
        return r != null && !(r.conversation.equals(conversation) && r.epoch == epoch);
    }

    @Override
    public synchronized KeyBundle.ConversationRecord record(String conversation) {
        KeyBundle.ConversationRecord stored = records.get(conversation);
        if (stored != null) return stored;
        Row newest = null;
        for (Row r : keys.values()) if (r.conversation.equals(conversation) && (newest == null || r.epoch > newest.epoch)) newest = r;
        return newest == null ? null : new KeyBundle.ConversationRecord(newest.epoch, newest.created, 0);
    }

    @Override
    public synchronized Long startedAbove(String conversation, long epoch) {
        Long earliest = null;
        for (Row r : keys.values()) {
            if (r.conversation.equals(conversation) && r.epoch > epoch && (earliest == null || r.created < earliest)) earliest = r.created;
        }
        return earliest;
    }

    /** The created time of the stored key of (conversation, epoch), or null. */
    public synchronized Long createdAt(String conversation, long epoch) {
        Row r = keys.get(place(conversation, epoch));
        return r == null ? null : Long.valueOf(r.created);
    }

    /** Stores a key for (conversation, epoch) (also for adding one by hand, as a test fixture); notAfter {@link KeyBundle#NO_RETIRE_BY}: current. */
    @Override
    public synchronized void install(String conversation, long epoch, byte[] key, long notAfter, long created) {
        if (key.length != 32) throw new IllegalArgumentException("a key is 32 bytes");
        Row r = new Row(conversation, epoch, key.clone(), notAfter, created);
        keys.put(place(conversation, epoch), r);
        kids.put(Wire.hex(Wire.keyId(key)), r);
    }

    @Override
    public synchronized void setNotAfter(String conversation, long epoch, long notAfter) {
        keys.get(place(conversation, epoch)).notAfter = notAfter;
    }

    @Override
    public synchronized void retireEarlier(String conversation, long epoch, long at) {
        for (Row r : keys.values()) {
            if (r.conversation.equals(conversation) && r.epoch < epoch) r.notAfter = r.notAfter == KeyBundle.NO_RETIRE_BY ? at : Math.min(r.notAfter, at);
        }
    }

    @Override
    public synchronized void setRecord(String conversation, KeyBundle.ConversationRecord record) { records.put(conversation, record); }

    /** Deletes the key of (conversation, epoch) and sets the tombstone P := max(P, epoch): a purged epoch never comes back. */
    public synchronized void purge(String conversation, long epoch) {
        Row r = keys.remove(place(conversation, epoch));
        if (r != null) kids.remove(Wire.hex(Wire.keyId(r.key)));
        KeyBundle.ConversationRecord old = record(conversation);
        if (old == null) old = new KeyBundle.ConversationRecord(0, 0, 0);
        records.put(conversation, new KeyBundle.ConversationRecord(old.highWater, old.highWaterSince, Math.max(old.purgedThrough, epoch)));
    }

    @Override
    public synchronized KeyLookup lookup(byte[] kid) {
        Row r = kids.get(Wire.hex(kid));
        if (r == null) return KeyLookup.NOT_FOUND;
        return KeyLookup.found(r.key, r.conversation, r.notAfter == KeyBundle.NO_RETIRE_BY ? null : Long.valueOf(r.notAfter));
    }
}
