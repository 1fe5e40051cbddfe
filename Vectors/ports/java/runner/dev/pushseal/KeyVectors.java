package dev.pushseal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Vector checks for key delivery, used by {@link VectorRunner}: the RFC 9180 Appendix A.2 file
 * (base and auth modes of DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) and the key
 * bundle vectors ({@code pushseal_v1_bundle_test_schema}, format 2) and the device key derivation
 * vectors ({@code pushseal_v1_device_key_test_schema}).
 */
final class KeyVectors {
    private KeyVectors() {}

    static final String BUNDLE_SCHEMA = "pushseal_v1_bundle_test_schema";
    static final String DEVICE_KEY_SCHEMA = "pushseal_v1_device_key_test_schema";

    /** The RFC 9180 vector file of this suite (it has no {@code schema} member). */
    static boolean isHpkeFile(Map<String, Object> doc) {
        Object suite = doc.get("suite");
        if (!(suite instanceof Map) || !(doc.get("vectors") instanceof List)) return false;
        Map<?, ?> s = (Map<?, ?>) suite;
        return Long.valueOf(32).equals(s.get("kem_id")) && Long.valueOf(1).equals(s.get("kdf_id")) && Long.valueOf(3).equals(s.get("aead_id"));
    }

    /** The base and auth vectors of the file (the psk modes are not implemented). */
    static List<Object> hpkeCases(Map<String, Object> doc) {
        List<Object> out = new ArrayList<Object>();
        for (Object v : (List<?>) doc.get("vectors")) {
            if (v instanceof Map) {
                Object mode = ((Map<?, ?>) v).get("mode");
                if (Long.valueOf(Hpke.MODE_BASE).equals(mode) || Long.valueOf(Hpke.MODE_AUTH).equals(mode)) out.add(v);
            }
        }
        return out;
    }

