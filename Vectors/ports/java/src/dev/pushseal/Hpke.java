package dev.pushseal;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HPKE (RFC 9180) for one suite: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305; modes
 * base (0x00) and auth (0x02), single-shot. Built from JCA only: X25519 as the {@code XDH}
 * KeyFactory and KeyAgreement (raw keys wrapped in PKCS #8 / X.509 encodings, so the class compiles
 * with {@code --release 8}), {@code HmacSHA256}, and ChaCha20-Poly1305. Needs a runtime with XDH:
 * the JDK from 11 (JEP 324), Android from API 33; elsewhere each call throws
 * {@link IllegalStateException}. The key bundles ({@link KeyBundle}) use the auth mode.
 */
public final class Hpke {
    private Hpke() {}

    /** kem_id of DHKEM(X25519, HKDF-SHA256). */
    public static final int KEM_ID = 0x0020;
    /** kdf_id of HKDF-SHA256. */
    public static final int KDF_ID = 0x0001;
    /** aead_id of ChaCha20Poly1305. */
    public static final int AEAD_ID = 0x0003;
    /** mode_base. */
    public static final int MODE_BASE = 0x00;
    /** mode_auth. */
    public static final int MODE_AUTH = 0x02;

    private static final byte[] KEM_SUITE = {'K', 'E', 'M', 0x00, 0x20};
    private static final byte[] HPKE_SUITE = {'H', 'P', 'K', 'E', 0x00, 0x20, 0x00, 0x01, 0x00, 0x03};
    private static final byte[] VERSION_LABEL = ascii("HPKE-v1");
    private static final byte[] PKCS8_X25519 = hex("302e020100300506032b656e04220420");
    private static final byte[] SPKI_X25519 = hex("302a300506032b656e032100");
    private static final byte[] EMPTY = new byte[0];
    private static final SecureRandom RANDOM = new SecureRandom();

    /** An X25519 key pair (32-byte private and public keys). */
    public static final class KeyPair {
        private final byte[] privateKey, publicKey;

        KeyPair(byte[] privateKey, byte[] publicKey) {
            this.privateKey = privateKey;
            this.publicKey = publicKey;
        }

        /** The private key (a copy). */
        public byte[] privateKey() { return privateKey.clone(); }

        /** The public key (a copy). */
        public byte[] publicKey() { return publicKey.clone(); }
    }

    /** The sender's result: the encapsulated key and the context. */
    public static final class Sender {
        /** enc: the ephemeral public key (32 bytes). */
        public final byte[] enc;
        /** The key schedule's result. */
        public final Context context;

        Sender(byte[] enc, Context context) {
            this.enc = enc;
            this.context = context;
        }
    }

    /** A single-shot seal: the encapsulated key and ciphertext || tag. */
    public static final class Sealed {
        /** enc (32 bytes). */
        public final byte[] enc;
        /** ciphertext || tag. */
        public final byte[] ciphertext;

        Sealed(byte[] enc, byte[] ciphertext) {
            this.enc = enc;
            this.ciphertext = ciphertext;
        }
    }

    /**
     * The key schedule's result (RFC 9180 §5.1) for mode base or auth (psk and psk_id empty).
     * {@link #seal} and {@link #open} take the sequence number explicitly; single-shot use is 0.
     */
    public static final class Context {
        /** The mode. */
        public final int mode;
        final byte[] sharedSecret, keyScheduleContext, secret, key, baseNonce, exporterSecret;

        Context(int mode, byte[] sharedSecret, byte[] info) {
            this.mode = mode;
            this.sharedSecret = sharedSecret;
            byte[] pskIdHash = labeledExtract(HPKE_SUITE, EMPTY, "psk_id_hash", EMPTY);
            byte[] infoHash = labeledExtract(HPKE_SUITE, EMPTY, "info_hash", info);
            keyScheduleContext = Wire.concat(new byte[] {(byte) mode}, pskIdHash, infoHash);
            secret = labeledExtract(HPKE_SUITE, sharedSecret, "secret", EMPTY);
            key = labeledExpand(HPKE_SUITE, secret, "key", keyScheduleContext, 32);
            baseNonce = labeledExpand(HPKE_SUITE, secret, "base_nonce", keyScheduleContext, 12);
            exporterSecret = labeledExpand(HPKE_SUITE, secret, "exp", keyScheduleContext, 32);
        }

