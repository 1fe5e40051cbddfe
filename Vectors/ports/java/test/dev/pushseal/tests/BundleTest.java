package dev.pushseal.tests;

import dev.pushseal.APNsOptions;
import dev.pushseal.BundleException;
import dev.pushseal.BundleKeyStore;
import dev.pushseal.BundleReason;
import dev.pushseal.Content;
import dev.pushseal.DeviceRegistration;
import dev.pushseal.FCMOptions;
import dev.pushseal.PushSealException;
import dev.pushseal.Hpke;
import dev.pushseal.HpkeException;
import dev.pushseal.KeyBundle;
import dev.pushseal.MemoryKeyStore;
import dev.pushseal.PushSeal;
import dev.pushseal.Receiver;
import dev.pushseal.SealedPayload;
import dev.pushseal.Sealer;
import dev.pushseal.VectorRunner;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.nio.file.Files;
import java.nio.file.Paths;
import dev.pushseal.StrictJson;
import static dev.pushseal.tests.PushSealTest.check;

/**
 * HPKE (RFC 9180 A.2 base and auth), device keys and key bundles format 2 through the public API:
 * sealing, every refusal reason in check order, the installation rules (high-water, step cap,
 * tombstones, retired installs), and the installed device key opening a notification sealed per device. The RFC
 * file and the bundle vectors are the system properties {@code pushseal.hpkeVectors} and
 * {@code pushseal.bundleVectors} (build.sh sets them).
 */
public final class BundleTest {
    // The harness (test, check, the counters) is PushSealTest's.
    static final long NOW = 1764400000L;
    static final long SINCE = NOW - 86400, NONE = KeyBundle.NO_RETIRE_BY;
    static final byte[] K = new byte[32], OTHER_K = new byte[32], K2 = new byte[32];
    static final byte[] CID = "conv-1".getBytes(StandardCharsets.UTF_8);
    static final Hpke.KeyPair DEVICE = Hpke.deriveKeyPair(repeat("device", 6));
    static final Hpke.KeyPair TABLET = Hpke.deriveKeyPair(repeat("tablet", 6));
    static final Hpke.KeyPair PROVIDER = Hpke.deriveKeyPair(repeat("provider", 4));
    static final Hpke.KeyPair STRANGER = Hpke.deriveKeyPair(repeat("stranger", 4));

    static {
        for (int i = 0; i < 32; i++) { K[i] = (byte) i; OTHER_K[i] = (byte) (i + 1); K2[i] = (byte) (i + 2); }
    }

    /** The device's key: K_d of K. */
    static final byte[] KD = KeyBundle.deviceKey(K, KeyBundle.deviceKeyId(DEVICE.publicKey()));