    private static byte[] b(Map<String, Object> t, String name) throws VectorRunner.CaseError { return VectorRunner.hexField(t, name, -1, false); }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) { return o instanceof Map ? (Map<String, Object>) o : Collections.<String, Object>emptyMap(); }

    /**
     * Mismatches of one base or auth vector: DeriveKeyPair of every key, encap (enc, shared secret),
     * decap, every key-schedule value on both sides, every encryption (seal and open) and export.
     */
    static List<String> runHpkeCase(Map<String, Object> v) throws VectorRunner.CaseError, HpkeException {
        List<String> errs = new ArrayList<String>();
        boolean auth = Long.valueOf(Hpke.MODE_AUTH).equals(v.get("mode"));
        List<String[]> pairs = new ArrayList<String[]>(Arrays.asList(new String[] {"ikmE", "skEm", "pkEm"}, new String[] {"ikmR", "skRm", "pkRm"}));
        if (auth) pairs.add(new String[] {"ikmS", "skSm", "pkSm"});
        for (String[] p : pairs) {
            Hpke.KeyPair kp = Hpke.deriveKeyPair(b(v, p[0]));
            if (!Arrays.equals(kp.privateKey(), b(v, p[1])) || !Arrays.equals(kp.publicKey(), b(v, p[2]))) {
                errs.add("DeriveKeyPair(" + p[0] + ") differs from (" + p[1] + ", " + p[2] + ")");
            }
        }
        byte[] info = b(v, "info");
        Hpke.Sender s = Hpke.setupSender(b(v, "pkRm"), info, auth ? b(v, "skSm") : null, b(v, "ikmE"));
        if (!Arrays.equals(s.enc, b(v, "enc"))) errs.add("enc differs");
        Hpke.Context receiver;
        try {
            receiver = Hpke.setupReceiver(b(v, "enc"), b(v, "skRm"), info, auth ? b(v, "pkSm") : null);
        } catch (HpkeException e) {
            errs.add("setupReceiver: " + e.getCode());
            return errs;
        }
        for (Hpke.Context ctx : Arrays.asList(s.context, receiver)) {
            String side = ctx == receiver ? "receiver" : "sender";
            Object[][] values = {{"shared_secret", ctx.sharedSecret()}, {"key_schedule_context", ctx.keyScheduleContext()}, {"secret", ctx.secret()},
                {"key", ctx.key()}, {"base_nonce", ctx.baseNonce()}, {"exporter_secret", ctx.exporterSecret()}};
            for (Object[] nv : values) if (!Arrays.equals((byte[]) nv[1], b(v, (String) nv[0]))) errs.add(side + ": " + nv[0] + " differs");
        }
        for (Object o : (List<?>) v.get("encryptions")) {
            Map<String, Object> e = map(o);
            long seq = VectorRunner.longField(e, "seq");
            byte[] aad = b(e, "aad"), pt = b(e, "pt"), ct = b(e, "ct");
            if (!Arrays.equals(s.context.nonce(seq), b(e, "nonce"))) errs.add("seq " + seq + ": nonce differs");
            if (!Arrays.equals(s.context.seal(aad, pt, seq), ct)) errs.add("seq " + seq + ": seal differs from ct");
            try {
                if (!Arrays.equals(receiver.open(aad, ct, seq), pt)) errs.add("seq " + seq + ": open differs from pt");
            } catch (HpkeException x) {
                errs.add("seq " + seq + ": open failed");
            }
            try {
                receiver.open(Wire.concat(aad, new byte[1]), ct, seq);
                errs.add("seq " + seq + ": open accepted a changed aad");
            } catch (HpkeException expected) {
                // refused, as it must be
            }
        }
        for (Object o : (List<?>) v.get("exports")) {
            Map<String, Object> x = map(o);
            if (!Arrays.equals(receiver.export(b(x, "exporter_context"), (int) VectorRunner.longField(x, "L")), b(x, "exported_value"))) {
                errs.add("export " + x.get("exporter_context") + " differs");
            }
        }
        return errs;
    }

    private static final BundleKeyStore LOCKED = VectorRunner.LOCKED_BUNDLE_STORE;

    private static String hexOrNull(byte[] b) { return b == null ? null : Wire.hex(b); }

    private static boolean same(Object a, Object b) { return a == null ? b == null : a.equals(b); }

    /** A time field: null is {@link KeyBundle#NO_RETIRE_BY}, else an exact 64-bit integer. */
    private static long timeOrNone(Map<String, Object> t, String name) throws VectorRunner.CaseError {
        return t.get(name) == null ? KeyBundle.NO_RETIRE_BY : VectorRunner.longField(t, name);
    }

    private static Long nullableLong(Map<String, Object> t, String name) throws VectorRunner.CaseError {
        return t.get(name) == null ? null : Long.valueOf(VectorRunner.longField(t, name));
    }

    private static KeyBundle.ConversationRecord record(Object o) throws VectorRunner.CaseError {
        if (o == null) return null;
        Map<String, Object> r = map(o);
        return new KeyBundle.ConversationRecord(VectorRunner.longField(r, "highWater"), VectorRunner.longField(r, "highWaterSince"), VectorRunner.longField(r, "purgedThrough"));
    }

    /** Mismatches of one device key case (SPEC §4.4): K_d, its kid and thread-id from K and the device key id. */
    static List<String> runDeviceKeyCase(Map<String, Object> t) throws VectorRunner.CaseError {
        List<String> errs = new ArrayList<String>();
        byte[] k = b(t, "conversationKey"), d = b(t, "deviceKeyId");
        if (t.get("devicePublicKey") != null && !Arrays.equals(KeyBundle.deviceKeyId(b(t, "devicePublicKey")), d)) errs.add("deviceKeyId differs");
        if (!Wire.hex(Wire.keyId(k)).equals(t.get("conversationKid"))) errs.add("conversationKid differs");
        if (!Wire.hex(Wire.concat("pushseal v1 device conversation key".getBytes(java.nio.charset.StandardCharsets.US_ASCII), d)).equals(t.get("info"))) errs.add("info differs");
        byte[] kd = KeyBundle.deviceKey(k, d);
        if (!Wire.hex(kd).equals(t.get("deviceKey"))) errs.add("deviceKey differs");
        if (!Wire.hex(Wire.keyId(kd)).equals(t.get("kid"))) errs.add("kid differs");
        if (!PushSeal.opaqueThreadId(kd).equals(t.get("threadId"))) errs.add("threadId differs");
        return errs;
    }

    /**
     * Mismatches of one key bundle case (SPEC §16.8): the key pairs, key ids, K_d and kid; the
     * plaintext; the re-seal of resealable cases byte for byte; the intermediates (aad, enc, ct, and
     * the device's HPKE context); and the outcome of the checks with the case's device key, pinned
     * keys, clock, envelope kid, store and conversation record, with the not-after times and the
     * record after.
     */
    static List<String> runBundleCase(Map<String, Object> t) throws VectorRunner.CaseError, HpkeException {
        List<String> errs = new ArrayList<String>();
        Map<String, Object> device = map(t.get("deviceKeyPair")), provider = map(t.get("providerKeyPair"));
        byte[] deviceSk = b(device, "private"), devicePk = b(device, "public"), providerSk = b(provider, "private"), providerPk = b(provider, "public");
        byte[] k = b(t, "conversationKey");
        Object[][] derived = {{"deviceKeyPair", Hpke.publicKey(deviceSk), devicePk}, {"providerKeyPair", Hpke.publicKey(providerSk), providerPk},
            {"deviceKeyId", KeyBundle.deviceKeyId(devicePk), b(t, "deviceKeyId")}, {"providerKeyId", KeyBundle.providerKeyId(providerPk), b(t, "providerKeyId")}};
        for (Object[] d : derived) if (!Arrays.equals((byte[]) d[1], (byte[]) d[2])) errs.add(d[0] + " differs");
        Object textValue = t.get("bundle");
        if (!(textValue instanceof String)) throw new VectorRunner.CaseError("bundle must be a string");
        String text = (String) textValue;
        String conversation = (String) t.get("conversation");
        if (Boolean.TRUE.equals(t.get("resealable"))) {
            if (!Arrays.equals(KeyBundle.deviceKey(k, KeyBundle.deviceKeyId(devicePk)), b(t, "deviceKey")) || !Arrays.equals(Wire.keyId(b(t, "deviceKey")), b(t, "kid"))) {
                errs.add("deviceKey or kid differs from the derivation");
            }
            String resealed = KeyBundle.seal(k, devicePk, conversation, VectorRunner.longField(t, "epoch"), VectorRunner.longField(t, "since"),
                    timeOrNone(t, "retireBy"), VectorRunner.longField(t, "expires"), providerSk, b(t, "ikmE"));
            if (!resealed.equals(text)) errs.add("re-sealed bundle differs from bundle");
        }
        byte[] decoded = Wire.b64urlDecode(text);
        // SPEC §16.8: the strict base64url decoding (any length), null when the text is not strict base64url.
        Object bundleHex = t.get("bundleHex");
        if (!t.containsKey("bundleHex") || (decoded == null ? bundleHex != null : !Wire.hex(decoded).equals(bundleHex))) {
            errs.add("bundleHex differs from the decoded bundle");
        }
        Object result = t.get("result"), outcome = t.get("outcome"), reason = t.get("reason");
        String want;
        if ("valid".equals(result) && Arrays.asList("installed", "installed_retired", "already_installed").contains(outcome) && reason == null) want = "valid/" + outcome;
        else if ("invalid".equals(result) && reason instanceof String && BundleReason.fromCode((String) reason) != null && outcome == null) want = "invalid/" + reason;
        else throw new VectorRunner.CaseError("result, outcome and reason disagree");
        // The intermediates, from the device's side: B, enc and ct once the length checks pass; the
        // HPKE context and the plaintext once it opens the bundle (step 5 passes).
        KeyBundle.Parsed parsed = null;
        try {
            parsed = KeyBundle.parse(text);
        } catch (BundleException e) {
            parsed = null;
        }
        if (!same(t.get("aad"), parsed == null ? null : Wire.hex(parsed.headerBytes()))) errs.add("aad differs");
        if (!same(t.get("enc"), parsed == null ? null : Wire.hex(parsed.enc()))) errs.add("enc differs");
        if (!same(t.get("ct"), parsed == null ? null : Wire.hex(parsed.ciphertext()))) errs.add("ct differs");
        Hpke.Context context = null;
        byte[] pt = null;
        if (parsed != null) {
            for (Object o : (List<?>) t.get("pinnedProviderKeys")) {
                byte[] pk = VectorRunner.hexField(Collections.<String, Object>singletonMap("k", o), "k", 32, false);
                if (Arrays.equals(KeyBundle.providerKeyId(pk), parsed.providerKeyId())) {
                    try {
                        context = Hpke.setupReceiver(parsed.enc(), deviceSk, KeyBundle.INFO, pk);
                        pt = context.open(parsed.headerBytes(), parsed.ciphertext(), 0);
                    } catch (HpkeException e) {
                        context = null;
                    }
                    break;
                }
            }
        }
        if (!same(t.get("sharedSecret"), context == null ? null : hexOrNull(context.sharedSecret()))) errs.add("sharedSecret differs");
        if (!same(t.get("hpkeKey"), context == null ? null : hexOrNull(context.key()))) errs.add("hpkeKey differs");
        if (!same(t.get("baseNonce"), context == null ? null : hexOrNull(context.baseNonce()))) errs.add("baseNonce differs");
        if (pt != null && !Wire.hex(pt).equals(t.get("plaintext"))) errs.add("plaintext differs");
        // The checks.
        Object keyStore = t.get("keyStore");
        if (!"available".equals(keyStore) && !"locked".equals(keyStore)) throw new VectorRunner.CaseError("keyStore must be available or locked");
        MemoryKeyStore memory = new MemoryKeyStore();
        for (Object o : (List<?>) t.get("storedKeys")) {
            Map<String, Object> s = map(o);
            memory.install((String) s.get("conversation"), VectorRunner.longField(s, "epoch"), b(s, "key"), timeOrNone(s, "notAfter"),
                    VectorRunner.longField(s, "createdAt"));
        }
        KeyBundle.ConversationRecord before = record(t.get("conversationRecord"));
        if (before != null) memory.setRecord(conversation, before);
        List<byte[]> pinned = new ArrayList<byte[]>();
        for (Object o : (List<?>) t.get("pinnedProviderKeys")) {
            pinned.add(VectorRunner.hexField(Collections.<String, Object>singletonMap("k", o), "k", 32, false));
        }
        byte[] envelopeKid = t.get("envelopeKid") == null ? null : b(t, "envelopeKid");
        String got;
        KeyBundle.Installed installed = null;
        try {
            installed = KeyBundle.open(text, deviceSk, pinned, "locked".equals(keyStore) ? LOCKED : memory, VectorRunner.longField(t, "now"), envelopeKid);
            got = "valid/" + installed.outcome;
        } catch (BundleException e) {
            got = "invalid/" + e.getCode();
        }
        if (!got.equals(want)) {
            errs.add("expected " + want + ", got " + got);
            return errs;
        }
        if (installed == null) return errs;
        long epoch = VectorRunner.longField(t, "epoch");
        KeyBundle.StoredKey stored = memory.keyFor(conversation, epoch);
        long wantNotAfter = timeOrNone(t, "notAfter");
        if (stored == null || !Arrays.equals(stored.key(), b(t, "deviceKey"))) errs.add("the key is not in the store after opening");
        else if (stored.notAfter != wantNotAfter || installed.notAfter != wantNotAfter) errs.add("notAfter: expected " + t.get("notAfter") + ", got " + stored.notAfter);
        Long created = memory.createdAt(conversation, epoch), wantCreated = nullableLong(t, "createdAt");
        if (!"already_installed".equals(installed.outcome) && !same(created, wantCreated)) errs.add("createdAt: expected " + wantCreated + ", got " + created);
        Long at = nullableLong(t, "retireEarlierAt");
        if (!same(installed.retireEarlierAt, at)) errs.add("retireEarlierAt: expected " + at + ", got " + installed.retireEarlierAt);
        KeyBundle.ConversationRecord after = memory.record(conversation), wantAfter = record(t.get("conversationRecordAfter"));
        if (!same(after, wantAfter) || !same(installed.record, after)) errs.add("conversationRecordAfter: expected " + wantAfter + ", got " + after);
        for (Object o : (List<?>) t.get("storedKeys")) { // every earlier epoch retired at retireEarlierAt (9e)
            Map<String, Object> s = map(o);
            long e = VectorRunner.longField(s, "epoch");
            if (conversation.equals(s.get("conversation")) && e < epoch && at != null) {
                long na = timeOrNone(s, "notAfter"), wantNa = na == KeyBundle.NO_RETIRE_BY ? at : Math.min(na, at);
                KeyBundle.StoredKey sk = memory.keyFor(conversation, e);
                if (sk == null || sk.notAfter != wantNa) errs.add("epoch " + e + " not-after: expected " + wantNa + ", got " + (sk == null ? null : sk.notAfter));
            }
        }
        return errs;
    }
}
