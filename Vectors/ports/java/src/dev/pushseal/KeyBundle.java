package dev.pushseal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * Key bundles v1: one conversation key K for one (conversation, epoch), sealed to one device with
 * HPKE mode_auth (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) by the provider's key.
 * A backend seals with {@link #seal}; a device checks and installs with {@link #open}, which throws
 * a {@link BundleException} carrying the first failed check's {@link BundleReason}. Needs X25519
 * (XDH): Java 11+, Android API 33+ (see {@link Hpke}).
 */
public final class KeyBundle {
    private KeyBundle() {}

    /** The bundle version byte. */
    public static final int VERSION = 0x01;
    /** notAfter of a key without a time limit (0xffffffffffffffff, i.e. -1 as a long). */
    public static final long NO_EXPIRY = -1L;
    /** The longest bundle text, in characters (401 bytes). */
    public static final int MAX_TEXT = 535;
    static final byte[] INFO = "pushseal v1 key bundle".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADER = 65, ENC = 32, OVERHEAD = HEADER + ENC + 32 + 16, MAX_CID = 256; // |bundle| = 145 + n

    /** HKDF-Expand(PRK = the device's X25519 public key, "pushseal v1 device key id", 16). */
    public static byte[] deviceKeyId(byte[] devicePublicKey) {
        return Wire.expand(devicePublicKey, "pushseal v1 device key id".getBytes(StandardCharsets.US_ASCII), 16);
    }

    /** HKDF-Expand(PRK = the provider's X25519 public key, "pushseal v1 provider key id", 16). */
    public static byte[] providerKeyId(byte[] providerPublicKey) {
        return Wire.expand(providerPublicKey, "pushseal v1 provider key id".getBytes(StandardCharsets.US_ASCII), 16);
    }

    /** The bundle header B (65 bytes, the HPKE associated data); the conversation id is sealed with K, not in it. */
    public static final class Header {
        final byte[] providerKeyId, deviceKeyId, kid;
        /** The key's epoch, at least 1. */
        public final long epoch;
        /** The key's last live second (Unix time, inclusive, at least 0), or {@link #NO_EXPIRY} for no limit. */
        public final long notAfter;

        /** A header; the ids are 16 bytes, epoch at least 1, notAfter at least 0 or {@link #NO_EXPIRY}. */
        public Header(byte[] providerKeyId, byte[] deviceKeyId, long epoch, long notAfter, byte[] kid) {
            if (providerKeyId.length != 16 || deviceKeyId.length != 16 || kid.length != 16) throw new IllegalArgumentException("ids must be 16 bytes");
            if (epoch < 1) throw new IllegalArgumentException("epoch must be 1...2^63-1");
            if (notAfter < 0 && notAfter != NO_EXPIRY) throw new IllegalArgumentException("notAfter must be 0...2^63-1 or NO_EXPIRY");
            this.providerKeyId = providerKeyId.clone();
            this.deviceKeyId = deviceKeyId.clone();
            this.epoch = epoch;
            this.notAfter = notAfter;
            this.kid = kid.clone();
        }

        /** The provider key id (a copy). */
        public byte[] providerKeyId() { return providerKeyId.clone(); }
        /** The device key id (a copy). */
        public byte[] deviceKeyId() { return deviceKeyId.clone(); }
        /** The conversation key's kid (a copy). */
        public byte[] kid() { return kid.clone(); }

        /** B, byte for byte. */
        public byte[] encode() {
            return ByteBuffer.allocate(HEADER).put((byte) VERSION).put(providerKeyId).put(deviceKeyId).putLong(epoch).putLong(notAfter).put(kid).array();
        }
    }

    /** A parsed bundle: its header, the header bytes B, enc and the ciphertext. */
    public static final class Parsed {
        /** The header. */
        public final Header header;
        final byte[] headerBytes, enc, ciphertext;

        Parsed(Header header, byte[] headerBytes, byte[] enc, byte[] ciphertext) {
            this.header = header;
            this.headerBytes = headerBytes;
            this.enc = enc;
            this.ciphertext = ciphertext;
        }

        /** B (a copy). */
        public byte[] headerBytes() { return headerBytes.clone(); }
        /** enc (a copy). */
        public byte[] enc() { return enc.clone(); }
        /** ct (a copy). */
        public byte[] ciphertext() { return ciphertext.clone(); }
    }

    /** A bundle that passed every check and whose key is in the store. */
    public static final class Installed {
        /** The header. */
        public final Header header;
        /** The conversation, opened from the sealed part. */
        public final String conversation;
        /** True if the same key was already stored for (conversation, epoch). */
        public final boolean alreadyInstalled;

        Installed(Header header, String conversation, boolean alreadyInstalled) {
            this.header = header;
            this.conversation = conversation;
            this.alreadyInstalled = alreadyInstalled;
        }
    }

    /**
     * Parses a bundle's text after steps 1-3 of the checks: {@code malformed_bundle} (longer than
     * {@link #MAX_TEXT} characters or not strict base64url), then as {@link #parse(byte[])}.
     */
    public static Parsed parse(String text) throws BundleException {
        byte[] data = text == null || text.length() > MAX_TEXT ? null : Wire.b64urlDecode(text);
        if (data == null) throw new BundleException(BundleReason.MALFORMED_BUNDLE);
        return parse(data);
    }

    /**
     * Parses a bundle's bytes: {@code unsupported_bundle_version} (checked before the length), then
     * {@code malformed_bundle} (empty, length not 146...401 bytes, epoch 0 or above 2^63 − 1,
     * notAfter above 2^63 − 1 and not {@link #NO_EXPIRY}).
     */
    public static Parsed parse(byte[] data) throws BundleException {
        if (data.length == 0) throw new BundleException(BundleReason.MALFORMED_BUNDLE);
        if (data[0] != VERSION) throw new BundleException(BundleReason.UNSUPPORTED_BUNDLE_VERSION);
        int n = data.length - OVERHEAD;
        if (n < 1 || n > MAX_CID) throw new BundleException(BundleReason.MALFORMED_BUNDLE);
        ByteBuffer b = ByteBuffer.wrap(data);
        long epoch = b.getLong(33), notAfter = b.getLong(41); // signed: above 2^63 - 1 is negative
        if (epoch < 1 || (notAfter < 0 && notAfter != NO_EXPIRY)) throw new BundleException(BundleReason.MALFORMED_BUNDLE);
        Header header = new Header(Arrays.copyOfRange(data, 1, 17), Arrays.copyOfRange(data, 17, 33), epoch, notAfter, Arrays.copyOfRange(data, 49, 65));
        return new Parsed(header, Arrays.copyOfRange(data, 0, HEADER), Arrays.copyOfRange(data, HEADER, HEADER + ENC),
                Arrays.copyOfRange(data, HEADER + ENC, data.length));
    }

    /**
     * The bundle text (base64url, no padding) of conversation key {@code key} for (conversation,
     * epoch), sealed to {@code devicePublicKey} by {@code providerPrivateKey}. {@code notAfter}: the
     * key's last live second (Unix time, inclusive), {@link #NO_EXPIRY} for no limit. Throws
     * IllegalArgumentException for a field out of range, HpkeException for a small-order device key.
     */
    public static String seal(byte[] key, String conversation, long epoch, long notAfter, byte[] providerPrivateKey, byte[] devicePublicKey)
            throws HpkeException {
        return seal(key, conversation, epoch, notAfter, providerPrivateKey, devicePublicKey, null);
    }

    /** {@link #seal} with the ephemeral key derived from {@code testIkmE}: for test vectors only. */
    public static String seal(byte[] key, String conversation, long epoch, long notAfter, byte[] providerPrivateKey, byte[] devicePublicKey,
            byte[] testIkmE) throws HpkeException {
        if (key.length != 32 || providerPrivateKey.length != 32 || devicePublicKey.length != 32) {
            throw new IllegalArgumentException("key, provider private key and device public key must be 32 bytes");
        }
        byte[] cid = conversation.getBytes(StandardCharsets.UTF_8);
        if (cid.length < 1 || cid.length > MAX_CID || !new String(cid, StandardCharsets.UTF_8).equals(conversation)) {
            throw new IllegalArgumentException("the conversation must be 1-256 bytes of UTF-8");
        }
        byte[] b = new Header(providerKeyId(Hpke.publicKey(providerPrivateKey)), deviceKeyId(devicePublicKey), epoch, notAfter, Wire.keyId(key)).encode();
        Hpke.Sender s = Hpke.setupSender(devicePublicKey, INFO, providerPrivateKey, testIkmE);
        byte[] pt = Wire.concat(key, cid);
        try {
            return Wire.b64urlEncode(Wire.concat(b, s.enc, s.context.seal(b, pt, 0)));
        } finally {
            Arrays.fill(pt, (byte) 0);
        }
    }

    private static boolean same(byte[] a, byte[] b) { return MessageDigest.isEqual(a, b); }

    /**
     * Checks a bundle in the specified order and installs its key (idempotent). {@code now}:
     * seconds since 1970. Throws {@link BundleException} with the first failed check's reason and
     * installs nothing then; the opened plaintext is wiped on every path (the store copies the key).
     */
    public static Installed open(String bundle, byte[] devicePrivateKey, Iterable<byte[]> pinnedProviderKeys, BundleKeyStore store, long now)
            throws BundleException {
        Parsed p = parse(bundle); // steps 1-3
        Header h = p.header;
        try {
            if (!same(h.deviceKeyId, deviceKeyId(Hpke.publicKey(devicePrivateKey)))) throw new BundleException(BundleReason.WRONG_DEVICE); // step 4
        } catch (HpkeException e) {
            throw new IllegalArgumentException("the device private key must be 32 bytes", e);
        }
        byte[] provider = null;
        for (byte[] pk : pinnedProviderKeys) {
            if (same(providerKeyId(pk), h.providerKeyId)) {
                provider = pk;
                break;
            }
        }
        if (provider == null) throw new BundleException(BundleReason.UNKNOWN_PROVIDER); // step 5
        byte[] pt;
        try { // step 6
            pt = Hpke.setupReceiver(p.enc, devicePrivateKey, INFO, provider).open(p.headerBytes, p.ciphertext, 0);
        } catch (HpkeException e) {
            throw new BundleException(BundleReason.BUNDLE_AUTHENTICATION_FAILED);
        }
        byte[] key = Arrays.copyOf(pt, 32);
        try {
            byte[] cid = Arrays.copyOfRange(pt, 32, pt.length);
            if (!StrictJson.validUtf8(cid)) throw new BundleException(BundleReason.MALFORMED_BUNDLE); // step 7
            String conversation = new String(cid, StandardCharsets.UTF_8);
            if (!same(Wire.keyId(key), h.kid)) throw new BundleException(BundleReason.KID_MISMATCH); // step 8
            if (h.notAfter != NO_EXPIRY && now > h.notAfter) throw new BundleException(BundleReason.BUNDLE_EXPIRED); // step 9
            try {
                synchronized (store) { // steps 10-11 as one transaction within this process
                    byte[] existing = store.keyFor(conversation, h.epoch);
                    boolean conflict = existing != null && !same(existing, key);
                    if (existing != null) Arrays.fill(existing, (byte) 0);
                    if (conflict || store.storedElsewhere(h.kid, conversation, h.epoch)) throw new BundleException(BundleReason.CONFLICTING_KEY);
                    if (existing != null) return new Installed(h, conversation, true);
                    store.install(conversation, h.epoch, key, h.notAfter);
                    return new Installed(h, conversation, false);
                }
            } catch (BundleKeyStore.Locked e) {
                throw new BundleException(BundleReason.STORE_LOCKED);
            }
        } finally {
            Arrays.fill(key, (byte) 0);
            Arrays.fill(pt, (byte) 0);
        }
    }
}
