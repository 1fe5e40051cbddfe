package dev.pushseal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Vector checks for key delivery, used by {@link VectorRunner}: the RFC 9180 Appendix A.2 file
 * (base and auth modes of DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) and the key
 * bundle vectors ({@code pushseal_v1_bundle_test_schema}).
 */
final class KeyVectors {
    private KeyVectors() {}

    static final String BUNDLE_SCHEMA = "pushseal_v1_bundle_test_schema";

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

    private static final BundleKeyStore LOCKED = new BundleKeyStore() {
        @Override public byte[] keyFor(String conversation, long epoch) throws Locked { throw new Locked(); }
        @Override public boolean storedElsewhere(byte[] kid, String conversation, long epoch) throws Locked { throw new Locked(); }
        @Override public void install(String conversation, long epoch, byte[] key, long notAfter) throws Locked { throw new Locked(); }
    };

    private static String hexOrNull(byte[] b) { return b == null ? null : Wire.hex(b); }

    private static boolean same(Object a, Object b) { return a == null ? b == null : a.equals(b); }

    /**
     * Mismatches of one key bundle case (SPEC §16.8): the key pairs, key ids and kid; the re-seal of
     * resealable cases byte for byte; the intermediates (aad, enc, ct, and the device's HPKE context);
     * and the outcome of the checks with the case's device key, pinned keys, clock and store.
     */
    static List<String> runBundleCase(Map<String, Object> t) throws VectorRunner.CaseError, HpkeException {
        List<String> errs = new ArrayList<String>();
        Map<String, Object> device = map(t.get("deviceKeyPair")), provider = map(t.get("providerKeyPair"));
        byte[] deviceSk = b(device, "private"), devicePk = b(device, "public");
        byte[] providerSk = b(provider, "private"), providerPk = b(provider, "public");
        byte[] key = b(t, "key");
        Object[][] derived = {{"deviceKeyPair", Hpke.publicKey(deviceSk), devicePk}, {"providerKeyPair", Hpke.publicKey(providerSk), providerPk},
            {"deviceKeyId", KeyBundle.deviceKeyId(devicePk), b(t, "deviceKeyId")}, {"providerKeyId", KeyBundle.providerKeyId(providerPk), b(t, "providerKeyId")},
            {"kid", PushSeal.keyId(key), b(t, "kid")}};
        for (Object[] d : derived) if (!Arrays.equals((byte[]) d[1], (byte[]) d[2])) errs.add(d[0] + " differs");
        Object textValue = t.get("bundle");
        if (!(textValue instanceof String)) throw new VectorRunner.CaseError("bundle must be a string");
        String text = (String) textValue, conversation = (String) t.get("conversation");
        byte[] decoded = Wire.b64urlDecode(text);
        if (!Wire.hex(decoded == null ? new byte[0] : decoded).equals(t.get("bundleHex") == null ? "" : t.get("bundleHex"))) {
            errs.add("bundleHex differs from the decoded bundle");
        }
        long epoch = VectorRunner.longField(t, "epoch");
        if (Boolean.TRUE.equals(t.get("resealable"))) {
            long notAfter = t.get("notAfter") == null ? KeyBundle.NO_EXPIRY : VectorRunner.longField(t, "notAfter");
            if (!KeyBundle.seal(key, conversation, epoch, notAfter, providerSk, devicePk, b(t, "ikmE")).equals(text)) errs.add("re-sealed bundle differs from bundle");
        }
        Object result = t.get("result"), outcome = t.get("outcome"), reason = t.get("reason");
        String want;
        if ("valid".equals(result)) want = "valid/" + outcome;
        else if ("invalid".equals(result) && reason instanceof String && BundleReason.fromCode((String) reason) != null) want = "invalid/" + reason;
        else throw new VectorRunner.CaseError("result, outcome and reason disagree");
        // The intermediates, from the device's side: B, enc and ct once the header parses; the HPKE
        // context once it opens the bundle (step 6 passes).
        KeyBundle.Parsed parsed = null;
        try {
            parsed = KeyBundle.parse(text);
        } catch (BundleException e) {
            // no header: aad, enc and ct are null
        }
        Object[][] parts = {{"aad", parsed == null ? null : parsed.headerBytes()}, {"enc", parsed == null ? null : parsed.enc()},
            {"ct", parsed == null ? null : parsed.ciphertext()}};
        for (Object[] nv : parts) if (!same(t.get(nv[0]), hexOrNull((byte[]) nv[1]))) errs.add(nv[0] + " differs");
        Hpke.Context context = null;
        if (parsed != null && Arrays.equals(parsed.header.deviceKeyId(), KeyBundle.deviceKeyId(devicePk))) {
            for (Object o : (List<?>) t.get("pinnedProviderKeys")) {
                byte[] pk = VectorRunner.hexField(Collections.<String, Object>singletonMap("k", o), "k", 32, false);
                if (Arrays.equals(KeyBundle.providerKeyId(pk), parsed.header.providerKeyId())) {
                    try {
                        context = Hpke.setupReceiver(parsed.enc(), deviceSk, KeyBundle.INFO, pk);
                        context.open(parsed.headerBytes(), parsed.ciphertext(), 0);
                    } catch (HpkeException e) {
                        context = null;
                    }
                    break;
                }
            }
        }
        Object[][] values = {{"sharedSecret", context == null ? null : context.sharedSecret()}, {"hpkeKey", context == null ? null : context.key()},
            {"baseNonce", context == null ? null : context.baseNonce()}};
        for (Object[] nv : values) if (!same(t.get(nv[0]), hexOrNull((byte[]) nv[1]))) errs.add(nv[0] + " differs");
        // The checks.
        Object keyStore = t.get("keyStore");
        if (!"available".equals(keyStore) && !"locked".equals(keyStore)) throw new VectorRunner.CaseError("keyStore must be available or locked");
        MemoryKeyStore memory = new MemoryKeyStore();
        for (Object o : (List<?>) t.get("storedKeys")) {
            Map<String, Object> k = map(o);
            memory.install((String) k.get("conversation"), VectorRunner.longField(k, "epoch"), b(k, "key"), KeyBundle.NO_EXPIRY);
        }
        List<byte[]> pinned = new ArrayList<byte[]>();
        for (Object o : (List<?>) t.get("pinnedProviderKeys")) {
            pinned.add(VectorRunner.hexField(Collections.<String, Object>singletonMap("k", o), "k", 32, false));
        }
        String got;
        try {
            KeyBundle.Installed installed = KeyBundle.open(text, deviceSk, pinned, "locked".equals(keyStore) ? LOCKED : memory, VectorRunner.longField(t, "now"));
            got = "valid/" + (installed.alreadyInstalled ? "already_installed" : "installed");
        } catch (BundleException e) {
            got = "invalid/" + e.getCode();
        }
        if (!got.equals(want)) errs.add("expected " + want + ", got " + got);
        else if ("valid".equals(result) && !Arrays.equals(memory.keyFor(conversation, epoch), key)) errs.add("the key is not in the store after opening");
        return errs;
    }
}
