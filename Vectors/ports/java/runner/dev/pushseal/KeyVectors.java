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

    /**
     * Mismatches of one key bundle case: the key pairs and key ids, the re-seal of the bundle from
     * its inputs and ikmE (byte for byte, with the HPKE intermediates), and the outcome of opening
     * it with the case's device key, pinned providers, store and clock.
     */
    static List<String> runBundleCase(Map<String, Object> t) throws VectorRunner.CaseError, HpkeException {
        List<String> errs = new ArrayList<String>();
        byte[] deviceSk = b(t, "devicePrivateKey"), devicePk = b(t, "devicePublicKey");
        byte[] providerSk = b(t, "providerPrivateKey"), providerPk = b(t, "providerPublicKey");
        if (!Arrays.equals(Hpke.publicKey(deviceSk), devicePk)) errs.add("device public key differs");
        if (!Arrays.equals(Hpke.publicKey(providerSk), providerPk)) errs.add("provider public key differs");
        if (!Wire.hex(KeyBundle.deviceKeyId(devicePk)).equals(t.get("deviceKeyId"))) errs.add("deviceKeyId differs");
        if (!Wire.hex(KeyBundle.providerKeyId(providerPk)).equals(t.get("providerKeyId"))) errs.add("providerKeyId differs");
        byte[] key = b(t, "key"), ikmE = b(t, "ikmE");
        String conversation = (String) t.get("conversation");
        long epoch = VectorRunner.longField(t, "epoch"), notAfter = unsigned(t, "notAfter");
        if (!Boolean.FALSE.equals(t.get("sealed"))) {
            String text = KeyBundle.seal(key, conversation, epoch, notAfter, providerSk, devicePk, ikmE);
            if (!text.equals(t.get("bundle"))) errs.add("re-sealed bundle differs from bundle");
            byte[] data = Wire.b64urlDecode(text);
            Hpke.Sender s = Hpke.setupSender(devicePk, KeyBundle.INFO, providerSk, ikmE);
            Object[][] values = {{"aadHex", Arrays.copyOf(data, data.length - 80)}, {"encHex", s.enc}, {"sharedSecret", s.context.sharedSecret()},
                {"hpkeKey", s.context.key()}, {"baseNonce", s.context.baseNonce()}};
            for (Object[] nv : values) if (!Wire.hex((byte[]) nv[1]).equals(t.get(nv[0]))) errs.add(nv[0] + " differs");
        }
        MemoryKeyStore store = new MemoryKeyStore();
        Object stored = t.get("storedKeys");
        if (stored instanceof List) {
            for (Object o : (List<?>) stored) {
                Map<String, Object> k = map(o);
                store.install((String) k.get("conversation"), VectorRunner.longField(k, "epoch"), b(k, "key"), 0);
            }
        }
        List<byte[]> pinned = new ArrayList<byte[]>();
        for (Object o : (List<?>) t.get("pinnedProviderKeys")) {
            pinned.add(VectorRunner.hexField(Collections.<String, Object>singletonMap("k", o), "k", 32, false));
        }
        String want = "valid".equals(t.get("result")) ? "valid/" + t.get("outcome") : "invalid/" + t.get("reason"), got;
        try {
            KeyBundle.Installed installed = KeyBundle.open((String) t.get("bundle"), deviceSk, pinned, store, VectorRunner.longField(t, "now"));
            got = "valid/" + (installed.alreadyInstalled ? "already_installed" : "installed");
        } catch (BundleException e) {
            got = "invalid/" + e.getCode();
        }
        if (!got.equals(want)) errs.add("expected " + want + ", got " + got);
        else if ("valid".equals(t.get("result")) && !Arrays.equals(store.keyFor(conversation, epoch), key)) errs.add("the key is not in the store after opening");
        return errs;
    }

    /** An unsigned 64-bit integer field (JSON numbers above 2^63 − 1 arrive as Double: only 2^64 − 1 is exact enough to accept). */
    private static long unsigned(Map<String, Object> t, String name) throws VectorRunner.CaseError {
        Object v = t.get(name);
        if (v instanceof Double && (Double) v == 18446744073709551615.0) return KeyBundle.NO_EXPIRY;
        return VectorRunner.longField(t, name);
    }
}
