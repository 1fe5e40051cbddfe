package dev.pushseal.tests;

import dev.pushseal.APNsOptions;
import dev.pushseal.Content;
import dev.pushseal.FCMOptions;
import dev.pushseal.Opened;
import dev.pushseal.PushSeal;
import dev.pushseal.PushSealException;
import dev.pushseal.Reason;
import dev.pushseal.Receiver;
import dev.pushseal.SealedPayload;
import dev.pushseal.Sealer;
import dev.pushseal.SingleKeySource;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/** The public API as a user calls it (only public symbols): seal, open, every reason, every seal error. */
public final class PushSealTest {
    static int passed, failed;
    static final long NOW = 1764400000L;
    static final byte[] KEY = new byte[32], OTHER = new byte[32];

    static {
        for (int i = 0; i < 32; i++) { KEY[i] = (byte) i; OTHER[i] = (byte) (i + 1); }
    }

    interface Body { void run() throws Exception; }

    static void test(String name, Body body) {
        try {
            body.run();
            passed++;
        } catch (Throwable e) {
            failed++;
            System.out.println("FAIL " + name + ": " + e);
        }
    }

    static void check(boolean ok, String what) { if (!ok) throw new AssertionError(what); }

    static Content content() { return Content.builder("conv-1", "m-1", NOW - 5).title("Ana").body("Hi \uD83D\uDC4B\uD83C\uDFFD").build(); }

    static Receiver receiver(byte[] key, String conversation, boolean locked, long maxAge) {
        return new Receiver(new SingleKeySource(key, conversation, locked), maxAge, Receiver.DEFAULT_MAX_FUTURE_SKEW,
                new Receiver.Clock() { @Override public long now() { return NOW; } }, null);
    }

    static Reason reasonOf(String payload, Receiver r) {
        try {
            r.open(payload);
        } catch (PushSealException e) {
            check(!e.getMessage().contains("Hi"), "no plaintext in the message");
            check(e.getCode().equals(e.getReason().code()), "code is the reason code");
            return e.getReason();
        }
        throw new AssertionError("opened");
    }

