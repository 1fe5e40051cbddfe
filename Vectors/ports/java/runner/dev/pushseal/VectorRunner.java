package dev.pushseal;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The vector runner (not part of the library jar): {@code java -cp pushseal.jar:runner
 * dev.pushseal.VectorRunner FILE…}. Runs receiver ({@code pushseal_v1_test_schema}), provider
 * ({@code pushseal_v1_provider_test_schema}) and key bundle ({@code pushseal_v1_bundle_test_schema})
 * vector files and the RFC 9180 HPKE file (its base and auth vectors); prints one {@code FAIL tcId N: …} line
 * per mismatch and {@code N passed, N failed}; exits 1 on any failure.
 */
public final class VectorRunner {
    private VectorRunner() {}

    static final PrintStream OUT = utf8(FileDescriptor.out);

    static PrintStream utf8(FileDescriptor fd) {
        try {
            return new PrintStream(new FileOutputStream(fd), true, "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    static final class CaseError extends Exception {
        private static final long serialVersionUID = 1L;

        CaseError(String m) { super(m); }
    }

    static byte[] hexField(Map<String, Object> t, String name, int length, boolean nullable) throws CaseError {
        Object v = t.get(name);
        if (v == null) {
            if (nullable) return null;
            throw new CaseError(name + " missing");
        }
        if (!(v instanceof String) || !((String) v).matches("([0-9a-f]{2})*")) throw new CaseError(name + " is not lowercase hex");
        String s = (String) v;
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        if (length >= 0 && b.length != length) throw new CaseError(name + " must be " + length + " bytes");
        return b;
    }

    /** A device store that is always locked (the bundle vectors' {@code "keyStore": "locked"}; also for the tests). */
    public static final BundleKeyStore LOCKED_BUNDLE_STORE = new BundleKeyStore() {
        @Override public KeyBundle.StoredKey keyFor(String conversation, long epoch) throws Locked { throw new Locked(); }
        @Override public boolean storedElsewhere(byte[] kid, String conversation, long epoch) throws Locked { throw new Locked(); }
        @Override public KeyBundle.ConversationRecord record(String conversation) throws Locked { throw new Locked(); }
        @Override public Long startedAbove(String conversation, long epoch) throws Locked { throw new Locked(); }
        @Override public void install(String conversation, long epoch, byte[] key, long notAfter, long created) throws Locked { throw new Locked(); }
        @Override public void setNotAfter(String conversation, long epoch, long notAfter) throws Locked { throw new Locked(); }
        @Override public void retireEarlier(String conversation, long epoch, long at) throws Locked { throw new Locked(); }
        @Override public void setRecord(String conversation, KeyBundle.ConversationRecord record) throws Locked { throw new Locked(); }
    };

    static long longField(Map<String, Object> t, String name) throws CaseError {
        Object v = t.get(name);
        if (!(v instanceof Long)) throw new CaseError(name + " must be an integer");
        return (Long) v;
    }

    static boolean same(byte[] a, byte[] b) { return a == null ? b == null : Arrays.equals(a, b); }

    static byte[] u32(long n) { return java.nio.ByteBuffer.allocate(4).putInt((int) n).array(); }

    static byte[] i64(long n) { return java.nio.ByteBuffer.allocate(8).putLong(n).array(); }

    static byte[] utf8(Object s) { return ((String) s).getBytes(StandardCharsets.UTF_8); }

    /** The first 8 bytes of SHA-256 of {@code bytes} (the duplicate-log file's check). */
    static byte[] sha8(byte[] bytes) {
        try {
            return Arrays.copyOf(java.security.MessageDigest.getInstance("SHA-256").digest(bytes), 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] hmac(byte[] key, byte[]... parts) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
            for (byte[] part : parts) mac.update(part);
            return mac.doFinal();
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static void expect(List<String> errs, Map<String, Object> t, String name, byte[] value) throws CaseError {
        if (!Arrays.equals(hexField(t, name, -1, false), value)) errs.add(name + " differs");
    }

    /** Mismatches of one key-store case (Docs/KEY-STORE.md §3; empty: it passes). */
    static List<String> runStoreCase(Map<String, Object> t) throws CaseError {
        List<String> errs = new ArrayList<String>();
        byte[] mk = hexField(t, "masterKey", 32, false);
        Object kind = t.get("kind");
        if ("identity".equals(kind) || "providerKeyRecord".equals(kind)) return runStoreIdentityCase(t, mk);
        if ("item".equals(kind)) {
            byte[] key = hexField(t, "key", 32, false), salt = hexField(t, "salt", 24, false);
            byte[] cid = utf8(t.get("conversation"));
            Object notAfter = t.get("notAfter"), label = t.get("label");
            byte[] ad = Wire.concat(new byte[] {2}, Wire.keyId(key), i64(longField(t, "epoch")), i64(longField(t, "createdAt")),
                    notAfter == null ? Wire.concat(new byte[] {0}, i64(0)) : Wire.concat(new byte[] {1}, i64((Long) notAfter)),
                    u32(cid.length), cid,
                    label == null ? Wire.concat(new byte[] {0}, u32(0)) : Wire.concat(new byte[] {1}, u32(utf8(label).length), utf8(label)));
            byte[] itemKey = Wire.expand(mk, Wire.concat("pushseal v1 store item".getBytes(StandardCharsets.US_ASCII), salt), 32);
            byte[] sealed = Wire.concat(new byte[] {2}, salt, Wire.aead(javax.crypto.Cipher.ENCRYPT_MODE, itemKey, ad, key));
            if (!Arrays.equals(Wire.keyId(key), hexField(t, "kid", 16, false))) errs.add("kid differs");
            expect(errs, t, "associatedDataHex", ad);
            expect(errs, t, "sealedHex", sealed);
        } else if ("verifier".equals(kind)) {
            byte[] salt = hexField(t, "salt", 24, false);
            expect(errs, t, "verifierHex", Wire.concat(new byte[] {1}, salt,
                    Wire.expand(mk, Wire.concat("pushseal v1 store verifier".getBytes(StandardCharsets.US_ASCII), salt), 32)));
        } else if ("delivery".equals(kind)) {
            byte[] lk = Wire.expand(mk, "pushseal v1 store delivery log".getBytes(StandardCharsets.US_ASCII), 32);
            byte[] cid = utf8(t.get("conversation")), mid = utf8(t.get("messageId"));
            byte[] tag = hmac(lk, u32(cid.length), cid, u32(mid.length), mid);
            byte[] envelopeTag = hmac(lk, new byte[] {2}, hexField(t, "envelopeHex", -1, false));
            expect(errs, t, "tagHex", tag);
            expect(errs, t, "envelopeTagHex", envelopeTag);
            // Its mark in the duplicate-log file (Docs/KEY-STORE.md §2.1): a 128-byte slot whose last
            // 8 bytes are SHA-256 of the first 120, at index = first 8 bytes of the tag mod the slot count.
            byte[] logId = hmac(lk, "pushseal v1 delivery log id".getBytes(StandardCharsets.US_ASCII));
            byte[] body = Wire.concat(new byte[] {1, 1, 0, 0, 0, 0, 0, 0}, i64(longField(t, "seenAt")), tag, envelopeTag, new byte[40]);
            byte[] slot = Wire.concat(body, sha8(body));
            byte[] head = Wire.concat("PSDL".getBytes(StandardCharsets.US_ASCII), u32(1), i64(longField(t, "slotCount")), i64(0), i64(0),
                    i64(Long.MIN_VALUE), logId, new byte[48]);
            long index = Long.remainderUnsigned(java.nio.ByteBuffer.wrap(tag, 0, 8).getLong(), longField(t, "slotCount"));
            expect(errs, t, "logIdHex", logId);
            if (longField(t, "slotIndex") != index) errs.add("slotIndex differs");
            expect(errs, t, "slotHex", slot);
            expect(errs, t, "checkHex", Arrays.copyOfRange(slot, 120, 128));
            expect(errs, t, "emptyLogHeaderHex", Wire.concat(head, sha8(head)));
        } else if ("epochRecord".equals(kind)) {
            byte[] rk = Wire.expand(mk, "pushseal v1 store epoch record".getBytes(StandardCharsets.US_ASCII), 32);
            byte[] cid = utf8(t.get("conversation"));
            expect(errs, t, "tagHex", hmac(rk, new byte[] {1}, u32(cid.length), cid, i64(longField(t, "epoch")),
                    hexField(t, "kid", 16, false), new byte[] {(byte) (Boolean.TRUE.equals(t.get("removed")) ? 1 : 0)}));
        } else {
            throw new CaseError("unknown kind " + kind);
        }
        return errs;
    }

    private static final List<String> IDENTITY_KINDS = Arrays.asList("device", "provider", "pinned", "registered");

    /**
     * An identity row read back as the store reads it (Docs/KEY-STORE.md §3.6, §3.7): its secret (the
     * private key, or an empty array for a pinned key or a registered device), or null when the
     * store refuses the row (id not its public key's, malformed blob, no authentication, or a
     * private key that does not give the public key).
     */
    static byte[] readIdentity(String kind, byte[] id, byte[] pk, byte[] ad, byte[] sealed, byte[] mk) throws CaseError {
        boolean hasPrivateKey = kind.equals("device") || kind.equals("provider");
        byte[] expectedId = kind.equals("device") || kind.equals("registered") ? KeyBundle.deviceKeyId(pk) : KeyBundle.providerKeyId(pk);
        if (!Arrays.equals(id, expectedId)) return null;
        if (sealed.length != 1 + 24 + (hasPrivateKey ? 32 : 0) + 16 || sealed[0] != 3) return null;
        byte[] rowKey = Wire.expand(mk, Wire.concat("pushseal v1 store identity".getBytes(StandardCharsets.US_ASCII), Arrays.copyOfRange(sealed, 1, 25)), 32);
        byte[] secret = Wire.aead(javax.crypto.Cipher.DECRYPT_MODE, rowKey, ad, Arrays.copyOfRange(sealed, 25, sealed.length));
        try {
            if (secret == null || (hasPrivateKey && !Arrays.equals(Hpke.publicKey(secret), pk))) return null;
        } catch (HpkeException e) {
            throw new CaseError("the opened private key is not an X25519 key: " + e.getMessage());
        }
        return secret;
    }

    /** Mismatches of one {@code identity} or {@code providerKeyRecord} case (Docs/KEY-STORE.md §3.6, §3.7). */
    static List<String> runStoreIdentityCase(Map<String, Object> t, byte[] mk) throws CaseError {
        List<String> errs = new ArrayList<String>();
        Object result = t.get("result");
        if (!"valid".equals(result) && !"invalid".equals(result)) throw new CaseError("result must be valid or invalid");
        boolean valid = "valid".equals(result);
        if ("providerKeyRecord".equals(t.get("kind"))) {
            byte[] rk = Wire.expand(mk, "pushseal v1 store epoch record".getBytes(StandardCharsets.US_ASCII), 32);
            byte[] kid = hexField(t, "kid", 16, false), value = hexField(t, "valueHex", -1, false);
            boolean verifies = value.length == 48 && java.security.MessageDigest.isEqual(
                    Arrays.copyOfRange(value, 16, 48), hmac(rk, new byte[] {3}, Arrays.copyOfRange(value, 0, 16)));
            if (!valid) {
                if (verifies) errs.add("the record verifies but must not");
            } else if (!verifies || !Arrays.equals(value, Wire.concat(kid, hmac(rk, new byte[] {3}, kid)))) {
                errs.add("valueHex differs");
            }
            return errs;
        }
        Object identityKind = t.get("identityKind");
        if (!IDENTITY_KINDS.contains(identityKind)) throw new CaseError("unknown identityKind " + identityKind);
        String kind = (String) identityKind;
        boolean publicOnly = kind.equals("pinned") || kind.equals("registered");
        byte[] pk = hexField(t, "publicKey", 32, false), id = hexField(t, "id", 16, false), salt = hexField(t, "salt", 24, false);
        byte[] sk = hexField(t, "privateKey", 32, publicOnly);
        byte[] ad = Wire.concat(new byte[] {3, (byte) (IDENTITY_KINDS.indexOf(kind) + 1)}, id, pk, i64(longField(t, "createdAt")));
        if (kind.equals("registered")) {
            if (!t.containsKey("revokedAt")) throw new CaseError("revokedAt missing");
            ad = Wire.concat(ad, t.get("revokedAt") == null ? new byte[] {0} : Wire.concat(new byte[] {1}, i64(longField(t, "revokedAt"))));
        }
        expect(errs, t, "associatedDataHex", ad);
        byte[] sealed = hexField(t, "sealedHex", -1, false);
        byte[] opened = readIdentity(kind, id, pk, ad, sealed, mk);
        if (!valid) {
            if (opened != null) errs.add("the row opens but must not");
            return errs;
        }
        if (opened == null) {
            errs.add("the row does not open");
            return errs;
        }
        if (!publicOnly && !Arrays.equals(opened, sk)) errs.add("the opened private key differs");
        byte[] rowKey = Wire.expand(mk, Wire.concat("pushseal v1 store identity".getBytes(StandardCharsets.US_ASCII), salt), 32);
        expect(errs, t, "sealedHex", Wire.concat(new byte[] {3}, salt, Wire.aead(javax.crypto.Cipher.ENCRYPT_MODE, rowKey, ad, sk == null ? new byte[0] : sk)));
        return errs;
    }

    static List<String> runReceiverCase(Map<String, Object> t) throws CaseError {
        List<String> errs = new ArrayList<String>();
        final byte[] key = hexField(t, "key", 32, false);
        byte[] kid = hexField(t, "kid", 16, false);
        final String conversation = (String) t.get("conversation");
        final Object store = t.get("keyStore");
        if (!"available".equals(store) && !"locked".equals(store)) throw new CaseError("keyStore must be available or locked");
        final boolean previouslySeen = Boolean.TRUE.equals(t.get("previouslySeen"));
        final long now = longField(t, "now");
        Object result = t.get("result"), reason = t.get("reason");
        boolean duplicate = Boolean.TRUE.equals(t.get("duplicate"));
        if ("valid".equals(result) != (reason == null)) throw new CaseError("result and reason disagree");
        if (reason != null && Reason.fromCode((String) reason) == null) throw new CaseError("unknown reason code " + reason);
        byte[] sealKey = hexField(t, "sealKey", 32, true), salt = hexField(t, "salt", 24, true), mk = hexField(t, "messageKey", 32, true);
        byte[] contentHex = hexField(t, "contentHex", -1, true), plaintextHex = hexField(t, "plaintextHex", -1, true);
        Object retireField = t.get("keyRetireBy");
        if (retireField != null && !(retireField instanceof Long)) throw new CaseError("keyRetireBy must be an integer or null");
        final Long retireBy = (Long) retireField;
        Object fetchField = t.get("requiresFetch"), truncField = t.get("truncated");
        if (!(fetchField instanceof Boolean) || !(truncField instanceof Boolean)) throw new CaseError("requiresFetch and truncated must be booleans");
        boolean requiresFetch = (Boolean) fetchField, truncated = (Boolean) truncField;
        byte[] handedKid = hexField(t, "keySourceKid", 16, true);
        Object differsField = t.get("previousEnvelopeDiffers"), conflictField = t.get("conflict");
        if (!(differsField instanceof Boolean) || !(conflictField instanceof Boolean)) {
            throw new CaseError("previousEnvelopeDiffers and conflict must be booleans");
        }
        final boolean differs = (Boolean) differsField, conflict = (Boolean) conflictField;
        final byte[] derivedKid = Wire.keyId(key);
        if (!Arrays.equals(derivedKid, kid)) errs.add("kid differs");
        final byte[] indexKid = handedKid != null ? handedKid : derivedKid;
        KeySource keys = new KeySource() {
            @Override public KeyLookup lookup(byte[] want) {
                if (!Arrays.equals(want, indexKid)) return KeyLookup.NOT_FOUND;
                return "locked".equals(store) ? KeyLookup.LOCKED : KeyLookup.found(key, conversation, retireBy);
            }
        };
        Receiver receiver = new Receiver(keys, longField(t, "maxAge"), longField(t, "maxFutureSkew"),
                new Receiver.Clock() { @Override public long now() { return now; } },
                new Receiver.DuplicateLog() {
                    @Override public boolean seen(String c, String m) { return previouslySeen; }
                    // The log holds (cid, mid) with this envelope, or with another one.
                    @Override public String record(String c, String m, byte[] envelope) {
                        return !previouslySeen ? "first" : differs ? "conflict" : "duplicate";
                    }
                });
        String want = "valid".equals(result) ? "valid" : "invalid/" + reason;
        for (String label : Arrays.asList("payload", "fcm")) {
            Object text = t.get(label);
            if (text == null) continue;
            Opened opened = null;
            String got = "valid";
            try {
                opened = receiver.open(((String) text).getBytes(StandardCharsets.UTF_8));
            } catch (PushSealException e) {
                got = "invalid/" + e.getCode();
            }
            if (!got.equals(want)) errs.add(label + ": expected " + want + ", got " + got);
            else if (opened != null) {
                if (opened.duplicate != duplicate) errs.add(label + ": expected duplicate=" + duplicate);
                if (!same(contentHex, opened.contentBytes())) errs.add(label + ": decrypted content differs from contentHex");
                if (opened.conflict != conflict) errs.add(label + ": expected conflict=" + conflict + ", got " + opened.conflict);
                if (opened.requiresFetch() != requiresFetch || opened.truncated() != truncated) {
                    errs.add(label + ": expected requiresFetch=" + requiresFetch + " truncated=" + truncated
                            + ", got " + opened.requiresFetch() + " " + opened.truncated());
                }
            }
        }
        if (mk != null && sealKey != null && salt != null && !Arrays.equals(Wire.messageKey(sealKey, salt), mk)) errs.add("messageKey differs");
        Object wire = t.get("wire");
        if (Boolean.TRUE.equals(t.get("resealable"))) {
            if (sealKey == null || salt == null || plaintextHex == null || !(wire instanceof String)) {
                errs.add("resealable case lacks sealKey/salt/plaintextHex/wire");
            } else {
                try {
                    if (!Wire.b64urlEncode(Wire.sealEnvelope(sealKey, salt, plaintextHex)).equals(wire)) errs.add("reseal differs from wire");
                } catch (IllegalArgumentException e) {
                    errs.add("reseal: " + e.getMessage());
                }
            }
        }
        Object padBlock = t.get("padBlock");
        if ("valid".equals(result) && padBlock != null) {
            if (contentHex == null || plaintextHex == null || !Arrays.equals(Wire.pad(contentHex, (int) (long) (Long) padBlock), plaintextHex)) {
                errs.add("pad(contentHex, " + padBlock + ") != plaintextHex");
            }
        }
        Object content = t.get("content");
        if (content instanceof String && contentHex != null && !Arrays.equals(((String) content).getBytes(StandardCharsets.UTF_8), contentHex)) {
            errs.add("content string != contentHex");
        }
        byte[] env = wire instanceof String ? Wire.b64urlDecode((String) wire) : null;
        if (env != null && env.length == 0) env = null;
        if (!same(hexField(t, "envelopeHex", -1, true), env)) errs.add("envelopeHex differs");
        if (!same(hexField(t, "headerHex", -1, true), env != null && env.length >= 41 ? Arrays.copyOf(env, 41) : null)) errs.add("headerHex differs");
        if (!same(hexField(t, "tagHex", -1, true), env != null && env.length >= 58 ? Arrays.copyOfRange(env, env.length - 16, env.length) : null)) {
            errs.add("tagHex differs");
        }
        Object threadId = t.get("threadId");
        if (sealKey == null ? threadId != null : !PushSeal.opaqueThreadId(sealKey).equals(threadId)) errs.add("threadId differs");
        return errs;
    }

    @SuppressWarnings("unchecked")
    static List<String> strings(Object v) {
        return v == null ? Collections.<String>emptyList() : (List<String>) v;
    }

    @SuppressWarnings("unchecked")
    static Content content(Map<String, Object> in) {
        Content.Builder b = Content.builder((String) in.get("cid"), (String) in.get("mid"), (Long) in.get("ts"));
        b.title((String) in.get("title")).subtitle((String) in.get("subtitle")).body((String) in.get("body"))
                .thread((String) in.get("thread")).category((String) in.get("category")).badge((Long) in.get("badge"))
                .trunc(Boolean.TRUE.equals(in.get("trunc")));
        Map<String, Object> sender = (Map<String, Object>) in.get("sender");
        if (sender != null) b.sender((String) sender.get("id"), (String) sender.get("name"));
        Map<String, Object> x = (Map<String, Object>) in.get("x");
        if (x != null) for (Map.Entry<String, Object> e : x.entrySet()) b.extra(e.getKey(), (String) e.getValue());
        return b.build();
    }

    /** The option members of each transport. Any other member makes the case malformed, so a runner
     *  that does not know an option fails the case instead of sealing without it. */
    static final List<String> APNS_OPTIONS = Arrays.asList(
            "placeholder", "sound", "threadId", "plainThreadId", "category", "interruptionLevel", "relevanceScore", "keyBundle");
    static final List<String> FCM_OPTIONS = Arrays.asList("token", "priority", "ttl", "keyBundle");

    /** The {@code keyBundle} option after checking that {@code o} has no other member than {@code known}. */
    static String checkOptions(Map<String, Object> o, List<String> known, String transport) throws CaseError {
        for (String name : o.keySet()) {
            if (!known.contains(name)) throw new CaseError("unknown " + transport + " option " + name);
        }
        Object bundle = o.get("keyBundle");
        if (bundle != null && !(bundle instanceof String)) throw new CaseError("keyBundle must be a string");
        return (String) bundle;
    }

    static FCMOptions fcm(Map<String, Object> o) throws CaseError {
        String bundle = checkOptions(o, FCM_OPTIONS, "fcm");
        return new FCMOptions((String) o.get("token"), (String) o.get("priority"), (Long) o.get("ttl")).withKeyBundle(bundle);
    }

    @SuppressWarnings("unchecked")
    static APNsOptions apns(Map<String, Object> o) throws CaseError {
        String bundle = checkOptions(o, APNS_OPTIONS, "apns");
        Map<String, Object> p = (Map<String, Object>) o.get("placeholder");
        APNsOptions options = new APNsOptions();
        if (p.containsKey("locKey")) {
            options = options.withLocalizedPlaceholder((String) p.get("titleLocKey"), strings(p.get("titleLocArgs")),
                    (String) p.get("locKey"), strings(p.get("locArgs")));
        } else {
            options = options.withPlaceholder((String) p.get("title"), (String) p.get("body"));
        }
        Object thread = o.get("threadId");
        if ("omitted".equals(thread)) options = options.withoutThreadId();
        else if ("plain".equals(thread)) options = options.withPlainThreadId((String) o.get("plainThreadId"));
        else if (!"opaque".equals(thread)) throw new CaseError("threadId must be opaque, omitted or plain");
        Object score = o.get("relevanceScore");
        return options.withSound((String) o.get("sound")).withCategory((String) o.get("category"))
                .withInterruptionLevel((String) o.get("interruptionLevel"))
                .withRelevanceScore(score == null ? null : ((Number) score).doubleValue()).withKeyBundle(bundle);
    }

    @SuppressWarnings("unchecked")
    static List<String> runProviderCase(Map<String, Object> t) throws CaseError {
        List<String> errs = new ArrayList<String>();
        byte[] key = hexField(t, "key", 32, false), salt = hexField(t, "salt", 24, false);
        byte[] conversationKey = hexField(t, "conversationKey", 32, true), device = hexField(t, "deviceKeyId", 16, true);
        boolean perDevice = conversationKey != null && device != null;
        if (perDevice && !Arrays.equals(KeyBundle.deviceKey(conversationKey, device), key)) errs.add("key is not the device key of conversationKey and deviceKeyId");
        if (!Arrays.equals(Wire.keyId(key), hexField(t, "kid", 16, false))) errs.add("kid differs");
        if (!PushSeal.opaqueThreadId(key).equals(t.get("threadId"))) errs.add("threadId differs");
        Map<String, Object> options = (Map<String, Object>) t.get("options");
        SealedPayload sealed;
        try {
            Sealer sealer = new Sealer((int) longField(t, "padBlock"));
            Content input = content((Map<String, Object>) t.get("input"));
            if ("fcm".equals(t.get("transport"))) { // per device: from K and the device key id
                sealed = perDevice ? sealer.sealFCMForDevice(input, conversationKey, device, fcm(options), salt) : sealer.sealFCM(input, key, fcm(options), salt);
            } else if ("apns".equals(t.get("transport"))) {
                sealed = perDevice ? sealer.sealAPNsForDevice(input, conversationKey, device, apns(options), salt) : sealer.sealAPNs(input, key, apns(options), salt);
            } else {
                throw new CaseError("unknown transport " + t.get("transport"));
            }
        } catch (PushSealException e) {
            if (!"error".equals(t.get("result")) || !e.getCode().equals(t.get("error"))) {
                errs.add("expected " + t.get("result") + " " + t.get("error") + ", got error " + e.getCode());
            }
            return errs;
        }
        if (!"sealed".equals(t.get("result"))) {
            errs.add("expected error " + t.get("error") + ", got a payload");
            return errs;
        }
        if (!sealed.text().equals(t.get("payload"))) errs.add("payload differs");
        if (!sealed.path.equals(t.get("path"))) errs.add("path: expected " + t.get("path") + ", got " + sealed.path);
        byte[] env = Wire.b64urlDecode(sealed.wire);
        byte[] plaintext = Wire.openEnvelope(key, env);
        byte[] content = sealed.content.encode();
        if (plaintext == null || !Arrays.equals(Wire.unpad(plaintext), content)) errs.add("sealed content does not open to the planned content");
        String[][] expected = {
            {"wire", sealed.wire}, {"contentHex", Wire.hex(content)}, {"plaintextHex", plaintext == null ? "" : Wire.hex(plaintext)},
            {"envelopeHex", Wire.hex(env)}, {"headerHex", Wire.hex(Arrays.copyOf(env, 41))},
            {"tagHex", Wire.hex(Arrays.copyOfRange(env, env.length - 16, env.length))},
            {"messageKey", Wire.hex(Wire.messageKey(key, salt))}, {"content", new String(content, StandardCharsets.UTF_8)},
        };
        for (String[] e : expected) if (!e[1].equals(t.get(e[0]))) errs.add(e[0] + " differs");
        Map<String, Object> sizes = (Map<String, Object>) t.get("sizes");
        long[] got = {sealed.contentBytes, sealed.paddedBytes, sealed.envelopeBytes, sealed.wireLength, sealed.payloadBytes, sealed.limitedBytes, sealed.limit};
        String[] names = {"content", "padded", "envelope", "wire", "payload", "limited", "limit"};
        for (int i = 0; i < names.length; i++) if (sizes == null || !Long.valueOf(got[i]).equals(sizes.get(names[i]))) errs.add("sizes." + names[i] + " differs");
        return errs;
    }

    /** Runs one file, printing its FAIL lines; returns {passed, failed}. */
    @SuppressWarnings("unchecked")
    public static int[] runFile(String path) {
        Map<String, Object> doc;
        try {
            Object plain = StrictJson.toPlain(StrictJson.parse(Files.readAllBytes(Paths.get(path)), false, 64));
            doc = plain instanceof Map ? (Map<String, Object>) plain : Collections.<String, Object>emptyMap();
        } catch (IOException e) {
            OUT.println("FAIL file " + path + ": cannot read: " + e);
            return new int[] {0, 1};
        } catch (StrictJson.JsonException e) {
            OUT.println("FAIL file " + path + ": not strict JSON: " + e.getMessage());
            return new int[] {0, 1};
        }
        if (KeyVectors.isHpkeFile(doc)) {
            List<Object> cases = KeyVectors.hpkeCases(doc);
            return runCases(path, "hpke", cases, Long.valueOf(cases.size()));
        }
        Object schema = doc.get("schema");
        boolean receiver = "pushseal_v1_test_schema".equals(schema), provider = "pushseal_v1_provider_test_schema".equals(schema);
        boolean store = "pushseal_v1_store_test_schema".equals(schema), bundle = KeyVectors.BUNDLE_SCHEMA.equals(schema);
        boolean devices = KeyVectors.DEVICE_KEY_SCHEMA.equals(schema);
        if ((!receiver && !provider && !store && !bundle && !devices) || !Long.valueOf(receiver || bundle ? 2 : 1).equals(doc.get("schemaVersion"))) {
            OUT.println("FAIL file " + path + ": schema is not pushseal_v1_test_schema version 2, pushseal_v1_provider_test_schema version 1,"
                    + " pushseal_v1_store_test_schema version 1, " + KeyVectors.BUNDLE_SCHEMA + " version 2 or " + KeyVectors.DEVICE_KEY_SCHEMA
                    + " version 1, nor the RFC 9180 file");
            return new int[] {0, 1};
        }
        List<Object> tests = doc.get("tests") instanceof List ? (List<Object>) doc.get("tests") : Collections.emptyList();
        return runCases(path, receiver ? "receiver" : provider ? "provider" : store ? "store" : bundle ? "bundle" : "devices", tests, doc.get("numberOfTests"));
    }

    @SuppressWarnings("unchecked")
    private static int[] runCases(String path, String kind, List<Object> tests, Object expectedCount) {
        if (tests.isEmpty()) {
            OUT.println("FAIL file " + path + ": no test cases found");
            return new int[] {0, 1};
        }
        int passed = 0, failed = 0;
        if (!Long.valueOf(tests.size()).equals(expectedCount)) {
            OUT.println("FAIL file " + path + ": numberOfTests differs from the number of cases");
            failed++;
        }
        for (Object o : tests) {
            Map<String, Object> t = o instanceof Map ? (Map<String, Object>) o : Collections.<String, Object>emptyMap();
            List<String> errs;
            try {
                errs = kind.equals("receiver") ? runReceiverCase(t) : kind.equals("provider") ? runProviderCase(t)
                        : kind.equals("store") ? runStoreCase(t) : kind.equals("bundle") ? KeyVectors.runBundleCase(t)
                        : kind.equals("devices") ? KeyVectors.runDeviceKeyCase(t) : KeyVectors.runHpkeCase(t);
            } catch (HpkeException e) {
                errs = Collections.singletonList("hpke: " + e.getCode());
            } catch (CaseError e) {
                errs = Collections.singletonList("malformed case: " + e.getMessage());
            } catch (RuntimeException e) {
                errs = Collections.singletonList("malformed case: " + e);
            }
            if (errs.isEmpty()) passed++;
            else {
                failed++;
                for (String e : errs) OUT.println("FAIL tcId " + (t.containsKey("tcId") ? t.get("tcId") : t.get("mode")) + ": " + e);
            }
        }
        return new int[] {passed, failed};
    }

    public static void main(String[] argv) {
        if (argv.length == 0) {
            System.err.println("usage: java -cp pushseal.jar:runner dev.pushseal.VectorRunner FILE…");
            System.exit(64);
        }
        int passed = 0, failed = 0;
        for (String file : argv) {
            int[] r = runFile(file);
            passed += r[0];
            failed += r[1];
        }
        OUT.println(passed + " passed, " + failed + " failed");
        OUT.flush();
        System.exit(failed == 0 && passed > 0 ? 0 : 1);
    }
}
