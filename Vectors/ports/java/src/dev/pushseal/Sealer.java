package dev.pushseal;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

/**
 * Seals contents with the provider's size policy (SPEC §6.3, §9): APNs bodies and FCM v1 messages
 * that always fit, byte for byte what the Swift provider emits for the same content, options, key
 * and salt. Salts are fresh {@link SecureRandom} bytes; the {@code testSalt} overloads exist for
 * test vectors only (a repeated salt under one key breaks confidentiality).
 */
public final class Sealer {
    public static final int DEFAULT_PAD_BLOCK = 256;
    public static final int MAX_PAD_BLOCK = 4096;
    public static final int APNS_LIMIT = 4096;
    public static final int FCM_DATA_LIMIT = 4096;
    private static final String ELLIPSIS = "\u2026";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String BUNDLE_MEMBER = "pushseal-bundle";

    private final int padBlock;

    /** Pad block 256. */
    public Sealer() { padBlock = DEFAULT_PAD_BLOCK; }

    /** Padded lengths are multiples of {@code padBlock} (1...4096) before the fit cap. */
    public Sealer(int padBlock) throws PushSealException {
        if (padBlock < 1 || padBlock > MAX_PAD_BLOCK) throw PushSealException.seal("invalid_pad_block", "pad block " + padBlock + " is outside 1...4096");
        this.padBlock = padBlock;
    }

    /**
     * An in-band bundle (SPEC §16.7) must be a format-2 bundle ({@code invalid_option} otherwise);
     * its kid is sealed, so whether it delivers the notification's key is the device's step 8b
     * ({@code envelope_mismatch}).
     */
    private static void checkBundle(String bundle, byte[] key) throws PushSealException {
        if (bundle == null) return;
        try {
            KeyBundle.parse(bundle);
        } catch (BundleException e) {
            throw PushSealException.seal("invalid_option", "keyBundle: " + e.getCode());
        }
    }

    private interface KeyedSeal {
        SealedPayload seal(byte[] key) throws PushSealException;
    }

    /** Seals under the device key K_d of (conversationKey, deviceKeyId), wiped afterwards. */
    private static SealedPayload withDeviceKey(byte[] conversationKey, byte[] deviceKeyId, KeyedSeal seal) throws PushSealException {
        if (conversationKey == null || conversationKey.length != 32) throw PushSealException.seal("invalid_key", "a conversation key is 32 bytes");
        if (deviceKeyId == null || deviceKeyId.length != 16) throw PushSealException.seal("invalid_key", "a device key id is 16 bytes");
        byte[] kd = KeyBundle.deviceKey(conversationKey, deviceKeyId);
        try {
            return seal.seal(kd);
        } finally {
            java.util.Arrays.fill(kd, (byte) 0);
        }
    }

    /**
     * {@link #sealAPNs} for one device: sealed under that device's key K_d = HKDF-Expand(K,
     * "pushseal v1 device conversation key" || deviceKeyId, 32) of the conversation key K (SPEC
     * §4.4), so only that device opens it.
     */
    public SealedPayload sealAPNsForDevice(Content content, byte[] conversationKey, byte[] deviceKeyId, APNsOptions options) throws PushSealException {
        return sealAPNsForDevice(content, conversationKey, deviceKeyId, options, null);
    }

    /** With a fixed salt: test vectors only. */
    public SealedPayload sealAPNsForDevice(Content content, byte[] conversationKey, byte[] deviceKeyId, APNsOptions options, byte[] testSalt)
            throws PushSealException {
        return withDeviceKey(conversationKey, deviceKeyId, kd -> sealAPNs(content, kd, options, testSalt));
    }

    /** {@link #sealFCM} for one device, under its key K_d (see {@link #sealAPNsForDevice}). */
    public SealedPayload sealFCMForDevice(Content content, byte[] conversationKey, byte[] deviceKeyId, FCMOptions options) throws PushSealException {
        return sealFCMForDevice(content, conversationKey, deviceKeyId, options, null);
    }

    /** With a fixed salt: test vectors only. */
    public SealedPayload sealFCMForDevice(Content content, byte[] conversationKey, byte[] deviceKeyId, FCMOptions options, byte[] testSalt)
            throws PushSealException {
        return withDeviceKey(conversationKey, deviceKeyId, kd -> sealFCM(content, kd, options, testSalt));
    }

    private static byte[] bundleMember(String bundle) {
        return bundle == null ? new byte[0] : ("\",\"" + BUNDLE_MEMBER + "\":\"" + bundle).getBytes(StandardCharsets.US_ASCII);
    }

    /** The APNs JSON body (at most 4096 bytes). With {@link APNsOptions#withKeyBundle} the bundle is counted first. */
    public SealedPayload sealAPNs(Content content, byte[] key, APNsOptions options) throws PushSealException {
        return sealAPNs(content, key, options, null);
    }

