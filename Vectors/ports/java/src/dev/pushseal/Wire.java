package dev.pushseal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/** The v1 construction: derivations (SPEC §4), padding (§6), envelope (§7), strict base64url (§8). */
final class Wire {
    private Wire() {}

    static final int VERSION = 0x01;
    static final int SALT_BYTES = 24;
    static final int HEADER_BYTES = 41;
    static final int TAG_BYTES = 16;
    static final int OVERHEAD = HEADER_BYTES + TAG_BYTES;
    static final int MIN_ENVELOPE = 58;
    static final int MAX_ENVELOPE = 4096;
    static final int MAX_WIRE_CHARS = 5462;
    private static final byte[] INFO_KID = "pushseal v1 key id".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] INFO_MK = "pushseal v1 message key".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] INFO_TID = "pushseal v1 thread id".getBytes(StandardCharsets.US_ASCII);

    /** HKDF-Expand(PRK = K, info, L <= 32) = first L bytes of HMAC-SHA256(K, info || 0x01). */
    static byte[] expand(byte[] prk, byte[] info, int length) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(prk, "HmacSHA256"));
            mac.update(info);
            mac.update((byte) 0x01);
            return Arrays.copyOf(mac.doFinal(), length);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] keyId(byte[] k) { return expand(k, INFO_KID, 16); }
    static byte[] messageKey(byte[] k, byte[] salt) { return expand(k, concat(INFO_MK, salt), 32); }
    static byte[] threadId(byte[] k) { return expand(k, INFO_TID, 16); }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) n += p.length;
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    /**
     * A fresh ChaCha20-Poly1305 cipher: Android's provider (Conscrypt, API 28+) documents the
     * transformation {@code ChaCha20/Poly1305/NoPadding}; the JDK (11+) names it
     * {@code ChaCha20-Poly1305}. One Cipher per call: SunJCE refuses to re-initialise one with the
     * same key and nonce for encryption.
     */
    static Cipher chaCha20Poly1305() throws NoSuchPaddingException, NoSuchAlgorithmException {
        try {
            return Cipher.getInstance("ChaCha20/Poly1305/NoPadding");
        } catch (NoSuchAlgorithmException e) {
            return Cipher.getInstance("ChaCha20-Poly1305");
        }
    }

    static byte[] aead(int mode, byte[] key, byte[] aad, byte[] input) { return aead(mode, key, new byte[12], aad, input); }

    /** ChaCha20-Poly1305 with this nonce; null when opening fails the tag (nothing is released then). */
    static byte[] aead(int mode, byte[] key, byte[] nonce, byte[] aad, byte[] input) {
        try {
            Cipher c = chaCha20Poly1305();
            c.init(mode, new SecretKeySpec(key, "ChaCha20"), new IvParameterSpec(nonce));
            c.updateAAD(aad);
            return c.doFinal(input);
        } catch (AEADBadTagException e) {
            return null;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** E = 0x01 || kid || s || ChaCha20-Poly1305(mk, zero nonce, aad = header, P). */
    static byte[] sealEnvelope(byte[] key, byte[] salt, byte[] plaintext) {
        if (key.length != 32 || salt.length != SALT_BYTES) throw new IllegalArgumentException("key must be 32 bytes and salt 24 bytes");
        if (plaintext.length < 1 || OVERHEAD + plaintext.length > MAX_ENVELOPE) {
            throw new IllegalArgumentException("the envelope must be 58 to 4096 bytes");
        }
        byte[] header = concat(new byte[] {(byte) VERSION}, keyId(key), salt);
        return concat(header, aead(Cipher.ENCRYPT_MODE, messageKey(key, salt), header, plaintext));
    }

    /** The padded plaintext, or null when the tag does not verify (nothing is released then). */
    static byte[] openEnvelope(byte[] key, byte[] env) {
        byte[] header = Arrays.copyOfRange(env, 0, HEADER_BYTES);
        byte[] salt = Arrays.copyOfRange(env, 17, HEADER_BYTES);
        return aead(Cipher.DECRYPT_MODE, messageKey(key, salt), header, Arrays.copyOfRange(env, HEADER_BYTES, env.length));
    }

    static int paddedLength(int contentLength, int block) {
        return ((contentLength + 1 + block - 1) / block) * block;
    }

    static byte[] padTo(byte[] content, int length) {
        byte[] out = Arrays.copyOf(content, length); // zero-filled
        out[content.length] = (byte) 0x80;
        return out;
    }

    static byte[] pad(byte[] content, int block) { return padTo(content, paddedLength(content.length, block)); }

    static byte[] unpad(byte[] p) {
        int i = p.length - 1;
        while (i >= 0 && p[i] == 0) i--;
        if (i < 0 || (p[i] & 0xff) != 0x80) return null;
        return Arrays.copyOf(p, i);
    }

    static int encodedLength(int bytes) { return (bytes * 8 + 5) / 6; }
    static int decodedLength(int chars) { return chars * 6 / 8; }

    static final String B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    static int b64Value(char c) {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '-') return 62;
        if (c == '_') return 63;
        return -1;
    }

    static String b64urlEncode(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < b.length; i += 3) {
            int rem = Math.min(3, b.length - i);
            int n = (b[i] & 0xff) << 16;
            if (rem > 1) n |= (b[i + 1] & 0xff) << 8;
            if (rem > 2) n |= b[i + 2] & 0xff;
            for (int j = 0; j <= rem; j++) sb.append(B64.charAt((n >> (18 - 6 * j)) & 63));
        }
        return sb.toString();
    }

    /** Strict decode; null on any violation. (java.util.Base64 is lenient about trailing bits: not used.) */
    static byte[] b64urlDecode(String s) {
        int len = s.length();
        if (len % 4 == 1) return null;
        int[] v = new int[len];
        for (int i = 0; i < len; i++) {
            v[i] = b64Value(s.charAt(i));
            if (v[i] < 0) return null;
        }
        int rem = len % 4;
        if (rem == 2 && (v[len - 1] & 0x0f) != 0) return null;
        if (rem == 3 && (v[len - 1] & 0x03) != 0) return null;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < len; i += 4) {
            int g = Math.min(4, len - i);
            int n = 0;
            for (int j = 0; j < 4; j++) n = (n << 6) | (j < g ? v[i + j] : 0);
            for (int j = 0; j < g - 1; j++) out.write((n >> (16 - 8 * j)) & 0xff);
        }
        return out.toByteArray();
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
        return sb.toString();
    }
}
