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
 * HPKE (RFC 9180 A.2 base and auth) and key bundles through the public API: sealing, every refusal
 * reason in check order, idempotent install, and the installed key opening a notification. The RFC
 * file and the bundle vectors are the system properties {@code pushseal.hpkeVectors} and
 * {@code pushseal.bundleVectors} (build.sh sets them).
 */
public final class BundleTest {
    // The harness (test, check, the counters) is PushSealTest's.
    static final long NOW = 1764400000L;
    static final byte[] K = new byte[32], OTHER_K = new byte[32];
    static final Hpke.KeyPair DEVICE = Hpke.deriveKeyPair(repeat("device", 6));
    static final Hpke.KeyPair PROVIDER = Hpke.deriveKeyPair(repeat("provider", 4));
    static final Hpke.KeyPair STRANGER = Hpke.deriveKeyPair(repeat("stranger", 4));

    static {
        for (int i = 0; i < 32; i++) { K[i] = (byte) i; OTHER_K[i] = (byte) (i + 1); }
    }

    static byte[] repeat(String s, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) b.append(s);
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    static int largestComplete(Sealer sealer, APNsOptions options) throws Exception {
        int lo = 1, hi = 4000;
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (sealer.sealAPNs(Content.builder("conv-1", "m-1", NOW).body(new String(repeat("x", mid), StandardCharsets.US_ASCII)).build(), K, options).path.equals("complete")) lo = mid;
            else hi = mid - 1;
        }
        return lo;
    }

    /** An authentic bundle whose header names {@code kid} and whose sealed part is K || cid. */
    static String handSealed(byte[] kid, byte[] cid) throws HpkeException {
        byte[] b = new KeyBundle.Header(KeyBundle.providerKeyId(PROVIDER.publicKey()), KeyBundle.deviceKeyId(DEVICE.publicKey()), 2, NOW + 3600, kid).encode();
        Hpke.Sender s = Hpke.setupSender(DEVICE.publicKey(), "pushseal v1 key bundle".getBytes(StandardCharsets.US_ASCII), PROVIDER.privateKey(), null);
        byte[] pt = new byte[32 + cid.length];
        System.arraycopy(K, 0, pt, 0, 32);
        System.arraycopy(cid, 0, pt, 32, cid.length);
        byte[] ct = s.context.seal(b, pt, 0);
        byte[] all = new byte[b.length + 32 + ct.length];
        System.arraycopy(b, 0, all, 0, b.length);
        System.arraycopy(s.enc, 0, all, b.length, 32);
        System.arraycopy(ct, 0, all, b.length + 32, ct.length);
        return PushSeal.base64url(all);
    }

    static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    static String bundle(long notAfter) throws HpkeException {
        return KeyBundle.seal(K, "conv-1", 2, notAfter, PROVIDER.privateKey(), DEVICE.publicKey());
    }

    static BundleReason reason(String text, BundleKeyStore store, long now, byte[] deviceSk, List<byte[]> pinned) {
        try {
            KeyBundle.open(text, deviceSk, pinned, store, now);
        } catch (BundleException e) {
            check(!e.getMessage().contains("conv-1"), "no conversation in the message");
            check(e.getCode().equals(e.getReason().code()), "code is the reason code");
            return e.getReason();
        }
        throw new AssertionError("installed");
    }

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
        PushSealTest.test("a bundle installs and its key opens a notification", () -> {
            String text = bundle(NOW + 3600);
            check(PushSeal.fromBase64url(text).length == 145 + 6, "145 + n bytes");
            check(!new String(PushSeal.fromBase64url(text), StandardCharsets.ISO_8859_1).contains("conv-1"), "the conversation id is sealed");
            KeyBundle.Parsed p = KeyBundle.parse(text);
            check(Arrays.equals(p.header.providerKeyId(), KeyBundle.providerKeyId(PROVIDER.publicKey())), "provider key id");
            check(Arrays.equals(p.header.deviceKeyId(), KeyBundle.deviceKeyId(DEVICE.publicKey())), "device key id");
            check(Arrays.equals(p.header.kid(), PushSeal.keyId(K)), "kid");
            check(p.header.epoch == 2 && p.header.notAfter == NOW + 3600, "header fields");
            check(Arrays.equals(p.header.encode(), p.headerBytes()) && p.headerBytes().length == 65 && p.enc().length == 32
                    && p.ciphertext().length == 32 + 6 + 16, "layout");
            MemoryKeyStore store = new MemoryKeyStore();
            KeyBundle.Installed first = KeyBundle.open(text, DEVICE.privateKey(), Arrays.asList(STRANGER.publicKey(), PROVIDER.publicKey()), store, NOW);
            check(!first.alreadyInstalled && first.conversation.equals("conv-1") && Arrays.equals(store.keyFor("conv-1", 2), K), "installed");
            KeyBundle.Installed again = KeyBundle.open(bundle(NOW + 3600), DEVICE.privateKey(), Collections.singletonList(PROVIDER.publicKey()), store, NOW);
            check(again.alreadyInstalled, "already installed");
            SealedPayload sealed = new Sealer().sealAPNs(Content.builder("conv-1", "m-1", NOW).body("after rotation").build(), K, new APNsOptions());
            Receiver r = new Receiver(store, Receiver.DEFAULT_MAX_AGE, Receiver.DEFAULT_MAX_FUTURE_SKEW, new Receiver.Clock() { @Override public long now() { return NOW; } }, null);
            check(r.open(sealed.body()).content.body.equals("after rotation"), "the installed key opens");
        });
        PushSealTest.test("no expiry and the expiry boundary", () -> {
            check(KeyBundle.parse(bundle(KeyBundle.NO_EXPIRY)).header.notAfter == KeyBundle.NO_EXPIRY, "no expiry");
            KeyBundle.Installed late = KeyBundle.open(bundle(KeyBundle.NO_EXPIRY), DEVICE.privateKey(), Collections.singletonList(PROVIDER.publicKey()),
                    new MemoryKeyStore(), Long.MAX_VALUE);
            check(!late.alreadyInstalled, "a key without a limit installs at any time");
            check(KeyBundle.open(bundle(NOW), DEVICE.privateKey(), Collections.singletonList(PROVIDER.publicKey()), new MemoryKeyStore(), NOW) != null, "now == notAfter");
        });
        PushSealTest.test("each check in order", () -> {
            String text = bundle(NOW + 3600);
            byte[] data = PushSeal.fromBase64url(text);
            byte[] ones = new byte[145], tooShort = new byte[48], tooLong = new byte[401], two = new byte[401];
            tooLong[0] = 1;
            Arrays.fill(ones, (byte) 1);
            Arrays.fill(tooShort, (byte) 1);
            two[0] = 2;
            StringBuilder long536 = new StringBuilder("AQ");
            while (long536.length() < 536) long536.append('A');
            for (String bad : Arrays.asList("", "!!!", "AQ=", "AB", PushSeal.base64url(ones), PushSeal.base64url(tooShort), PushSeal.base64url(tooLong),
                    long536.toString(), text + "!", PushSeal.base64url(Arrays.copyOf(data, 145)), edit(text, 40, 0), edit(text, 33, 0x80), edit(text, 41, 0x80))) {
                check(reason(bad) == BundleReason.MALFORMED_BUNDLE, "malformed: " + bad);
            }
            for (String other : Arrays.asList("AAAA", "Ag", PushSeal.base64url(two))) {
                check(reason(other) == BundleReason.UNSUPPORTED_BUNDLE_VERSION, "unsupported: " + other);
            }
            check(reason(edit(text, 0, 2)) == BundleReason.UNSUPPORTED_BUNDLE_VERSION, "version");
            check(reason(edit(edit(text, 0, 2), 17, 0)) == BundleReason.UNSUPPORTED_BUNDLE_VERSION, "version before device");
            List<byte[]> pinned = Collections.singletonList(PROVIDER.publicKey());
            check(reason(text, new MemoryKeyStore(), NOW, STRANGER.privateKey(), pinned) == BundleReason.WRONG_DEVICE, "wrong device");
            check(reason(text, new MemoryKeyStore(), NOW, DEVICE.privateKey(), Collections.singletonList(STRANGER.publicKey())) == BundleReason.UNKNOWN_PROVIDER, "unknown provider");
            check(reason(text, new MemoryKeyStore(), NOW, DEVICE.privateKey(), Collections.<byte[]>emptyList()) == BundleReason.UNKNOWN_PROVIDER, "no pins");
            for (int at : new int[] {40, data.length - 1, 65, 97}) {
                check(reason(edit(text, at, data[at] ^ 1)) == BundleReason.BUNDLE_AUTHENTICATION_FAILED, "authentication " + at);
            }
            check(reason(PushSeal.base64url(Arrays.copyOf(data, data.length + 1))) == BundleReason.BUNDLE_AUTHENTICATION_FAILED, "a longer cid");
            check(reason(PushSeal.base64url(Arrays.copyOf(data, data.length - 1))) == BundleReason.BUNDLE_AUTHENTICATION_FAILED, "a shorter cid");
            byte[] forged = PushSeal.fromBase64url(KeyBundle.seal(K, "conv-1", 2, NOW + 3600, STRANGER.privateKey(), DEVICE.publicKey()));
            System.arraycopy(KeyBundle.providerKeyId(PROVIDER.publicKey()), 0, forged, 1, 16);
            check(reason(PushSeal.base64url(forged)) == BundleReason.BUNDLE_AUTHENTICATION_FAILED, "forged by a stranger");
            check(reason(bundle(NOW - 1)) == BundleReason.BUNDLE_EXPIRED, "expired");
            check(reason(bundle(NOW), new MemoryKeyStore(), NOW + 1, DEVICE.privateKey(), pinned) == BundleReason.BUNDLE_EXPIRED, "expired by a second");
        });
        PushSealTest.test("kid mismatch needs an authentic bundle with another kid", () -> {
            check(reason(handSealed(PushSeal.keyId(OTHER_K), "conv-1".getBytes(StandardCharsets.UTF_8))) == BundleReason.KID_MISMATCH, "kid mismatch");
        });
        PushSealTest.test("a sealed conversation id that is not UTF-8 is malformed after opening", () -> {
            String text = handSealed(PushSeal.keyId(K), new byte[] {'c', 'o', 'n', 'v', (byte) 0xff});
            check(reason(text) == BundleReason.MALFORMED_BUNDLE, "malformed after opening");
            check(reason(text, new MemoryKeyStore(), NOW, STRANGER.privateKey(), Collections.singletonList(PROVIDER.publicKey())) == BundleReason.WRONG_DEVICE,
                    "the header checks come first");
        });
        PushSealTest.test("conflicting keys are refused and nothing is installed", () -> {
            Object[][] stored = {{"conv-1", 2L, OTHER_K}, {"conv-1", 1L, K}, {"conv-2", 2L, K}};
            for (Object[] s : stored) {
                MemoryKeyStore store = new MemoryKeyStore();
                store.install((String) s[0], (Long) s[1], (byte[]) s[2], KeyBundle.NO_EXPIRY);
                check(reason(bundle(NOW + 3600), store, NOW, DEVICE.privateKey(), Collections.singletonList(PROVIDER.publicKey())) == BundleReason.CONFLICTING_KEY,
                        "conflict " + s[0] + " " + s[1]);
                if (!s[0].equals("conv-1") || (Long) s[1] != 2L) check(store.keyFor("conv-1", 2) == null, "nothing installed");
            }
        });
        PushSealTest.test("a locked store is store_locked, and it is asked last", () -> {
            BundleKeyStore locked = new BundleKeyStore() {
                @Override public byte[] keyFor(String c, long e) throws Locked { throw new Locked(); }
                @Override public boolean storedElsewhere(byte[] kid, String c, long e) throws Locked { throw new Locked(); }
                @Override public void install(String c, long e, byte[] k, long n) throws Locked { throw new Locked(); }
            };
            List<byte[]> pinned = Collections.singletonList(PROVIDER.publicKey());
            check(reason(bundle(NOW + 3600), locked, NOW, DEVICE.privateKey(), pinned) == BundleReason.STORE_LOCKED, "locked");
            check(reason(bundle(NOW - 1), locked, NOW, DEVICE.privateKey(), pinned) == BundleReason.BUNDLE_EXPIRED, "expired first");
        });
        PushSealTest.test("seal refuses invalid arguments", () -> {
            Object[][] bad = {{new byte[31], "conv-1", 2L}, {K, "conv-1", 0L}, {K, "conv-1", -5L}, {K, "", 2L}, {K, new String(new char[257]).replace('\0', 'x'), 2L}, {K, "a\ud800", 2L}};
            for (Object[] a : bad) {
                try {
                    KeyBundle.seal((byte[]) a[0], (String) a[1], (Long) a[2], NOW, PROVIDER.privateKey(), DEVICE.publicKey());
                    throw new AssertionError("sealed " + a[1]);
                } catch (IllegalArgumentException expected) {
                    // refused
                }
            }
            try {
                KeyBundle.seal(K, "conv-1", 2, -2L, PROVIDER.privateKey(), DEVICE.publicKey());
                throw new AssertionError("sealed notAfter 2^64 - 2");
            } catch (IllegalArgumentException expected) {
                // refused
            }
            expectHpke("zero_shared_secret", () -> KeyBundle.seal(K, "conv-1", 2, NOW, PROVIDER.privateKey(), new byte[32]));
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
            SealedPayload sealed = sealer.sealAPNs(Content.builder("conv-1", "m-1", NOW).body("hi").build(), K, new APNsOptions().withKeyBundle(text));
            String body = new String(sealed.body(), StandardCharsets.UTF_8);
            check(body.endsWith("\"pushseal\":\"" + sealed.wire + "\",\"pushseal-bundle\":\"" + text + "\"}"), "member after the envelope: " + body);
            check(sealed.limitedBytes == sealed.body().length, "limited == payload bytes");
            MemoryKeyStore store = new MemoryKeyStore();
            KeyBundle.open(text, DEVICE.privateKey(), Collections.singletonList(PROVIDER.publicKey()), store, NOW);
            Receiver r = new Receiver(store, Receiver.DEFAULT_MAX_AGE, Receiver.DEFAULT_MAX_FUTURE_SKEW, () -> NOW, null);
            check(r.open(sealed.body()).content.body.equals("hi"), "the receiver ignores the member");
            int plain = largestComplete(sealer, new APNsOptions()), carrying = largestComplete(sealer, new APNsOptions().withKeyBundle(text));
            check(carrying < plain, "less room with the bundle");
            SealedPayload squeezed = sealer.sealAPNs(Content.builder("conv-1", "m-1", NOW).body(new String(repeat("x", plain), StandardCharsets.US_ASCII)).build(), K, new APNsOptions().withKeyBundle(text));
            check(squeezed.path.equals("truncated") && squeezed.body().length <= 4096, "truncated to make room");
            SealedPayload fcm = sealer.sealFCM(Content.builder("conv-1", "m-1", NOW).body("hi").build(), K, new FCMOptions("tok").withKeyBundle(text));
            check(new String(fcm.body(), StandardCharsets.UTF_8).contains("\"data\":{\"pushseal\":\"" + fcm.wire + "\",\"pushseal-bundle\":\"" + text + "\"}"), "FCM data member");
            check(fcm.limitedBytes == 8 + fcm.wire.length() + 15 + text.length(), "FCM counts name and value");
            for (String other : Arrays.asList(KeyBundle.seal(OTHER_K, "conv-1", 2, NOW, PROVIDER.privateKey(), DEVICE.publicKey()), "AQ")) {
                try {
                    sealer.sealAPNs(Content.builder("conv-1", "m-1", NOW).body("hi").build(), K, new APNsOptions().withKeyBundle(other));
                    throw new AssertionError("sealed with a bundle of another key");
                } catch (PushSealException e) {
                    check(e.getCode().equals("invalid_option"), e.getCode());
                }
            }
        });
        System.out.println("bundle tests: " + PushSealTest.passed + " passed, " + PushSealTest.failed + " failed");
        System.exit(PushSealTest.failed == 0 ? 0 : 1);
    }
}
