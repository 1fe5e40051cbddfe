package dev.pushseal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Opens payloads (SPEC §10): locates the envelope and runs the checks in their exact order. Every
 * failure is a {@link PushSealException} whose {@link PushSealException#getReason()} is the reason.
 */
public final class Receiver {
    /** Default maximum age (31 days). */
    public static final long DEFAULT_MAX_AGE = 2678400L;
    /** Default tolerance for a sender clock ahead of ours (10 minutes). */
    public static final long DEFAULT_MAX_FUTURE_SKEW = 600L;

    /** The receiver's clock, in seconds since 1970. */
    public interface Clock { long now(); }

    /** The duplicate log: whether (cid, mid) was delivered before; records it. */
    public interface DuplicateLog {
        boolean seen(String cid, String mid);

        /**
         * Records (cid, mid) with a digest of its first envelope and answers {@code "first"},
         * {@code "duplicate"} or {@code "conflict"} (the pair again with another envelope, SPEC §10.4).
         * The default ignores the envelope.
         */
        default String record(String cid, String mid, byte[] envelope) { return seen(cid, mid) ? "duplicate" : "first"; }
    }

    private final KeySource keySource;
    private final long maxAge, maxFutureSkew;
    private final Clock clock;
    private final DuplicateLog log;

    /** A receiver with the default freshness window, the system clock and no duplicate log. */
    public Receiver(KeySource keySource) {
        this(keySource, DEFAULT_MAX_AGE, DEFAULT_MAX_FUTURE_SKEW, null, null);
    }

    /** {@code clock} null: the system clock; {@code log} null: no duplicate log. */
    public Receiver(KeySource keySource, long maxAge, long maxFutureSkew, Clock clock, DuplicateLog log) {
        if (maxAge < 0 || maxFutureSkew < 0) throw new IllegalArgumentException("maxAge and maxFutureSkew must be 0 to 2^63 - 1");
        this.keySource = keySource;
        this.maxAge = maxAge;
        this.maxFutureSkew = maxFutureSkew;
        this.clock = clock != null ? clock : new Clock() {
            @Override public long now() { return System.currentTimeMillis() / 1000L; }
        };
        this.log = log != null ? log : new DuplicateLog() {
            @Override public boolean seen(String cid, String mid) { return false; }
        };
    }

    /** Opens an APNs body, an FCM data map or an FCM v1 message (UTF-8 JSON). */
    public Opened open(byte[] payload) throws PushSealException {
        Object[] value = new Object[1];
        Reason reason = locate(payload, value);
        if (reason != null) throw PushSealException.open(reason);
        return openWire(value[0]);
    }

    /** {@link #open(byte[])} on a string. */
    public Opened open(String payload) throws PushSealException { return open(payload.getBytes(StandardCharsets.UTF_8)); }

    /** Opens the wire string alone (steps 2-12 of SPEC §10.2). */
    public Opened openWire(Object wire) throws PushSealException {
        if (!(wire instanceof String) || ((String) wire).length() > Wire.MAX_WIRE_CHARS) throw fail(Reason.MALFORMED_ENVELOPE); // 2
        byte[] env = Wire.b64urlDecode((String) wire);
        if (env == null || env.length == 0) throw fail(Reason.MALFORMED_ENVELOPE);
        if ((env[0] & 0xff) != Wire.VERSION) throw fail(Reason.UNSUPPORTED_VERSION); // 3
        if (env.length < Wire.MIN_ENVELOPE || env.length > Wire.MAX_ENVELOPE) throw fail(Reason.MALFORMED_ENVELOPE); // 4
        byte[] kid = Arrays.copyOfRange(env, 1, 17);
        KeyLookup found = keySource.lookup(kid);
        if (found == null || found == KeyLookup.NOT_FOUND) throw fail(Reason.UNKNOWN_KEY); // 5
        if (found.key == null) throw fail(Reason.STORE_LOCKED); // 6
        if (!Arrays.equals(Wire.keyId(found.key), kid)) throw fail(Reason.UNKNOWN_KEY); // a key source derives kid from K
        byte[] p = Wire.openEnvelope(found.key, env); // 7
        if (p == null) throw fail(Reason.AUTHENTICATION_FAILED);
        byte[] bytes = Wire.unpad(p); // 8
        Arrays.fill(p, (byte) 0);
        if (bytes == null) throw fail(Reason.MALFORMED_CONTENT);
        Content content = Content.decode(bytes);
        if (!Arrays.equals(content.cid.getBytes(StandardCharsets.UTF_8), found.conversation.getBytes(StandardCharsets.UTF_8))) {
            throw fail(Reason.CONVERSATION_MISMATCH); // 9
        }
        // 10-11 with every time in 0...2^63-1 and 0 <= ts <= 253402300799: no difference below
        // wraps, and ts > retireBy + skew is tested as ts - skew > retireBy (the sum can exceed 64 bits).
        long now = clock.now(); // 10
        if (now < 0) throw new IllegalStateException("the clock must give 0 to 2^63 - 1 seconds since 1970");
        if (now - content.ts > maxAge || content.ts - now > maxFutureSkew) throw fail(Reason.STALE);
        if (found.retireBy != null && content.ts - maxFutureSkew > found.retireBy) throw fail(Reason.RETIRED_KEY); // 11
        String logged = log.record(content.cid, content.mid, env.clone()); // 12
        if (!"first".equals(logged) && !"duplicate".equals(logged) && !"conflict".equals(logged)) {
            throw new IllegalStateException("DuplicateLog.record must answer first, duplicate or conflict");
        }
        return new Opened(content, bytes, !"first".equals(logged), "conflict".equals(logged));
    }

    private static PushSealException fail(Reason r) { return PushSealException.open(r); }

    /** SPEC §10.1 and the payload part of steps 1-2; null and the wire value in {@code value[0]}, or the reason. */
    private static Reason locate(byte[] payload, Object[] value) {
        Object root;
        try {
            root = StrictJson.parse(payload, true, StrictJson.MAX_DEPTH);
        } catch (StrictJson.JsonException e) {
            return Reason.NOT_SEALED;
        }
        if (!(root instanceof StrictJson.Obj)) return Reason.NOT_SEALED;
        StrictJson.Obj holder = (StrictJson.Obj) root;
        List<Object> members = holder.getAll("pushseal");
        if (members.isEmpty()) {
            List<Object> messages = holder.getAll("message");
            if (messages.size() == 1 && messages.get(0) instanceof StrictJson.Obj) {
                List<Object> datas = ((StrictJson.Obj) messages.get(0)).getAll("data");
                if (datas.size() == 1 && datas.get(0) instanceof StrictJson.Obj) {
                    holder = (StrictJson.Obj) datas.get(0);
                    members = holder.getAll("pushseal");
                }
            }
        }
        if (members.isEmpty()) return Reason.NOT_SEALED;
        if (otherDups(root, holder)) return Reason.NOT_SEALED;
        if (members.size() > 1) return Reason.MALFORMED_ENVELOPE;
        value[0] = members.get(0);
        return null;
    }

    private static boolean otherDups(Object v, StrictJson.Obj holder) {
        if (v instanceof StrictJson.Obj) {
            StrictJson.Obj o = (StrictJson.Obj) v;
            Set<String> dups = o.dupNames();
            if (o == holder) dups.remove("pushseal");
            if (!dups.isEmpty()) return true;
            for (Map.Entry<String, Object> e : o.pairs) if (otherDups(e.getValue(), holder)) return true;
            return false;
        }
        if (v instanceof List) {
            for (Object x : (List<?>) v) if (otherDups(x, holder)) return true;
        }
        return false;
    }
}