    /** With a fixed salt: test vectors only. */
    public SealedPayload sealAPNs(Content content, byte[] key, APNsOptions options, byte[] testSalt) throws PushSealException {
        checkContent(content);
        checkKey(key);
        options.validate();
        checkBundle(options.keyBundle, key);
        byte[] prefix = options.prefix(key).getBytes(StandardCharsets.UTF_8);
        byte[] member = bundleMember(options.keyBundle), suffix = Wire.concat(member, new byte[] {'"', '}'});
        return seal(content, key, prefix, suffix, prefix.length + suffix.length, APNS_LIMIT, testSalt);
    }

    /** The FCM HTTP v1 message (data map at most 4096 bytes). */
    public SealedPayload sealFCM(Content content, byte[] key, FCMOptions options) throws PushSealException {
        return sealFCM(content, key, options, null);
    }

    /** With a fixed salt: test vectors only. */
    public SealedPayload sealFCM(Content content, byte[] key, FCMOptions options, byte[] testSalt) throws PushSealException {
        checkContent(content);
        checkKey(key);
        options.validate();
        checkBundle(options.keyBundle, key);
        byte[] prefix = ("{\"message\":{\"token\":" + Content.jsonString(options.token) + ",\"data\":{\"pushseal\":\"").getBytes(StandardCharsets.UTF_8);
        byte[] member = bundleMember(options.keyBundle);
        byte[] suffix = Wire.concat(member, ("\"},\"android\":{\"priority\":" + Content.jsonString(options.priority) + ",\"ttl\":\"" + options.ttl + "s\"}}}")
                .getBytes(StandardCharsets.UTF_8));
        int counted = options.keyBundle == null ? 0 : BUNDLE_MEMBER.length() + options.keyBundle.length(); // data-map bytes: name and value
        return seal(content, key, prefix, suffix, "pushseal".length() + counted, FCM_DATA_LIMIT, testSalt);
    }

    private SealedPayload seal(Content content, byte[] key, byte[] prefix, byte[] suffix, int overhead, int limit, byte[] salt)
            throws PushSealException {
        if (salt != null && salt.length != Wire.SALT_BYTES) throw PushSealException.seal("invalid_salt", "salt must be 24 bytes, got " + salt.length);
        int room = limit - overhead;
        int largest = room >= 0 ? Math.min(Wire.MAX_ENVELOPE, Wire.decodedLength(room)) : 0;
        if (largest < Wire.MIN_ENVELOPE) throw doesNotFit(content, overhead, limit);
        int maxPadded = largest - Wire.OVERHEAD;
        Object[] planned = plan(content, Math.min(Content.MAX_BYTES, maxPadded - 1));
        if (planned == null) throw doesNotFit(content, overhead, limit);
        Content sealed = (Content) planned[0];
        byte[] data = sealed.encode();
        int padded = Math.min(Wire.paddedLength(data.length, padBlock), maxPadded);
        if (salt == null) {
            salt = new byte[Wire.SALT_BYTES];
            RANDOM.nextBytes(salt);
        }
        byte[] plaintext = Wire.padTo(data, padded);
        byte[] envelope = Wire.sealEnvelope(key, salt, plaintext);
        java.util.Arrays.fill(plaintext, (byte) 0);
        String wire = Wire.b64urlEncode(envelope);
        byte[] body = Wire.concat(prefix, wire.getBytes(StandardCharsets.US_ASCII), suffix);
        return new SealedPayload(body, (String) planned[1], wire, sealed,
                new int[] {data.length, padded, envelope.length, wire.length(), body.length, overhead + wire.length(), limit});
    }

    /** What to seal so the encoded content is at most {@code budget} bytes: {content, path}, or null. */
    static Object[] plan(Content content, int budget) {
        if (content.encode().length <= budget) return new Object[] {content, "complete"};
        if (content.body != null) {
            Content shell = content.toBuilder().body("").trunc(true).build();
            int prefixBudget = budget - shell.encode().length - 3;
            if (prefixBudget >= 0) {
                String kept = content.body.substring(0, Graphemes.fittingPrefixEnd(content.body, prefixBudget));
                return new Object[] {shell.toBuilder().body(kept + ELLIPSIS).build(), "truncated"};
            }
        }
        Content free = content.contentFree();
        return free.encode().length <= budget ? new Object[] {free, "content_free"} : null;
    }

    private static void checkContent(Content content) throws PushSealException {
        content.validate();
        if (content.body == null && !content.isContentFreeShape()) {
            throw PushSealException.seal("invalid_content", "body is required except in the content-free form (cid, mid, ts)");
        }
    }

    private static void checkKey(byte[] key) throws PushSealException {
        if (key == null || key.length != 32) throw PushSealException.seal("invalid_key", "a conversation key is 32 bytes");
    }

    private static PushSealException doesNotFit(Content content, int overhead, int limit) {
        int count = overhead + Wire.encodedLength(content.contentFree().encode().length + 1 + Wire.OVERHEAD);
        return PushSealException.seal("does_not_fit", "even the content-free payload is " + count + " bytes, more than the "
                + limit + "-byte limit (shorten the placeholder or outer fields)");
    }
}