        /** The KEM shared secret (a copy). */
        public byte[] sharedSecret() { return sharedSecret.clone(); }
        /** key_schedule_context (a copy). */
        public byte[] keyScheduleContext() { return keyScheduleContext.clone(); }
        /** secret (a copy). */
        public byte[] secret() { return secret.clone(); }
        /** The AEAD key (a copy). */
        public byte[] key() { return key.clone(); }
        /** base_nonce (a copy). */
        public byte[] baseNonce() { return baseNonce.clone(); }
        /** exporter_secret (a copy). */
        public byte[] exporterSecret() { return exporterSecret.clone(); }

        /** base_nonce XOR I2OSP(seq, 12), seq an unsigned 64-bit number. */
        public byte[] nonce(long seq) {
            byte[] n = baseNonce.clone();
            for (int i = 0; i < 8; i++) n[11 - i] ^= (byte) (seq >>> (8 * i));
            return n;
        }

        /** ChaCha20Poly1305 under (key, nonce(seq)): ciphertext || tag. */
        public byte[] seal(byte[] aad, byte[] plaintext, long seq) {
            return Wire.aead(Cipher.ENCRYPT_MODE, key, nonce(seq), aad, plaintext);
        }

        /** The plaintext; throws {@code open_failed} when the tag does not verify. */
        public byte[] open(byte[] aad, byte[] ciphertext, long seq) throws HpkeException {
            byte[] plaintext = Wire.aead(Cipher.DECRYPT_MODE, key, nonce(seq), aad, ciphertext);
            if (plaintext == null) throw new HpkeException("open_failed");
            return plaintext;
        }

        /** RFC 9180 §5.3 secret export. */
        public byte[] export(byte[] exporterContext, int length) {
            return labeledExpand(HPKE_SUITE, exporterSecret, "sec", exporterContext, length);
        }
    }

    static byte[] ascii(String s) { return s.getBytes(StandardCharsets.US_ASCII); }

    static byte[] hex(String s) {
        byte[] b = new BigInteger("10" + s, 16).toByteArray();
        return Arrays.copyOfRange(b, 1, b.length);
    }

