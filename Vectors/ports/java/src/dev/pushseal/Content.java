package dev.pushseal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One notification content (SPEC §5.1), immutable. A null {@link #body} is the content-free
 * (wake-and-fetch) form: the app fetches the message by (cid, mid).
 */
public final class Content {
    /** Largest encoded content, in bytes. */
    public static final int MAX_BYTES = 4000;
    private static final long TS_MAX = 253402300799L;
    private static final long BADGE_MAX = 2147483647L;
    private static final List<String> KNOWN = Arrays.asList("cid", "mid", "ts", "title", "subtitle", "body", "sender",
            "thread", "category", "badge", "trunc", "x");

    public final String cid, mid, title, subtitle, body, senderId, senderName, thread, category;
    public final long ts;
    /** Null when absent. */
    public final Long badge;
    public final boolean trunc;
    /** App extras (never trusted for authorization); unmodifiable. */
    public final Map<String, String> x;

    private Content(Builder b) {
        cid = b.cid; mid = b.mid; ts = b.ts; title = b.title; subtitle = b.subtitle; body = b.body;
        senderId = b.senderId; senderName = b.senderName; thread = b.thread; category = b.category;
        badge = b.badge; trunc = b.trunc; x = Collections.unmodifiableMap(new LinkedHashMap<String, String>(b.x));
    }

    /** A builder for a content with the three required fields. */
    public static Builder builder(String cid, String mid, long ts) { return new Builder(cid, mid, ts); }

    /** A builder holding this content's fields. */
    public Builder toBuilder() {
        Builder b = new Builder(cid, mid, ts);
        b.title = title; b.subtitle = subtitle; b.body = body; b.senderId = senderId; b.senderName = senderName;
        b.thread = thread; b.category = category; b.badge = badge; b.trunc = trunc; b.x.putAll(x);
        return b;
    }

    /** Builds contents; {@link #build()} does not validate (sealing and decoding do). */
    public static final class Builder {
        String cid, mid, title, subtitle, body, senderId, senderName, thread, category;
        long ts;
        Long badge;
        boolean trunc;
        final Map<String, String> x = new LinkedHashMap<String, String>();

        Builder(String cid, String mid, long ts) { this.cid = cid; this.mid = mid; this.ts = ts; }

        public Builder body(String v) { body = v; return this; }
        public Builder title(String v) { title = v; return this; }
        public Builder subtitle(String v) { subtitle = v; return this; }
        public Builder sender(String id, String name) { senderId = id; senderName = name; return this; }
        public Builder thread(String v) { thread = v; return this; }
        public Builder category(String v) { category = v; return this; }
        public Builder badge(Long v) { badge = v; return this; }
        public Builder trunc(boolean v) { trunc = v; return this; }
        public Builder extra(String name, String value) { x.put(name, value); return this; }
        public Content build() { return new Content(this); }
    }

    /** True for a content-free content. */
    public boolean requiresFetch() { return body == null; }

    /** Only cid, mid and ts. */
    public Content contentFree() { return new Builder(cid, mid, ts).build(); }

    /** Exactly cid, mid, ts (SPEC §9.5). */
    public boolean isContentFreeShape() {
        return body == null && title == null && subtitle == null && senderId == null && senderName == null
                && thread == null && category == null && badge == null && !trunc && x.isEmpty();
    }

    /** Throws when a field violates SPEC §5.1 (sizes are not checked). */
    void validate() throws PushSealException {
        ident("cid", cid, true);
        ident("mid", mid, true);
        if (ts < 0 || ts > TS_MAX) throw invalid("ts must be an integer 0...253402300799");
        ident("thread", thread, false);
        ident("category", category, false);
        if (senderName != null && senderId == null) throw invalid("sender.name needs a sender.id");
        ident("sender.id", senderId, false);
        if (badge != null && (badge < 0 || badge > BADGE_MAX)) throw invalid("badge must be an integer 0...2147483647");
        List<String> strings = new ArrayList<String>(Arrays.asList(cid, mid, title, subtitle, body, senderId, senderName, thread, category));
        for (Map.Entry<String, String> e : x.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) throw invalid("x must map strings to strings");
            strings.add(e.getKey());
            strings.add(e.getValue());
        }
        for (String s : strings) if (s != null && hasLoneSurrogate(s)) throw invalid("strings must not contain lone surrogates");
    }

    private static void ident(String name, String v, boolean required) throws PushSealException {
        if (v == null) {
            if (required) throw invalid(name + " is required");
            return;
        }
        int n = utf8Length(v);
        if (n < 1 || n > 256) throw invalid(name + " must be a string of 1-256 bytes");
        for (int i = 0; i < v.length(); i++) {
            if (v.charAt(i) < 0x20) throw invalid(name + " must not contain a control character U+0000-U+001F");
        }
    }

    private static PushSealException invalid(String detail) { return PushSealException.seal("invalid_content", detail); }

    private static boolean hasLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) return true;
                i++;
            } else if (Character.isLowSurrogate(c)) return true;
        }
        return false;
    }

    static int utf8Length(String s) { return s.getBytes(StandardCharsets.UTF_8).length; }

    // ------------------------------------------------------------ encoding (SPEC §5.3)

    /** A string in the deterministic encoding of SPEC §5.3. */
    static String jsonString(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\b': out.append("\\b"); break;
                case '\f': out.append("\\f"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (ch < 0x20) out.append("\\u00").append(Character.forDigit(ch >> 4, 16)).append(Character.forDigit(ch & 15, 16));
                    else out.append(ch);
            }
        }
        return out.append('"').toString();
    }

    /** Bytes of {@code s} inside a JSON string as {@link #jsonString} writes it, without quotes. */
    static int escapedLength(String s) {
        int n = 0;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c == 0x22 || c == 0x5c || c == 0x08 || c == 0x0c || c == 0x0a || c == 0x0d || c == 0x09) n += 2;
            else if (c < 0x20) n += 6;
            else n += 1;
        }
        return n;
    }

    private static final Comparator<String> UTF8_ORDER = new Comparator<String>() {
        @Override public int compare(String a, String b) {
            byte[] x = a.getBytes(StandardCharsets.UTF_8), y = b.getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < Math.min(x.length, y.length); i++) {
                int d = (x[i] & 0xff) - (y[i] & 0xff);
                if (d != 0) return d;
            }
            return x.length - y.length;
        }
    };

    /** The deterministic compact UTF-8 JSON of SPEC §5.3 (no size check). */
    public byte[] encode() {
        StringBuilder s = new StringBuilder("{\"cid\":").append(jsonString(cid)).append(",\"mid\":").append(jsonString(mid))
                .append(",\"ts\":").append(ts);
        if (title != null) s.append(",\"title\":").append(jsonString(title));
        if (subtitle != null) s.append(",\"subtitle\":").append(jsonString(subtitle));
        if (body != null) s.append(",\"body\":").append(jsonString(body));
        if (senderId != null) {
            s.append(",\"sender\":{\"id\":").append(jsonString(senderId));
            if (senderName != null) s.append(",\"name\":").append(jsonString(senderName));
            s.append('}');
        }
        if (thread != null) s.append(",\"thread\":").append(jsonString(thread));
        if (category != null) s.append(",\"category\":").append(jsonString(category));
        if (badge != null) s.append(",\"badge\":").append(badge.longValue());
        if (trunc) s.append(",\"trunc\":true");
        if (!x.isEmpty()) {
            List<String> names = new ArrayList<String>(x.keySet());
            Collections.sort(names, UTF8_ORDER);
            s.append(",\"x\":{");
            for (int i = 0; i < names.size(); i++) {
                if (i > 0) s.append(',');
                s.append(jsonString(names.get(i))).append(':').append(jsonString(x.get(names.get(i))));
            }
            s.append('}');
        }
        return s.append('}').toString().getBytes(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------ decoding

    /** Names of the top-level members of {@code data} that v1 does not define. */
    public static List<String> unknownMembers(byte[] data) throws StrictJson.JsonException {
        List<String> out = new ArrayList<String>();
        Object root = StrictJson.parse(data);
        if (root instanceof StrictJson.Obj) {
            for (Map.Entry<String, Object> e : ((StrictJson.Obj) root).pairs) if (!KNOWN.contains(e.getKey())) out.add(e.getKey());
        }
        return out;
    }

    /** Strictly parses and validates content bytes as a receiver does (at most 4000 bytes; unknown
     * members ignored). Throws {@code malformed_content}. */
    public static Content decode(byte[] data) throws PushSealException { return decode(data, MAX_BYTES); }

    /** {@link #decode(byte[])} with another size bound ({@code Integer.MAX_VALUE} for a sealer's
     * input, which the size policy shortens). */
    public static Content decode(byte[] data, int maxBytes) throws PushSealException {
        try {
            return decodeChecked(data, maxBytes);
        } catch (StrictJson.JsonException e) {
            throw PushSealException.open(Reason.MALFORMED_CONTENT);
        } catch (PushSealException e) {
            throw PushSealException.open(Reason.MALFORMED_CONTENT);
        }
    }

    private static Content decodeChecked(byte[] data, int maxBytes) throws StrictJson.JsonException, PushSealException {
        if (data.length > maxBytes) throw invalid("content longer than 4000 bytes");
        Object root = StrictJson.parse(data);
        if (!(root instanceof StrictJson.Obj)) throw invalid("top level is not an object");
        StrictJson.Obj f = (StrictJson.Obj) root;
        Builder b = new Builder(string(f, "cid", true), string(f, "mid", true), integer(f.get("ts"), TS_MAX, true));
        b.title = string(f, "title", false);
        b.subtitle = string(f, "subtitle", false);
        b.body = string(f, "body", false);
        b.thread = string(f, "thread", false);
        b.category = string(f, "category", false);
        Object sender = f.get("sender");
        if (sender != null) {
            if (!(sender instanceof StrictJson.Obj)) throw invalid("sender must be an object");
            b.senderId = string((StrictJson.Obj) sender, "id", true);
            b.senderName = string((StrictJson.Obj) sender, "name", false);
        }
        if (f.get("badge") != null) b.badge = integer(f.get("badge"), BADGE_MAX, false);
        Object trunc = f.get("trunc");
        if (trunc != null && trunc != Boolean.TRUE) throw invalid("trunc must be true");
        b.trunc = trunc != null;
        Object x = f.get("x");
        if (x != null) {
            if (!(x instanceof StrictJson.Obj)) throw invalid("x must be an object of strings");
            for (Map.Entry<String, Object> e : ((StrictJson.Obj) x).pairs) {
                if (!(e.getValue() instanceof String)) throw invalid("x must be an object of strings");
                b.x.put(e.getKey(), (String) e.getValue());
            }
        }
        Content c = b.build();
        c.validate();
        return c;
    }

    private static String string(StrictJson.Obj o, String name, boolean required) throws PushSealException {
        Object v = o.get(name);
        if (v == null && !required) return null;
        if (!(v instanceof String)) throw invalid(name + " must be a string");
        return (String) v;
    }

    private static long integer(Object v, long max, boolean ts) throws PushSealException {
        if (!(v instanceof StrictJson.Num) || !((StrictJson.Num) v).raw.matches("0|[1-9][0-9]{0,17}")
                || Long.parseLong(((StrictJson.Num) v).raw) > max) {
            throw invalid((ts ? "ts" : "badge") + " must be an integer 0..." + max);
        }
        return Long.parseLong(((StrictJson.Num) v).raw);
    }

    @Override public boolean equals(Object o) {
        return o instanceof Content && Arrays.equals(encode(), ((Content) o).encode());
    }

    @Override public int hashCode() { return Arrays.hashCode(encode()); }
}