    static byte[] repeat(String s, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) b.append(s);
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    static int largestComplete(Sealer sealer, APNsOptions options) throws Exception {
        int lo = 1, hi = 4000;
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (sealer.sealAPNs(Content.builder("conv-1", "m-1", NOW).body(new String(repeat("x", mid), StandardCharsets.US_ASCII)).build(), KD, options).path.equals("complete")) lo = mid;
            else hi = mid - 1;
        }
        return lo;
    }

    /** A bundle of any 338-byte plaintext, sealed as the provider would (for the checks after opening). */
    static String raw(byte[] pt) throws HpkeException {
        byte[] b = new byte[17];
        b[0] = 2;
        System.arraycopy(KeyBundle.providerKeyId(PROVIDER.publicKey()), 0, b, 1, 16);
        Hpke.Sender s = Hpke.setupSender(DEVICE.publicKey(), "pushseal v1 key bundle 2".getBytes(StandardCharsets.US_ASCII), PROVIDER.privateKey(), null);
        byte[] ct = s.context.seal(b, pt, 0);
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        all.write(b, 0, b.length);
        all.write(s.enc, 0, 32);
        all.write(ct, 0, ct.length);
        return PushSeal.base64url(all.toByteArray());
    }

    /** A plaintext with these fields (n: the length field; the cid bytes then zeros, then {@code pad}). */
    static byte[] plaintext(byte[] key, byte[] kid, long epoch, long since, long retireBy, long expires, byte[] cid, int n, byte[] pad) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(338).put(key).put(kid == null ? PushSeal.keyId(key) : kid).putLong(epoch).putLong(since)
                .putLong(retireBy).putLong(expires).putShort((short) n).put(cid);
        b.put(pad);
        return b.array();
    }

    static byte[] pt(long epoch, long since, long retireBy, long expires) {
        return plaintext(KD, null, epoch, since, retireBy, expires, CID, CID.length, new byte[0]);
    }

    static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    static String bundle(long expires) throws HpkeException {
        return bundle(K, 2, SINCE, NONE, expires);
    }

    static String bundle(byte[] k, long epoch, long since, long retireBy, long expires) throws HpkeException {
        return KeyBundle.seal(k, DEVICE.publicKey(), "conv-1", epoch, since, retireBy, expires, PROVIDER.privateKey());
    }

    static final List<byte[]> PINNED = Collections.singletonList(PROVIDER.publicKey());

    static KeyBundle.Installed install(String text, MemoryKeyStore store, long now) throws BundleException {
        return KeyBundle.open(text, DEVICE.privateKey(), PINNED, store, now);
    }

    static BundleReason reason(String text, BundleKeyStore store, long now, byte[] deviceSk, List<byte[]> pinned) {
        return reason(text, store, now, deviceSk, pinned, null);
    }

    static BundleReason reason(String text, BundleKeyStore store, long now, byte[] deviceSk, List<byte[]> pinned, byte[] envelopeKid) {
        try {
            KeyBundle.open(text, deviceSk, pinned, store, now, envelopeKid);
        } catch (BundleException e) {
            check(!e.getMessage().contains("conv-1") && !e.getMessage().contains(PushSeal.base64url(KD)), "no conversation or key in the message");
            check(e.getCode().equals(e.getReason().code()), "code is the reason code");
            return e.getReason();
        }
        throw new AssertionError("installed");
    }

    static final BundleKeyStore LOCKED = VectorRunner.LOCKED_BUNDLE_STORE;

    static BundleReason reason(String text) { return reason(text, new MemoryKeyStore(), NOW, DEVICE.privateKey(), Collections.singletonList(PROVIDER.publicKey())); }

    static String edit(String text, int at, int value) {
        byte[] d = PushSeal.fromBase64url(text);
        d[at] = (byte) value;
        return PushSeal.base64url(d);
    }

    static void expectHpke(String code, PushSealTest.Body body) throws Exception {
        try {
            body.run();
        } catch (HpkeException e) {
            check(e.getCode().equals(code), "expected " + code + ", got " + e.getCode());
            return;
        }
        throw new AssertionError("no HpkeException " + code);
    }

    public static void main(String[] args) throws Exception {
        PushSealTest.test("RFC 9180 A.2 base and auth pass", () -> {
            String file = System.getProperty("pushseal.hpkeVectors", "");
            check(new File(file).isFile(), "the RFC 9180 file (-Dpushseal.hpkeVectors) exists: " + file);
            check(Arrays.equals(VectorRunner.runFile(file), new int[] {2, 0}), "2 passed, 0 failed");
        });
        PushSealTest.test("the key bundle vectors pass", () -> {
            String file = System.getProperty("pushseal.bundleVectors", "");
            check(new File(file).isFile(), "the bundle vectors (-Dpushseal.bundleVectors) exist: " + file);
            int[] r = VectorRunner.runFile(file);
            check(r[0] > 0 && r[1] == 0, r[0] + " passed, " + r[1] + " failed");
        });
        PushSealTest.test("the provider vectors pass; an option the runner does not know fails its case", () -> {
            String file = System.getProperty("pushseal.providerVectors", "");
            check(new File(file).isFile(), "the provider vectors (-Dpushseal.providerVectors) exist: " + file);
            int[] r = VectorRunner.runFile(file);
            check(r[0] > 0 && r[1] == 0, r[0] + " passed, " + r[1] + " failed");
            String text = new String(Files.readAllBytes(Paths.get(file)), StandardCharsets.UTF_8);
            File edited = File.createTempFile("pushseal-provider", ".json");
            edited.deleteOnExit();
            Files.write(edited.toPath(), text.replaceFirst("\"keyBundle\": ", "\"keyBundleX\": ").getBytes(StandardCharsets.UTF_8));
            int[] e = VectorRunner.runFile(edited.getPath());
            check(e[0] == r[0] - 1 && e[1] == 1, "renamed keyBundle: " + e[0] + " passed, " + e[1] + " failed");
        });
        PushSealTest.test("X25519 passes Wycheproof and refuses every all-zero result", () -> {
            String file = System.getProperty("pushseal.x25519Vectors", "");
            check(new File(file).isFile(), "Wycheproof's x25519_test.json (-Dpushseal.x25519Vectors) exists: " + file);
            Map<?, ?> doc = (Map<?, ?>) StrictJson.toPlain(StrictJson.parse(Files.readAllBytes(Paths.get(file)), false, 64));
            int cases = 0, refused = 0;
            for (Object g : (List<?>) doc.get("testGroups")) {
                for (Object o : (List<?>) ((Map<?, ?>) g).get("tests")) {
                    Map<?, ?> t = (Map<?, ?>) o;
                    byte[] sk = hex((String) t.get("private")), pk = hex((String) t.get("public"));
                    cases++;
                    if (((List<?>) t.get("flags")).contains("ZeroSharedSecret")) {
                        expectHpke("zero_shared_secret", () -> Hpke.x25519(sk, pk));
                        refused++;
                    } else { // valid, and acceptable (twist, non-canonical public keys): RFC 7748 computes them
                        check(Arrays.equals(Hpke.x25519(sk, pk), hex((String) t.get("shared"))), "tcId " + t.get("tcId"));
                    }
                }
            }
            check(cases == 518 && refused == 31, cases + " cases, " + refused + " refused");
        });
        PushSealTest.test("HPKE single-shot round trips and refuses changes", () -> {
            byte[] info = "info".getBytes(StandardCharsets.US_ASCII), aad = "aad".getBytes(StandardCharsets.US_ASCII), pt = "secret".getBytes(StandardCharsets.US_ASCII);
            Hpke.Sealed s = Hpke.sealBase(DEVICE.publicKey(), info, aad, pt);
            check(Arrays.equals(Hpke.openBase(s.enc, DEVICE.privateKey(), info, aad, s.ciphertext), pt), "base round trip");
            Hpke.Sealed a = Hpke.sealAuth(DEVICE.publicKey(), PROVIDER.privateKey(), info, aad, pt);
            check(Arrays.equals(Hpke.openAuth(a.enc, DEVICE.privateKey(), PROVIDER.publicKey(), info, aad, a.ciphertext), pt), "auth round trip");
            expectHpke("open_failed", () -> Hpke.openAuth(a.enc, DEVICE.privateKey(), STRANGER.publicKey(), info, aad, a.ciphertext));
            expectHpke("open_failed", () -> Hpke.openAuth(a.enc, DEVICE.privateKey(), PROVIDER.publicKey(), aad, aad, a.ciphertext));
            expectHpke("open_failed", () -> Hpke.openAuth(a.enc, DEVICE.privateKey(), PROVIDER.publicKey(), info, info, a.ciphertext));
            expectHpke("open_failed", () -> Hpke.openAuth(a.enc, STRANGER.privateKey(), PROVIDER.publicKey(), info, aad, a.ciphertext));
        });
        PushSealTest.test("the all-zero shared secret is refused", () -> {
            byte[] one = new byte[32];
            one[0] = 1;
            byte[] order8 = PushSeal.fromBase64url("4Ot6fDtBuK4WVuP68Z_EatoJjeucMrH9hmIFFl9JuAA");
            for (byte[] point : Arrays.asList(new byte[32], one, order8)) {
                expectHpke("zero_shared_secret", () -> Hpke.sealBase(point, new byte[0], new byte[0], new byte[1]));
                expectHpke("zero_shared_secret", () -> Hpke.openBase(point, DEVICE.privateKey(), new byte[0], new byte[0], new byte[16]));
            }
        });
        PushSealTest.test("the device key is HKDF-Expand of K and the device key id", () -> {
            byte[] id = KeyBundle.deviceKeyId(DEVICE.publicKey());
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(K, "HmacSHA256"));
            mac.update("pushseal v1 device conversation key".getBytes(StandardCharsets.US_ASCII));
            mac.update(id);
            check(Arrays.equals(KD, mac.doFinal(new byte[] {1})), "HMAC(K, info || 0x01), info 51 bytes");
            byte[] tablet = KeyBundle.deviceKey(K, KeyBundle.deviceKeyId(TABLET.publicKey()));
            check(!Arrays.equals(tablet, KD) && !Arrays.equals(PushSeal.keyId(tablet), PushSeal.keyId(KD))
                    && !PushSeal.opaqueThreadId(tablet).equals(PushSeal.opaqueThreadId(KD)), "another device: another key, kid and thread-id");
            check(!Arrays.equals(PushSeal.keyId(KD), PushSeal.keyId(K)), "not K's kid");
            for (byte[][] bad : new byte[][][] {{new byte[31], id}, {K, new byte[15]}}) {
                try {
                    KeyBundle.deviceKey(bad[0], bad[1]);
                    throw new AssertionError("derived from a bad input");
                } catch (IllegalArgumentException expected) {
                    // refused
                }
            }
            String file = System.getProperty("pushseal.bundleVectors", "");
            String devices = new File(new File(file).getParentFile(), "pushseal-v1-devices.json").getPath();
            check(Arrays.equals(VectorRunner.runFile(devices), new int[] {6, 0}), "the device key vectors: 6 passed, 0 failed");
        });
        PushSealTest.test("a bundle delivers the device key and it opens a notification sealed per device", () -> {
            String text = bundle(NOW + 3600);
            byte[] data = PushSeal.fromBase64url(text);
            check(text.length() == 538 && data.length == KeyBundle.BYTES, "538 characters, 403 bytes");
            check(data[0] == 2 && Arrays.equals(Arrays.copyOfRange(data, 1, 17), KeyBundle.providerKeyId(PROVIDER.publicKey())), "version and provider key id in clear");
            check(KeyBundle.seal(K, DEVICE.publicKey(), new String(repeat("c", 256), StandardCharsets.US_ASCII), 2, SINCE, NONE, NOW, PROVIDER.privateKey()).length() == 538, "one length");
            MemoryKeyStore store = new MemoryKeyStore();
            KeyBundle.Installed first = install(text, store, NOW);
            check(first.outcome.equals("installed") && !first.alreadyInstalled && first.conversation.equals("conv-1") && first.fields.epoch == 2, "installed");
            check(first.record.equals(new KeyBundle.ConversationRecord(2, SINCE, 0)) && first.record.equals(store.record("conv-1")), "record");
            check(Arrays.equals(store.keyFor("conv-1", 2).key(), KD) && store.keyFor("conv-1", 2).notAfter == NONE, "K_d stored, current");
            Content c = Content.builder("conv-1", "m-1", NOW).body("hi").build();
            SealedPayload sealed = new Sealer().sealAPNsForDevice(c, K, KeyBundle.deviceKeyId(DEVICE.publicKey()), new APNsOptions());
            Receiver r = new Receiver(store, Receiver.DEFAULT_MAX_AGE, Receiver.DEFAULT_MAX_FUTURE_SKEW, () -> NOW, null);
            check(r.open(sealed.body()).content.body.equals("hi"), "sealed per device, opened with the installed K_d");
            byte[] salt = Arrays.copyOfRange(PushSeal.fromBase64url(sealed.wire), 17, 41);
            check(Arrays.equals(new Sealer().sealAPNs(c, KD, new APNsOptions(), salt).body(), sealed.body()), "a bare key is K_d");
            SealedPayload fcm = new Sealer().sealFCMForDevice(c, K, KeyBundle.deviceKeyId(DEVICE.publicKey()), new FCMOptions("tok"));
            check(r.open(fcm.body()).content.body.equals("hi"), "FCM per device");
            SealedPayload other = new Sealer().sealAPNsForDevice(c, K, KeyBundle.deviceKeyId(TABLET.publicKey()), new APNsOptions());
            try {
                r.open(other.body());
                throw new AssertionError("opened the tablet's notification");
            } catch (PushSealException e) {
                check(e.getCode().equals("unknown_key"), e.getCode());
            }
            try {
                new Sealer().sealAPNsForDevice(c, K, new byte[15], new APNsOptions());
                throw new AssertionError("sealed for a 15-byte device key id");
            } catch (PushSealException e) {
                check(e.getCode().equals("invalid_key"), e.getCode());
            }
            check(install(text, store, NOW).alreadyInstalled, "already installed");
            check(reason(KeyBundle.seal(K, TABLET.publicKey(), "conv-1", 2, SINCE, NONE, NOW, PROVIDER.privateKey())) == BundleReason.BUNDLE_AUTHENTICATION_FAILED,
                    "sealed to another device");
        });
        PushSealTest.test("the expiry boundary", () -> {
            check(install(bundle(NOW), new MemoryKeyStore(), NOW).outcome.equals("installed"), "now == expires");
            check(reason(bundle(NOW - 1)) == BundleReason.BUNDLE_EXPIRED, "expired");
            check(reason(bundle(NOW), new MemoryKeyStore(), NOW + 1, DEVICE.privateKey(), PINNED) == BundleReason.BUNDLE_EXPIRED, "a second later");
        });
        PushSealTest.test("each check in order", () -> {
            String text = bundle(NOW + 3600);
            byte[] data = PushSeal.fromBase64url(text);
            for (String bad : Arrays.asList("", "A", "AQ=", "AQ==", new String(repeat("A", 1025), StandardCharsets.US_ASCII), "a+b/",
                    PushSeal.base64url(Arrays.copyOf(data, 402)), PushSeal.base64url(Arrays.copyOf(data, 404)), PushSeal.base64url(Arrays.copyOf(data, 17)))) {
                check(reason(bad) == BundleReason.MALFORMED_BUNDLE, "malformed: " + bad.length());
            }
            byte[] one = new byte[403];
            Arrays.fill(one, (byte) 1);
            for (byte[] other : Arrays.asList(one, Arrays.copyOf(new byte[] {1}, 161), new byte[] {3}, new byte[403])) {
                check(reason(PushSeal.base64url(other)) == BundleReason.UNSUPPORTED_BUNDLE_VERSION, "unsupported (format 1 at any length)");
            }
            check(reason(text, new MemoryKeyStore(), NOW, DEVICE.privateKey(), Collections.singletonList(STRANGER.publicKey())) == BundleReason.UNKNOWN_PROVIDER, "unknown provider");
            check(reason(text, new MemoryKeyStore(), NOW, DEVICE.privateKey(), Collections.<byte[]>emptyList()) == BundleReason.UNKNOWN_PROVIDER, "no pins");
            check(reason(edit(text, 1, data[1] ^ 1)) == BundleReason.UNKNOWN_PROVIDER, "the header names no pin");
            for (int at : new int[] {17, 48, 49, 200, 402}) {
                check(reason(edit(text, at, data[at] ^ 1)) == BundleReason.BUNDLE_AUTHENTICATION_FAILED, "authentication " + at);
            }
            byte[] relabelled = data.clone();
            System.arraycopy(KeyBundle.providerKeyId(STRANGER.publicKey()), 0, relabelled, 1, 16);
            check(reason(PushSeal.base64url(relabelled), new MemoryKeyStore(), NOW, DEVICE.privateKey(), Arrays.asList(PROVIDER.publicKey(), STRANGER.publicKey()))
                    == BundleReason.BUNDLE_AUTHENTICATION_FAILED, "credited to another pinned provider");
            byte[] forged = PushSeal.fromBase64url(KeyBundle.seal(K, DEVICE.publicKey(), "conv-1", 2, SINCE, NONE, NOW, STRANGER.privateKey()));
            System.arraycopy(KeyBundle.providerKeyId(PROVIDER.publicKey()), 0, forged, 1, 16);
            check(reason(PushSeal.base64url(forged)) == BundleReason.BUNDLE_AUTHENTICATION_FAILED, "forged by a stranger");
            byte[] small = data.clone();
            Arrays.fill(small, 17, 49, (byte) 0);
            check(reason(PushSeal.base64url(small)) == BundleReason.BUNDLE_AUTHENTICATION_FAILED, "all-zero DH");
            check(reason(text, new MemoryKeyStore(), NOW, STRANGER.privateKey(), PINNED) == BundleReason.BUNDLE_AUTHENTICATION_FAILED, "another device's key");
            check(reason(bundle(NOW - 1), new MemoryKeyStore(), NOW, DEVICE.privateKey(), PINNED, new byte[16]) == BundleReason.BUNDLE_EXPIRED, "expired before envelope_mismatch");
            check(reason(bundle(NOW - 1), LOCKED, NOW, DEVICE.privateKey(), PINNED) == BundleReason.BUNDLE_EXPIRED, "expired before the store");
            check(reason(text, LOCKED, NOW, DEVICE.privateKey(), PINNED, new byte[16]) == BundleReason.ENVELOPE_MISMATCH, "envelope_mismatch before the store");
            check(reason(text, LOCKED, NOW, DEVICE.privateKey(), PINNED) == BundleReason.STORE_LOCKED, "locked");
        });
        PushSealTest.test("a sealed field out of range is malformed, after authentication", () -> {
            long max = Long.MAX_VALUE;
            List<byte[]> bad = Arrays.asList(pt(0, SINCE, NONE, NOW), pt(Long.MIN_VALUE, SINCE, NONE, NOW), pt(2, Long.MIN_VALUE, NONE, NOW), pt(2, SINCE, SINCE - 1, NOW),
                    pt(2, SINCE, Long.MIN_VALUE, NOW), pt(2, SINCE, -2, NOW), pt(2, SINCE, NONE, Long.MIN_VALUE),
                    plaintext(KD, null, 2, SINCE, NONE, NOW, CID, 0, new byte[0]), plaintext(KD, null, 2, SINCE, NONE, NOW, new byte[0], 257, new byte[0]),
                    plaintext(KD, null, 2, SINCE, NONE, NOW, CID, CID.length, new byte[] {0, 1}),
                    plaintext(KD, null, 2, SINCE, NONE, NOW, new byte[] {'c', (byte) 0xff}, 2, new byte[0]),
                    plaintext(KD, null, 2, SINCE, NONE, NOW, new byte[] {'c', 1, 'd'}, 3, new byte[0]),
                    plaintext(KD, null, 2, SINCE, NONE, NOW, new byte[] {'c', (byte) 0xed, (byte) 0xa0, (byte) 0x80}, 4, new byte[0]),
                    plaintext(KD, null, 2, SINCE, NONE, NOW, CID, 7, new byte[0]));
            for (byte[] p : bad) {
                check(reason(raw(p)) == BundleReason.MALFORMED_BUNDLE, "malformed field");
                check(reason(raw(p), new MemoryKeyStore(), NOW, DEVICE.privateKey(), Collections.singletonList(STRANGER.publicKey())) == BundleReason.UNKNOWN_PROVIDER,
                        "only after authentication");
            }
            for (byte[] p : Arrays.asList(pt(max, SINCE, NONE, NOW), pt(2, max, max, max), pt(2, SINCE, SINCE, NOW),
                    plaintext(KD, null, 2, SINCE, NONE, NOW, new String(new char[128]).replace('\0', '\u00e9').getBytes(StandardCharsets.UTF_8), 256, new byte[0]))) {
                check(install(raw(p), new MemoryKeyStore(), NOW).outcome.equals("installed"), "bounds install");
            }
            check(reason(raw(plaintext(KD, new byte[16], 2, SINCE, NONE, NOW, CID, CID.length, new byte[0]))) == BundleReason.KID_MISMATCH, "kid mismatch");
            check(reason(raw(plaintext(K, PushSeal.keyId(KD), 2, SINCE, NONE, NOW, CID, CID.length, new byte[0]))) == BundleReason.KID_MISMATCH, "K_d's kid on another key");
        });
        PushSealTest.test("in band the bundle must deliver the envelope's key", () -> {
            MemoryKeyStore store = new MemoryKeyStore();
            check(reason(bundle(NOW + 3600), store, NOW, DEVICE.privateKey(), PINNED, PushSeal.keyId(K)) == BundleReason.ENVELOPE_MISMATCH, "envelope_mismatch");
            check(store.record("conv-1") == null && store.keyFor("conv-1", 2) == null, "nothing installed");
            check(KeyBundle.open(bundle(NOW + 3600), DEVICE.privateKey(), PINNED, store, NOW, PushSeal.keyId(KD)).outcome.equals("installed"), "the envelope's key installs");
        });
        PushSealTest.test("rotation retires earlier epochs at the provider's since; below the high-water only retired", () -> {
            MemoryKeyStore store = new MemoryKeyStore();
            install(bundle(K, 1, SINCE - 1000, NONE, NOW + 3600), store, NOW);
            long later = NOW + 86400L * 40;
            KeyBundle.Installed r = install(bundle(K2, 2, SINCE, NONE, later), store, later);
            check(r.outcome.equals("installed") && r.retireEarlierAt == SINCE && store.keyFor("conv-1", 1).notAfter == SINCE, "retired at since, not the install time");
            KeyBundle.Installed r3 = install(bundle(OTHER_K, 3, later + 600, NONE, later), store, later);
            check(r3.retireEarlierAt == later && store.keyFor("conv-1", 2).notAfter == later && store.keyFor("conv-1", 1).notAfter == SINCE, "min(since, now), never loosened");
            MemoryKeyStore s2 = new MemoryKeyStore();
            install(bundle(K2, 2, SINCE, NONE, NOW + 3600), s2, NOW);
            KeyBundle.Installed replay = install(bundle(K, 1, SINCE - 1000, NONE, NOW + 3600), s2, NOW);
            check(replay.outcome.equals("installed_retired") && replay.notAfter == SINCE && s2.record("conv-1").equals(new KeyBundle.ConversationRecord(2, SINCE, 0)),
                    "a replayed current bundle of an old epoch installs retired at S_H");
            MemoryKeyStore s3 = new MemoryKeyStore();
            install(bundle(K2, 2, SINCE, NONE, NOW + 3600), s3, NOW);
            check(install(bundle(K, 1, SINCE - 1000, SINCE - 500, NOW + 3600), s3, NOW).notAfter == SINCE - 500, "its own earlier retire-by");
            MemoryKeyStore s4 = new MemoryKeyStore();
            install(bundle(K2, 2, NOW + 600, NONE, NOW + 3600), s4, NOW);
            check(install(bundle(K, 1, SINCE, NONE, NOW + 3600), s4, NOW).notAfter == NOW, "never later than now");
        });
        PushSealTest.test("finding F1: below two stored epochs a bundle is retired at the next epoch's start, not S_H", () -> {
            MemoryKeyStore store = new MemoryKeyStore();
            install(bundle(K2, 2, SINCE - 3600, NONE, NOW + 3600), store, NOW);
            install(bundle(OTHER_K, 3, SINCE, NONE, NOW + 3600), store, NOW);
            check(store.createdAt("conv-1", 2) == SINCE - 3600, "the start: min(since, install time)");
            KeyBundle.Installed replay = install(bundle(K, 1, SINCE - 7200, NONE, NOW + 3600), store, NOW); // recorded while epoch 1 was current
            check(replay.outcome.equals("installed_retired") && replay.notAfter == SINCE - 3600, "epoch 2's start, not S_H");
        });
        PushSealTest.test("a retired device key is refused for later notifications", () -> {
            MemoryKeyStore store = new MemoryKeyStore();
            install(bundle(K, 1, SINCE - 1000, NONE, NOW + 3600), store, NOW);
            install(bundle(K2, 2, SINCE, NONE, NOW + 3600), store, NOW); // retires epoch 1 at SINCE
            byte[] d = KeyBundle.deviceKeyId(DEVICE.publicKey());
            Sealer sealer = new Sealer();
            SealedPayload early = sealer.sealFCMForDevice(Content.builder("conv-1", "m-1", SINCE - 10).body("old").build(), K, d, new FCMOptions("tok"));
            check(new Receiver(store, Receiver.DEFAULT_MAX_AGE, Receiver.DEFAULT_MAX_FUTURE_SKEW, () -> SINCE, null).open(early.body()).content.body.equals("old"),
                    "sent before the rotation: opens");
            SealedPayload late = sealer.sealFCMForDevice(Content.builder("conv-1", "m-2", NOW).body("forged").build(), K, d, new FCMOptions("tok"));
            try {
                new Receiver(store, Receiver.DEFAULT_MAX_AGE, Receiver.DEFAULT_MAX_FUTURE_SKEW, () -> NOW, null).open(late.body());
                throw new AssertionError("opened a notification dated after the retirement");
            } catch (PushSealException e) {
                check(e.getCode().equals("retired_key"), e.getCode());
            }
        });
        PushSealTest.test("already installed tightens a retire-by and never loosens it", () -> {
            MemoryKeyStore store = new MemoryKeyStore();
            install(bundle(K, 1, SINCE, NONE, NOW + 3600), store, NOW);
            KeyBundle.Installed t = install(bundle(K, 1, SINCE, SINCE + 10, NOW + 3600), store, NOW);
            check(t.outcome.equals("already_installed") && t.notAfter == SINCE + 10, "tightened");
            check(install(bundle(K, 1, SINCE, SINCE + 20, NOW + 3600), store, NOW).notAfter == SINCE + 10, "not loosened");
            check(install(bundle(K, 1, SINCE, NONE, NOW + 3600), store, NOW).notAfter == SINCE + 10, "not cleared");
        });
        PushSealTest.test("the step cap, big epochs and tombstones", () -> {
            MemoryKeyStore store = new MemoryKeyStore();
            install(bundle(K, 1, SINCE, NONE, NOW + 3600), store, NOW);
            check(reason(bundle(K2, 65538, SINCE, NONE, NOW + 3600), store, NOW, DEVICE.privateKey(), PINNED) == BundleReason.EPOCH_OUT_OF_RANGE, "H + 65537");
            check(reason(bundle(K2, Long.MAX_VALUE, SINCE, NONE, NOW + 3600), store, NOW, DEVICE.privateKey(), PINNED) == BundleReason.EPOCH_OUT_OF_RANGE, "2^63 - 1");
            check(install(bundle(K2, 65537, SINCE, NONE, NOW + 3600), store, NOW).outcome.equals("installed"), "H + 65536");
            KeyBundle.Installed big = install(bundle(K, Long.MAX_VALUE, (1L << 53) + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE), new MemoryKeyStore(), NOW);
            check(big.record.equals(new KeyBundle.ConversationRecord(Long.MAX_VALUE, (1L << 53) + 1, 0)) && big.notAfter == Long.MAX_VALUE - 1, "exact big integers");
            MemoryKeyStore purged = new MemoryKeyStore();
            install(bundle(K, 1, SINCE, NONE, NOW + 3600), purged, NOW);
            install(bundle(K2, 2, SINCE, NONE, NOW + 3600), purged, NOW);
            purged.purge("conv-1", 1);
            check(purged.keyFor("conv-1", 1) == null && purged.record("conv-1").purgedThrough == 1, "purged");
            check(reason(bundle(K, 1, SINCE, NONE, NOW + 3600), purged, NOW, DEVICE.privateKey(), PINNED) == BundleReason.EPOCH_PURGED, "never comes back");
            purged.purge("conv-1", 0);
            check(purged.record("conv-1").purgedThrough == 1, "P only grows");
        });
        PushSealTest.test("conflicting keys, a store without a record, a locked store", () -> {
            MemoryKeyStore store = new MemoryKeyStore();
            store.install("conv-1", 2, OTHER_K, NONE, 0);
            check(reason(bundle(NOW + 3600), store, NOW, DEVICE.privateKey(), PINNED) == BundleReason.CONFLICTING_KEY, "another key for (cid, epoch)");
            MemoryKeyStore elsewhere = new MemoryKeyStore();
            elsewhere.install("conv-2", 2, KD, NONE, 0);
            check(reason(bundle(NOW + 3600), elsewhere, NOW, DEVICE.privateKey(), PINNED) == BundleReason.CONFLICTING_KEY, "this key elsewhere");
            check(elsewhere.keyFor("conv-1", 2) == null && elsewhere.record("conv-1") == null, "nothing installed");
            MemoryKeyStore old = new MemoryKeyStore();
            old.install("conv-1", 5, OTHER_K, NONE, SINCE);
            check(old.record("conv-1").equals(new KeyBundle.ConversationRecord(5, SINCE, 0)), "H from the newest stored epoch");
            check(install(bundle(K, 3, SINCE, NONE, NOW + 3600), old, NOW).outcome.equals("installed_retired"), "below it: retired");
        });
        PushSealTest.test("seal refuses invalid arguments", () -> {
            PushSealTest.Body[] bad = {
                () -> KeyBundle.seal(new byte[31], DEVICE.publicKey(), "conv-1", 2, SINCE, NONE, NOW, PROVIDER.privateKey()),
                () -> bundle(K, 0, SINCE, NONE, NOW), () -> bundle(K, -1, SINCE, NONE, NOW), () -> bundle(K, 2, -1, NONE, NOW),
                () -> bundle(K, 2, SINCE, SINCE - 1, NOW), () -> bundle(K, 2, SINCE, -2, NOW), () -> bundle(K, 2, SINCE, NONE, -1),
                () -> KeyBundle.seal(K, DEVICE.publicKey(), "", 2, SINCE, NONE, NOW, PROVIDER.privateKey()),
                () -> KeyBundle.seal(K, DEVICE.publicKey(), "a\ud800", 2, SINCE, NONE, NOW, PROVIDER.privateKey()),
                () -> KeyBundle.seal(K, DEVICE.publicKey(), "a\nb", 2, SINCE, NONE, NOW, PROVIDER.privateKey()),
                () -> KeyBundle.seal(K, DEVICE.publicKey(), new String(repeat("x", 257), StandardCharsets.US_ASCII), 2, SINCE, NONE, NOW, PROVIDER.privateKey()),
                () -> KeyBundle.seal(K, new byte[31], "conv-1", 2, SINCE, NONE, NOW, PROVIDER.privateKey()),
            };
            for (PushSealTest.Body b : bad) {
                try {
                    b.run();
                    throw new AssertionError("sealed invalid arguments");
                } catch (IllegalArgumentException expected) {
                    // refused
                }
            }
            expectHpke("zero_shared_secret", () -> KeyBundle.seal(K, new byte[32], "conv-1", 2, SINCE, NONE, NOW, PROVIDER.privateKey()));
        });
        PushSealTest.test("a registration round trips and bad ones are refused", () -> {
            String text = DeviceRegistration.of(DEVICE.publicKey());
            String id = PushSeal.base64url(KeyBundle.deviceKeyId(DEVICE.publicKey())), pk = PushSeal.base64url(DEVICE.publicKey());
            check(text.equals("{\"suite\":\"pushseal-v1-x25519\",\"deviceKeyId\":\"" + id + "\",\"publicKey\":\"" + pk + "\"}"), "the exact JSON");
            check(Arrays.equals(DeviceRegistration.publicKey(text), DEVICE.publicKey()), "round trip");
            check(Arrays.equals(DeviceRegistration.publicKey(text.substring(0, text.length() - 1) + ",\"token\":\"x\"}"), DEVICE.publicKey()), "other members ignored");
            for (String bad : Arrays.asList("", "[]", text.replace("x25519", "x448"), text.replace(id, PushSeal.base64url(KeyBundle.deviceKeyId(STRANGER.publicKey()))),
                    text.replace(pk, PushSeal.base64url(Arrays.copyOf(DEVICE.publicKey(), 31))),
                    text.substring(0, text.length() - 1) + ",\"suite\":\"pushseal-v1-x25519\"}", text.replace("\"publicKey\":\"", "\"publicKey\":\"="))) {
                try {
                    DeviceRegistration.publicKey(bad);
                    throw new AssertionError("accepted " + bad);
                } catch (IllegalArgumentException expected) {
                    // refused
                }
            }
        });
        PushSealTest.test("an in-band bundle is counted first and sits next to the envelope", () -> {
            String text = bundle(NOW + 3600);
            Sealer sealer = new Sealer();
            SealedPayload sealed = sealer.sealAPNs(Content.builder("conv-1", "m-1", NOW).body("hi").build(), KD, new APNsOptions().withKeyBundle(text));
            String body = new String(sealed.body(), StandardCharsets.UTF_8);
            check(body.endsWith("\"pushseal\":\"" + sealed.wire + "\",\"pushseal-bundle\":\"" + text + "\"}"), "member after the envelope: " + body);
            check(sealed.limitedBytes == sealed.body().length, "limited == payload bytes");
            MemoryKeyStore store = new MemoryKeyStore();
            KeyBundle.open(text, DEVICE.privateKey(), PINNED, store, NOW, Arrays.copyOfRange(PushSeal.fromBase64url(sealed.wire), 1, 17));
            Receiver r = new Receiver(store, Receiver.DEFAULT_MAX_AGE, Receiver.DEFAULT_MAX_FUTURE_SKEW, () -> NOW, null);
            check(r.open(sealed.body()).content.body.equals("hi"), "the receiver ignores the member");
            int plain = largestComplete(sealer, new APNsOptions()), carrying = largestComplete(sealer, new APNsOptions().withKeyBundle(text));
            check(carrying < plain, "less room with the bundle");
            SealedPayload squeezed = sealer.sealAPNs(Content.builder("conv-1", "m-1", NOW).body(new String(repeat("x", plain), StandardCharsets.US_ASCII)).build(), KD, new APNsOptions().withKeyBundle(text));
            check(squeezed.path.equals("truncated") && squeezed.body().length <= 4096, "truncated to make room");
            SealedPayload fcm = sealer.sealFCM(Content.builder("conv-1", "m-1", NOW).body("hi").build(), KD, new FCMOptions("tok").withKeyBundle(text));
            check(new String(fcm.body(), StandardCharsets.UTF_8).contains("\"data\":{\"pushseal\":\"" + fcm.wire + "\",\"pushseal-bundle\":\"" + text + "\"}"), "FCM data member");
            check(fcm.limitedBytes == 8 + fcm.wire.length() + 15 + text.length(), "FCM counts name and value");
            byte[] formatOne = new byte[403];
            Arrays.fill(formatOne, (byte) 1);
            for (String other : Arrays.asList(PushSeal.base64url(formatOne), "AQ", text.substring(0, text.length() - 4))) {
                try {
                    sealer.sealAPNs(Content.builder("conv-1", "m-1", NOW).body("hi").build(), KD, new APNsOptions().withKeyBundle(other));
                    throw new AssertionError("sealed with a bundle that is not format 2");
                } catch (PushSealException e) {
                    check(e.getCode().equals("invalid_option"), e.getCode());
                }
            }
        });
        System.out.println("bundle tests: " + PushSealTest.passed + " passed, " + PushSealTest.failed + " failed");
        System.exit(PushSealTest.failed == 0 ? 0 : 1);
    }
}