    static String sealCode(Body body) {
        try {
            body.run();
        } catch (PushSealException e) {
            check(e.getReason() == null, "a sealing error has no reason");
            return e.getCode();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("sealed");
    }

    public static void main(String[] args) {
        test("round trips", () -> {
            Receiver r = receiver(KEY, "conv-1", false, Receiver.DEFAULT_MAX_AGE);
            SealedPayload apns = new Sealer().sealAPNs(content(), KEY, new APNsOptions());
            check(apns.path.equals("complete") && apns.paddedBytes == 256 && apns.payloadBytes <= 4096, "apns sizes");
            Opened opened = r.open(apns.body());
            check(opened.content.equals(content()) && !opened.duplicate && !opened.requiresFetch(), "apns opens");
            SealedPayload fcm = new Sealer().sealFCM(content(), KEY, new FCMOptions("token-1"));
            check(fcm.text().startsWith("{\"message\":{\"token\":\"token-1\",\"data\":{\"pushseal\":\""), "fcm shape");
            check(Arrays.equals(r.open(fcm.text()).contentBytes(), content().encode()), "fcm opens");
        });
        test("fresh salts differ; a test salt is deterministic", () -> {
            check(!new Sealer().sealAPNs(content(), KEY, new APNsOptions()).wire.equals(new Sealer().sealAPNs(content(), KEY, new APNsOptions()).wire), "fresh");
            byte[] salt = new byte[24];
            check(new Sealer().sealAPNs(content(), KEY, new APNsOptions(), salt).text()
                    .equals(new Sealer().sealAPNs(content(), KEY, new APNsOptions(), salt).text()), "deterministic");
        });
        test("every reason code", () -> {
            String good = new Sealer().sealAPNs(content(), KEY, new APNsOptions()).wire;
            Receiver r = receiver(KEY, "conv-1", false, Receiver.DEFAULT_MAX_AGE);
            check(reasonOf("{\"aps\":{}}", r) == Reason.NOT_SEALED, "not_sealed");
            check(reasonOf("{\"pushseal\":\"a\",\"pushseal\":\"b\"}", r) == Reason.MALFORMED_ENVELOPE, "dup");
            check(reasonOf("{\"pushseal\":\"" + good + "=\"}", r) == Reason.MALFORMED_ENVELOPE, "padding char");
            byte[] v2 = new byte[61];
            v2[0] = 2;
            check(reasonOf("{\"pushseal\":\"" + PushSeal.base64url(v2) + "\"}", r) == Reason.UNSUPPORTED_VERSION, "version");
            check(reasonOf("{\"pushseal\":\"" + good + "\"}", receiver(OTHER, "conv-1", false, Receiver.DEFAULT_MAX_AGE)) == Reason.UNKNOWN_KEY, "unknown");
            check(reasonOf("{\"pushseal\":\"" + good + "\"}", receiver(KEY, "conv-1", true, Receiver.DEFAULT_MAX_AGE)) == Reason.STORE_LOCKED, "locked");
            char c = good.charAt(good.length() - 2);
            String tampered = good.substring(0, good.length() - 2) + (c == 'A' ? 'B' : 'A') + good.charAt(good.length() - 1);
            check(reasonOf("{\"pushseal\":\"" + tampered + "\"}", r) == Reason.AUTHENTICATION_FAILED, "tampered");
            check(reasonOf("{\"pushseal\":\"" + good + "\"}", receiver(KEY, "conv-2", false, Receiver.DEFAULT_MAX_AGE)) == Reason.CONVERSATION_MISMATCH, "mismatch");
            check(reasonOf("{\"pushseal\":\"" + good + "\"}", receiver(KEY, "conv-1", false, 1)) == Reason.STALE, "stale");
            check(Reason.fromCode("malformed_content") == Reason.MALFORMED_CONTENT, "fromCode");
        });
        test("duplicate flag and content-free", () -> {
            final Set<String> seen = new HashSet<String>();
            Receiver r = new Receiver(new SingleKeySource(KEY, "conv-1"), Receiver.DEFAULT_MAX_AGE, 600,
                    new Receiver.Clock() { @Override public long now() { return NOW; } },
                    new Receiver.DuplicateLog() { @Override public boolean seen(String cid, String mid) { return !seen.add(cid + "\n" + mid); } });
            byte[] body = new Sealer().sealAPNs(content(), KEY, new APNsOptions()).body();
            check(!r.open(body).duplicate && r.open(body).duplicate, "duplicate");
            check(r.open(new Sealer().sealAPNs(Content.builder("conv-1", "m-2", NOW).build(), KEY, new APNsOptions()).body()).requiresFetch(), "fetch");
        });
        test("truncation keeps grapheme clusters and marks trunc", () -> {
            String family = "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67\u200D\uD83D\uDC66";
            StringBuilder long_ = new StringBuilder();
            for (int i = 0; i < 400; i++) long_.append(family);
            SealedPayload sealed = new Sealer().sealAPNs(content().toBuilder().body(long_.toString()).build(), KEY, new APNsOptions());
            check(sealed.path.equals("truncated") && sealed.limitedBytes <= 4096 && sealed.content.trunc, "truncated");
            String kept = sealed.content.body.substring(0, sealed.content.body.length() - 1);
            check(sealed.content.body.endsWith("\u2026") && kept.length() % family.length() == 0 && kept.replace(family, "").isEmpty(), "whole clusters");
        });
        test("padding cap, content-free switch, does_not_fit", () -> {
            SealedPayload capped = new Sealer(4096).sealAPNs(content().toBuilder().body("x").build(), KEY, new APNsOptions());
            check(capped.limitedBytes <= 4096 && capped.limitedBytes + 4 > 4096, "cap");
            StringBuilder t = new StringBuilder();
            for (int i = 0; i < 3500; i++) t.append('T');
            SealedPayload free = new Sealer().sealAPNs(content().toBuilder().title(t.toString()).build(), KEY, new APNsOptions());
            check(free.path.equals("content_free") && free.content.equals(content().contentFree()), "content-free");
            final StringBuilder p = new StringBuilder();
            for (int i = 0; i < 4100; i++) p.append('p');
            check(sealCode(() -> new Sealer().sealAPNs(content(), KEY, new APNsOptions().withPlaceholder(null, p.toString()))).equals("does_not_fit"), "does_not_fit");
        });
        test("seal errors carry their codes", () -> {
            check(sealCode(() -> new Sealer(0)).equals("invalid_pad_block"), "pad block");
            check(sealCode(() -> new Sealer().sealAPNs(Content.builder("", "m", 1).body("x").build(), KEY, new APNsOptions())).equals("invalid_content"), "cid");
            check(sealCode(() -> new Sealer().sealAPNs(content().toBuilder().body(null).build(), KEY, new APNsOptions())).equals("invalid_content"), "body");
            check(sealCode(() -> new Sealer().sealAPNs(content(), KEY, new APNsOptions(), new byte[3])).equals("invalid_salt"), "salt");
            check(sealCode(() -> new Sealer().sealAPNs(content(), new byte[5], new APNsOptions())).equals("invalid_key"), "key");
            check(sealCode(() -> new Sealer().sealAPNs(content(), KEY, new APNsOptions().withPlaceholder(null, ""))).equals("missing_placeholder"), "placeholder");
            check(sealCode(() -> new Sealer().sealAPNs(content(), KEY, new APNsOptions().withRelevanceScore(2.0))).equals("invalid_option"), "score");
            check(sealCode(() -> new Sealer().sealFCM(content(), KEY, new FCMOptions("bad token"))).equals("invalid_fcm_token"), "token");
        });
        test("times up to 2^63 - 1 are exact; retireBy + maxFutureSkew beyond 64 bits does not wrap", () -> {
            String body = new Sealer().sealAPNs(content(), KEY, new APNsOptions()).text();
            Receiver.Clock clock = new Receiver.Clock() { @Override public long now() { return NOW; } };
            Receiver retired = new Receiver(new SingleKeySource(KEY, "conv-1", false, Long.MAX_VALUE), Receiver.DEFAULT_MAX_AGE,
                    Receiver.DEFAULT_MAX_FUTURE_SKEW, clock, null);
            check(retired.open(body).content.mid.equals("m-1"), "retireBy 2^63 - 1 is not retired");
            Receiver far = new Receiver(new SingleKeySource(KEY, "conv-1", false, Long.MAX_VALUE - 1), Long.MAX_VALUE, Long.MAX_VALUE,
                    new Receiver.Clock() { @Override public long now() { return Long.MAX_VALUE; } }, null);
            check(far.open(body).content.mid.equals("m-1"), "now, maxAge and maxFutureSkew 2^63 - 1");
            Receiver stale = new Receiver(new SingleKeySource(KEY, "conv-1", false), Long.MAX_VALUE - 1 - (NOW - 5), 0,
                    new Receiver.Clock() { @Override public long now() { return Long.MAX_VALUE; } }, null);
            check(reasonOf(body, stale) == Reason.STALE, "one second past maxAge at 2^63 - 1");
            boolean refused = false;
            try { new Receiver(new SingleKeySource(KEY, "conv-1", false), -1, 0, clock, null); } catch (IllegalArgumentException e) { refused = true; }
            check(refused, "a negative maxAge is refused");
        });
        test("generateKey gives 32 fresh random bytes that seal and open", () -> {
            byte[] a = PushSeal.generateKey(), b = PushSeal.generateKey();
            check(a.length == 32 && !Arrays.equals(a, b), "32 fresh bytes");
            String body = new Sealer().sealAPNs(content(), a, new APNsOptions()).text();
            check(new Receiver(new SingleKeySource(a, "conv-1", false), Receiver.DEFAULT_MAX_AGE, Receiver.DEFAULT_MAX_FUTURE_SKEW,
                    new Receiver.Clock() { @Override public long now() { return NOW; } }, null).open(body).content.mid.equals("m-1"), "opens");
        });
        test("version", () -> check(PushSeal.VERSION.split("\\.").length == 3, "x.y.z"));
        test("the kid is derived from the key", () -> check(PushSeal.keyId(KEY).length == 16
                && new String(PushSeal.opaqueThreadId(KEY).getBytes(StandardCharsets.US_ASCII), StandardCharsets.US_ASCII).length() == 22, "ids"));
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
