package dev.pushseal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * Key bundles, format 2 (SPEC §16): one device key K_d for one (conversation, epoch), sealed to one
 * device with HPKE mode_auth (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) by the
 * provider's key. The provider's conversation key K never leaves the provider: a bundle carries
 * K_d = HKDF-Expand(K, "pushseal v1 device conversation key" || deviceKeyId, 32) ({@link #deviceKey}).
 * A backend seals with {@link #seal}; a device checks and installs with {@link #open}, which throws
 * a {@link BundleException} carrying the first failed check's {@link BundleReason}. Epochs and times
 * are longs (exact up to 2^63 − 1). Needs X25519 (XDH): Java 11+, Android API 33+ (see {@link Hpke}).
 */
public final class KeyBundle {
    private KeyBundle() {}

    /** The bundle version byte. */
    public static final int VERSION = 0x02;
    /** The retireBy of a bundle whose epoch was current when sealed (0xffffffffffffffff, i.e. -1 as a long); also a stored key's "no not-after". */
    public static final long NO_RETIRE_BY = -1L;
    /** The same all-ones value, kept for callers of format 1; a format-2 bundle always expires. */
    public static final long NO_EXPIRY = NO_RETIRE_BY;
    /** A longer text is refused before it is decoded (every bundle is 538 characters). */
    public static final int MAX_TEXT = 1024;
    /** The length of every bundle in bytes. */
    public static final int BYTES = 403;
    /** The sealed plaintext's length in bytes. */
    public static final int PLAINTEXT_BYTES = 338;
    /** The newest epoch moves by at most this much per bundle (rule 9b). */
    public static final long MAX_EPOCH_STEP = 65536;
    static final byte[] INFO = "pushseal v1 key bundle 2".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DEVICE_KEY_INFO = "pushseal v1 device conversation key".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADER = 17, ENC = 32, MAX_CID = 256;

    /** HKDF-Expand(PRK = the device's X25519 public key, "pushseal v1 device key id", 16). */
    public static byte[] deviceKeyId(byte[] devicePublicKey) {
        return Wire.expand(devicePublicKey, "pushseal v1 device key id".getBytes(StandardCharsets.US_ASCII), 16);
    }

    /** HKDF-Expand(PRK = the provider's X25519 public key, "pushseal v1 provider key id", 16). */
    public static byte[] providerKeyId(byte[] providerPublicKey) {
        return Wire.expand(providerPublicKey, "pushseal v1 provider key id".getBytes(StandardCharsets.US_ASCII), 16);
    }

    /**
     * K_d = HKDF-Expand(K, "pushseal v1 device conversation key" || deviceKeyId, 32) (SPEC §4.4): the
     * key of one device for one (conversation, epoch); its kid and thread-id come from it as from any key.
     */
    public static byte[] deviceKey(byte[] conversationKey, byte[] deviceKeyId) {
        if (conversationKey.length != 32 || deviceKeyId.length != 16) throw new IllegalArgumentException("the conversation key is 32 bytes and the device key id 16 bytes");
        return Wire.expand(conversationKey, Wire.concat(DEVICE_KEY_INFO, deviceKeyId), 32);
    }

    /** A stored key and its not-after time ({@link #NO_RETIRE_BY}: current). */
    public static final class StoredKey {
        final byte[] key;
        /** The not-after time, or {@link #NO_RETIRE_BY}. */
        public final long notAfter;

        /** A stored key (copied). */
        public StoredKey(byte[] key, long notAfter) {
            this.key = key.clone();
            this.notAfter = notAfter;
        }

        /** The key (a copy). */
        public byte[] key() { return key.clone(); }
    }

    /** A device's per-conversation record: high-water epoch H, its since time S_H, purge tombstone P (0: none). */
    public static final class ConversationRecord {
        /** H, the newest epoch installed from a bundle. */
        public final long highWater;
        /** S_H, the since time of H. */
        public final long highWaterSince;
        /** P, every epoch at or below it was purged. */
        public final long purgedThrough;

        /** A record. */
        public ConversationRecord(long highWater, long highWaterSince, long purgedThrough) {
            this.highWater = highWater;
            this.highWaterSince = highWaterSince;
            this.purgedThrough = purgedThrough;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof ConversationRecord)) return false;
            ConversationRecord r = (ConversationRecord) o;
            return r.highWater == highWater && r.highWaterSince == highWaterSince && r.purgedThrough == purgedThrough;
        }

        @Override
        public int hashCode() { return Arrays.hashCode(new long[] {highWater, highWaterSince, purgedThrough}); }

        @Override
        public String toString() { return "{highWater " + highWater + ", highWaterSince " + highWaterSince + ", purgedThrough " + purgedThrough + "}"; }
    }

    /** A parsed bundle: the header bytes B, enc and the ciphertext. */
    public static final class Parsed {
        final byte[] headerBytes, enc, ciphertext;

        Parsed(byte[] headerBytes, byte[] enc, byte[] ciphertext) {
            this.headerBytes = headerBytes;
            this.enc = enc;
            this.ciphertext = ciphertext;
        }

        /** B (a copy): version and provider key id. */
        public byte[] headerBytes() { return headerBytes.clone(); }
        /** The provider key id (a copy). */
        public byte[] providerKeyId() { return Arrays.copyOfRange(headerBytes, 1, HEADER); }
        /** enc (a copy). */
        public byte[] enc() { return enc.clone(); }
        /** ct (a copy). */
        public byte[] ciphertext() { return ciphertext.clone(); }
    }

    /** The sealed fields of a bundle (SPEC §16.3) after the range checks of step 6. */
    public static final class Fields {
        final byte[] key, kid;
        /** The epoch, 1…2^63 − 1. */
        public final long epoch;
        /** When the epoch became current at the provider. */
        public final long since;
        /** The epoch's last current second, or {@link #NO_RETIRE_BY} while current when sealed. */
        public final long retireBy;
        /** The last second the bundle may be installed. */
        public final long expires;
        /** The conversation id. */
        public final String conversation;

        Fields(byte[] key, byte[] kid, long epoch, long since, long retireBy, long expires, String conversation) {
            this.key = key;
            this.kid = kid;
            this.epoch = epoch;
            this.since = since;
            this.retireBy = retireBy;
            this.expires = expires;
            this.conversation = conversation;
        }

        /** The kid field (a copy). */
        public byte[] kid() { return kid.clone(); }
    }

    /** A bundle that passed every check and whose key is in the store. */
    public static final class Installed {
        /** "installed", "installed_retired" or "already_installed". */
        public final String outcome;
        /** The sealed fields (the key itself is wiped). */
        public final Fields fields;
        /** The conversation, opened from the sealed part. */
        public final String conversation;
        /** True if the same key was already stored for (conversation, epoch). */
        public final boolean alreadyInstalled;
        /** The stored key's not-after time afterwards ({@link #NO_RETIRE_BY}: current). */
        public final long notAfter;
        /** When a new newest epoch retired every earlier one (9e), or null. */
        public final Long retireEarlierAt;
        /** The conversation record afterwards. */
        public final ConversationRecord record;

        Installed(String outcome, Fields fields, long notAfter, Long retireEarlierAt, ConversationRecord record) {
            this.outcome = outcome;
            this.fields = fields;
            this.conversation = fields.conversation;
            this.alreadyInstalled = outcome.equals("already_installed");
            this.notAfter = notAfter;
            this.retireEarlierAt = retireEarlierAt;
            this.record = record;
        }
    }

    /** Steps 1-3 of a bundle's text: {@code malformed_bundle} (longer than {@link #MAX_TEXT} characters or not strict base64url), then as {@link #parse(byte[])}. */
    public static Parsed parse(String text) throws BundleException {
        byte[] data = text == null || text.length() > MAX_TEXT ? null : Wire.b64urlDecode(text);
        if (data == null) throw new BundleException(BundleReason.MALFORMED_BUNDLE);
        return parse(data);
    }

    /** Steps 2-3 of a bundle's bytes: {@code malformed_bundle} (empty), {@code unsupported_bundle_version} (before the length: format 1 lands here), {@code malformed_bundle} (not 403 bytes). */
    public static Parsed parse(byte[] data) throws BundleException {
        if (data.length == 0) throw new BundleException(BundleReason.MALFORMED_BUNDLE);
        if (data[0] != VERSION) throw new BundleException(BundleReason.UNSUPPORTED_BUNDLE_VERSION);
        if (data.length != BYTES) throw new BundleException(BundleReason.MALFORMED_BUNDLE);
        return new Parsed(Arrays.copyOfRange(data, 0, HEADER), Arrays.copyOfRange(data, HEADER, HEADER + ENC), Arrays.copyOfRange(data, HEADER + ENC, data.length));
    }

    private static String identifier(byte[] cid) {
        if (cid.length < 1 || cid.length > MAX_CID || !StrictJson.validUtf8(cid)) return null;
        for (byte b : cid) if ((b & 0xff) < 0x20) return null; // C0 controls are single bytes in UTF-8
        return new String(cid, StandardCharsets.UTF_8);
    }

    /** The fields of a 338-byte plaintext; {@code malformed_bundle} when one is out of range (step 6). The kid is step 7's. */
    public static Fields decodePlaintext(byte[] pt) throws BundleException {
        if (pt.length != PLAINTEXT_BYTES) throw new BundleException(BundleReason.MALFORMED_BUNDLE);
        ByteBuffer b = ByteBuffer.wrap(pt);
        long epoch = b.getLong(48), since = b.getLong(56), retireBy = b.getLong(64), expires = b.getLong(72); // signed: above 2^63 - 1 is negative
        int n = b.getShort(80) & 0xffff;
        String cid = n >= 1 && n <= MAX_CID ? identifier(Arrays.copyOfRange(pt, 82, 82 + n)) : null;
        boolean padding = true;
        for (int i = 82 + Math.min(n, MAX_CID); i < pt.length; i++) padding &= pt[i] == 0;
        if (epoch < 1 || since < 0 || expires < 0 || !(retireBy == NO_RETIRE_BY || retireBy >= since) || cid == null || !padding) {
            throw new BundleException(BundleReason.MALFORMED_BUNDLE);
        }
        return new Fields(Arrays.copyOf(pt, 32), Arrays.copyOfRange(pt, 32, 48), epoch, since, retireBy, expires, cid);
    }

    /**
     * The bundle text (538 characters of base64url) delivering the device key K_d of
     * {@code conversationKey} (the provider's K of (conversation, epoch)) to the device whose X25519
     * public key is {@code devicePublicKey}, sealed by {@code providerPrivateKey} (SPEC §16.4).
     * {@code since}: when the epoch became current; {@code retireBy}: {@link #NO_RETIRE_BY} while it is
     * current, else its last current second (≥ since); {@code expires}: the last second the bundle may
     * be installed. Throws IllegalArgumentException for a field out of range, HpkeException for a
     * small-order device key.
     */
    public static String seal(byte[] conversationKey, byte[] devicePublicKey, String conversation, long epoch, long since, long retireBy, long expires,
            byte[] providerPrivateKey) throws HpkeException {
        return seal(conversationKey, devicePublicKey, conversation, epoch, since, retireBy, expires, providerPrivateKey, null);
    }

    /** {@link #seal} with the ephemeral key derived from {@code testIkmE}: for test vectors only. */
    public static String seal(byte[] conversationKey, byte[] devicePublicKey, String conversation, long epoch, long since, long retireBy, long expires,
            byte[] providerPrivateKey, byte[] testIkmE) throws HpkeException {
        if (conversationKey.length != 32 || providerPrivateKey.length != 32 || devicePublicKey.length != 32) {
            throw new IllegalArgumentException("conversation key, provider private key and device public key must be 32 bytes");
        }
        if (epoch < 1 || since < 0 || expires < 0) throw new IllegalArgumentException("epoch must be 1...2^63-1, since and expires 0...2^63-1");
        if (retireBy != NO_RETIRE_BY && retireBy < since) throw new IllegalArgumentException("retireBy must be NO_RETIRE_BY or since...2^63-1");
        byte[] cid = conversation.getBytes(StandardCharsets.UTF_8);
        if (!new String(cid, StandardCharsets.UTF_8).equals(conversation) || identifier(cid) == null) {
            throw new IllegalArgumentException("the conversation must be 1-256 bytes of UTF-8 without a control character");
        }
        byte[] kd = deviceKey(conversationKey, deviceKeyId(devicePublicKey));
        byte[] pt = ByteBuffer.allocate(PLAINTEXT_BYTES).put(kd).put(Wire.keyId(kd)).putLong(epoch).putLong(since).putLong(retireBy).putLong(expires)
                .putShort((short) cid.length).put(cid).array();
        byte[] b = Wire.concat(new byte[] {(byte) VERSION}, providerKeyId(Hpke.publicKey(providerPrivateKey)));
        try {
            Hpke.Sender s = Hpke.setupSender(devicePublicKey, INFO, providerPrivateKey, testIkmE);
            return Wire.b64urlEncode(Wire.concat(b, s.enc, s.context.seal(b, pt, 0)));
        } finally {
            Arrays.fill(pt, (byte) 0);
            Arrays.fill(kd, (byte) 0);
        }
    }

    private static boolean same(byte[] a, byte[] b) { return MessageDigest.isEqual(a, b); }

    /** {@link #open(String, byte[], Iterable, BundleKeyStore, long, byte[])} out of band (no envelope kid). */
    public static Installed open(String bundle, byte[] devicePrivateKey, Iterable<byte[]> pinnedProviderKeys, BundleKeyStore store, long now)
            throws BundleException {
        return open(bundle, devicePrivateKey, pinnedProviderKeys, store, now, null);
    }

    /**
     * Checks a bundle in the order of SPEC §16.5 and installs its key by the rules of step 9.
     * {@code now}: seconds since 1970. {@code envelopeKid}: in band, the kid of the envelope the
     * bundle rides with (step 8b), else null. Throws {@link BundleException} with the first failed
     * check's reason and installs nothing then; the opened plaintext is wiped on every path (the
     * store copies the key).
     */
    public static Installed open(String bundle, byte[] devicePrivateKey, Iterable<byte[]> pinnedProviderKeys, BundleKeyStore store, long now,
            byte[] envelopeKid) throws BundleException {
        Parsed p = parse(bundle); // steps 1-3
        byte[] pid = p.providerKeyId();
        byte[] provider = null;
        for (byte[] pk : pinnedProviderKeys) {
            if (same(providerKeyId(pk), pid)) {
                provider = pk;
                break;
            }
        }
        if (provider == null) throw new BundleException(BundleReason.UNKNOWN_PROVIDER); // step 4
        byte[] pt;
        try { // step 5
            pt = Hpke.setupReceiver(p.enc, devicePrivateKey, INFO, provider).open(p.headerBytes, p.ciphertext, 0);
        } catch (HpkeException e) {
            throw new BundleException(BundleReason.BUNDLE_AUTHENTICATION_FAILED);
        }
        Fields f = null;
        try {
            f = decodePlaintext(pt); // step 6
            if (!same(Wire.keyId(f.key), f.kid)) throw new BundleException(BundleReason.KID_MISMATCH); // step 7
            if (now > f.expires) throw new BundleException(BundleReason.BUNDLE_EXPIRED); // step 8
            if (envelopeKid != null && !same(envelopeKid, f.kid)) throw new BundleException(BundleReason.ENVELOPE_MISMATCH); // step 8b
            try {
                synchronized (store) { // step 9 as one transaction within this process
                    return install(store, f, now);
                }
            } catch (BundleKeyStore.Locked e) {
                throw new BundleException(BundleReason.STORE_LOCKED);
            }
        } finally {
            Arrays.fill(pt, (byte) 0);
            if (f != null) Arrays.fill(f.key, (byte) 0);
        }
    }

    private static Installed install(BundleKeyStore store, Fields f, long now) throws BundleException, BundleKeyStore.Locked {
        String cid = f.conversation;
        long epoch = f.epoch;
        ConversationRecord record = store.record(cid);
        long purged = record == null ? 0 : record.purgedThrough;
        if (record != null && epoch <= purged) throw new BundleException(BundleReason.EPOCH_PURGED); // 9a
        boolean hasHigh = record != null && record.highWater > 0;
        if (hasHigh && epoch > record.highWater && epoch - record.highWater > MAX_EPOCH_STEP) throw new BundleException(BundleReason.EPOCH_OUT_OF_RANGE); // 9b (no overflow: both positive)
        StoredKey existing = store.keyFor(cid, epoch);
        boolean conflict = existing != null && !same(existing.key, f.key);
        if (existing != null) Arrays.fill(existing.key, (byte) 0);
        if (conflict || store.storedElsewhere(f.kid, cid, epoch)) throw new BundleException(BundleReason.CONFLICTING_KEY); // 9c
        if (existing != null) { // 9d
            long notAfter = existing.notAfter;
            if (f.retireBy != NO_RETIRE_BY && (notAfter == NO_RETIRE_BY || f.retireBy < notAfter)) {
                notAfter = f.retireBy;
                store.setNotAfter(cid, epoch, notAfter);
            }
            return new Installed("already_installed", f, notAfter, null, record != null ? record : new ConversationRecord(epoch, f.since, purged));
        }
        long start = Math.min(f.since, now); // the key's start T, kept as its created time (9e, 9f)
        if (!hasHigh || epoch > record.highWater) { // 9e
            long at = start;
            store.install(cid, epoch, f.key, f.retireBy, start);
            store.retireEarlier(cid, epoch, at);
            ConversationRecord after = new ConversationRecord(epoch, f.since, purged);
            store.setRecord(cid, after);
            return new Installed("installed", f, f.retireBy, Long.valueOf(at), after);
        }
        long notAfter = Math.min(record.highWaterSince, now); // 9f
        Long above = store.startedAbove(cid, epoch); // every stored epoch above retired this one when it started (F1)
        if (above != null) notAfter = Math.min(notAfter, above);
        if (f.retireBy != NO_RETIRE_BY) notAfter = Math.min(notAfter, f.retireBy);
        store.install(cid, epoch, f.key, notAfter, start);
        return new Installed("installed_retired", f, notAfter, null, record);
    }
}