    private static byte[] hmac(byte[] key, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.length == 0 ? new byte[32] : key, "HmacSHA256"));
            for (byte[] p : parts) mac.update(p);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] labeledExtract(byte[] suite, byte[] salt, String label, byte[] ikm) {
        return hmac(salt, VERSION_LABEL, suite, ascii(label), ikm);
    }

    private static byte[] labeledExpand(byte[] suite, byte[] prk, String label, byte[] info, int length) {
        if (length < 0 || length > 255 * 32) throw new IllegalArgumentException("length must be 0...8160");
        byte[] labeled = Wire.concat(new byte[] {(byte) (length >>> 8), (byte) length}, VERSION_LABEL, suite, ascii(label), info);
        byte[] out = new byte[length], t = EMPTY;
        for (int at = 0, i = 1; at < length; at += 32, i++) {
            t = hmac(prk, t, labeled, new byte[] {(byte) i});
            System.arraycopy(t, 0, out, at, Math.min(32, length - at));
        }
        return out;
    }

    private static byte[] check(byte[] key) throws HpkeException {
        if (key == null || key.length != 32) throw new HpkeException("invalid_key");
        return key;
    }

    private static PrivateKey privateKey(byte[] sk) throws GeneralSecurityException {
        return KeyFactory.getInstance("XDH").generatePrivate(new PKCS8EncodedKeySpec(Wire.concat(PKCS8_X25519, sk)));
    }

    private static PublicKey publicKeyObject(byte[] pk) throws GeneralSecurityException {
        return KeyFactory.getInstance("XDH").generatePublic(new X509EncodedKeySpec(Wire.concat(SPKI_X25519, pk)));
    }

    /**
     * Raw X25519 (RFC 7748) of two 32-byte keys; {@code zero_shared_secret} for the all-zero result
     * (RFC 9180 §7.1.4), {@code invalid_key} for other lengths.
     */
    public static byte[] x25519(byte[] sk, byte[] pk) throws HpkeException {
        PrivateKey priv;
        PublicKey pub;
        KeyAgreement ka;
        try {
            priv = privateKey(check(sk));
            pub = publicKeyObject(check(pk));
            ka = KeyAgreement.getInstance("XDH");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("X25519 (XDH) is not available: Java 11+ or Android API 33+", e);
        }
        byte[] z;
        try {
            ka.init(priv);
            ka.doPhase(pub, true);
            z = ka.generateSecret();
        } catch (GeneralSecurityException e) { // SunEC and Conscrypt refuse a small-order point themselves
            throw new HpkeException("zero_shared_secret");
        }
        int or = 0;
        for (byte b : z) or |= b;
        if (or == 0) throw new HpkeException("zero_shared_secret");
        return z;
    }

    /** The X25519 public key of a 32-byte private key: X25519(sk, 9). */
    public static byte[] publicKey(byte[] privateKey) throws HpkeException {
        byte[] base = new byte[32];
        base[0] = 9;
        return x25519(privateKey, base);
    }

    /** RFC 9180 DeriveKeyPair for X25519 from input keying material (at least 32 bytes of entropy). */
    public static KeyPair deriveKeyPair(byte[] ikm) {
        byte[] dkpPrk = labeledExtract(KEM_SUITE, EMPTY, "dkp_prk", ikm);
        byte[] sk = labeledExpand(KEM_SUITE, dkpPrk, "sk", EMPTY, 32);
        try {
            return new KeyPair(sk, publicKey(sk));
        } catch (HpkeException e) {
            throw new IllegalStateException(e); // X25519(sk, 9) is never zero
        }
    }

    /** A new random X25519 key pair. */
    public static KeyPair generateKeyPair() {
        byte[] ikm = new byte[32];
        RANDOM.nextBytes(ikm);
        return deriveKeyPair(ikm);
    }

    private static byte[] extractAndExpand(byte[] dh, byte[] kemContext) {
        byte[] eaePrk = labeledExtract(KEM_SUITE, EMPTY, "eae_prk", dh);
        return labeledExpand(KEM_SUITE, eaePrk, "shared_secret", kemContext, 32);
    }

    /**
     * SetupBaseS ({@code senderPrivateKey} null) or SetupAuthS. The ephemeral key is random;
     * {@code testIkmE} (null otherwise) derives it with DeriveKeyPair, for test vectors only.
     */
    public static Sender setupSender(byte[] recipientPublicKey, byte[] info, byte[] senderPrivateKey, byte[] testIkmE) throws HpkeException {
        check(recipientPublicKey);
        KeyPair e = testIkmE != null ? deriveKeyPair(testIkmE) : generateKeyPair();
        byte[] dh = x25519(e.privateKey, recipientPublicKey);
        byte[] kemContext = Wire.concat(e.publicKey, recipientPublicKey);
        if (senderPrivateKey != null) {
            dh = Wire.concat(dh, x25519(senderPrivateKey, recipientPublicKey));
            kemContext = Wire.concat(kemContext, publicKey(senderPrivateKey));
        }
        int mode = senderPrivateKey == null ? MODE_BASE : MODE_AUTH;
        return new Sender(e.publicKey(), new Context(mode, extractAndExpand(dh, kemContext), info));
    }

    /** SetupBaseR ({@code senderPublicKey} null) or SetupAuthR. */
    public static Context setupReceiver(byte[] enc, byte[] recipientPrivateKey, byte[] info, byte[] senderPublicKey) throws HpkeException {
        byte[] dh = x25519(recipientPrivateKey, enc);
        byte[] kemContext = Wire.concat(enc, publicKey(recipientPrivateKey));
        if (senderPublicKey != null) {
            dh = Wire.concat(dh, x25519(recipientPrivateKey, senderPublicKey));
            kemContext = Wire.concat(kemContext, senderPublicKey);
        }
        int mode = senderPublicKey == null ? MODE_BASE : MODE_AUTH;
        return new Context(mode, extractAndExpand(dh, kemContext), info);
    }

    /** Single-shot base-mode seal. */
    public static Sealed sealBase(byte[] recipientPublicKey, byte[] info, byte[] aad, byte[] plaintext) throws HpkeException {
        Sender s = setupSender(recipientPublicKey, info, null, null);
        return new Sealed(s.enc, s.context.seal(aad, plaintext, 0));
    }

    /** Single-shot base-mode open. */
    public static byte[] openBase(byte[] enc, byte[] recipientPrivateKey, byte[] info, byte[] aad, byte[] ciphertext) throws HpkeException {
        return setupReceiver(enc, recipientPrivateKey, info, null).open(aad, ciphertext, 0);
    }

    /** Single-shot auth-mode seal by {@code senderPrivateKey}. */
    public static Sealed sealAuth(byte[] recipientPublicKey, byte[] senderPrivateKey, byte[] info, byte[] aad, byte[] plaintext) throws HpkeException {
        Sender s = setupSender(recipientPublicKey, info, check(senderPrivateKey), null);
        return new Sealed(s.enc, s.context.seal(aad, plaintext, 0));
    }

    /** Single-shot auth-mode open: succeeds only for a ciphertext sealed with the private key of {@code senderPublicKey}. */
    public static byte[] openAuth(byte[] enc, byte[] recipientPrivateKey, byte[] senderPublicKey, byte[] info, byte[] aad, byte[] ciphertext)
            throws HpkeException {
        return setupReceiver(enc, recipientPrivateKey, info, check(senderPublicKey)).open(aad, ciphertext, 0);
    }
}
