package dev.pushseal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.AbstractMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Strict JSON (SPEC §5.2): RFC 8259 plus well-formed UTF-8, distinct member names, no lone
 * surrogates and a depth limit. Values are {@link String}, {@link Boolean}, {@link Num},
 * {@link Obj}, {@link List} and {@link #NULL}.
 */
public final class StrictJson {
    private StrictJson() {}

    /** The depth limit of contents and payloads. */
    public static final int MAX_DEPTH = 16;
    /** JSON {@code null}. */
    public static final Object NULL = new Object() {
        @Override public String toString() { return "null"; }
    };

    /** A syntax error; the message names the offset. */
    public static final class JsonException extends Exception {
        private static final long serialVersionUID = 1L;

        JsonException(String m) { super(m); }
    }

    /** A number, kept as its literal text. */
    public static final class Num {
        /** The literal. */
        public final String raw;

        Num(String raw) { this.raw = raw; }
    }

    /** An object: its members in order, and whether a name occurred twice (payload parsing only). */
    public static final class Obj {
        /** The members in document order. */
        public final List<Map.Entry<String, Object>> pairs = new ArrayList<Map.Entry<String, Object>>();
        boolean hasDups;

        /** Every value of the members named {@code name}. */
        public List<Object> getAll(String name) {
            List<Object> out = new ArrayList<Object>();
            for (Map.Entry<String, Object> e : pairs) if (e.getKey().equals(name)) out.add(e.getValue());
            return out;
        }

        /** The first value named {@code name}, or Java null when absent. */
        public Object get(String name) {
            for (Map.Entry<String, Object> e : pairs) if (e.getKey().equals(name)) return e.getValue();
            return null;
        }

        Set<String> dupNames() {
            Set<String> seen = new HashSet<String>(), dups = new HashSet<String>();
            for (Map.Entry<String, Object> e : pairs) if (!seen.add(e.getKey())) dups.add(e.getKey());
            return dups;
        }
    }

    /** Parses {@code data} strictly (duplicates are an error). */
    public static Object parse(byte[] data) throws JsonException { return parse(data, false, MAX_DEPTH); }

    /** Parses {@code data}; with {@code recordDups} duplicate member names are recorded, not refused. */
    public static Object parse(byte[] data, boolean recordDups, int maxDepth) throws JsonException {
        if (!validUtf8(data)) throw new JsonException("invalid UTF-8");
        String text = new String(data, StandardCharsets.UTF_8); // validated above; a BOM stays and is refused
        Parser p = new Parser(text, recordDups, maxDepth);
        Object v = p.value(0);
        p.ws();
        if (p.i != text.length()) throw p.fail("trailing data");
        return v;
    }

    /** Parsed JSON as plain Java: Map, List, String, Boolean, null; an integer literal (no fraction or
     *  exponent) is a {@code Long} when it fits in 64 bits and a {@code BigInteger} otherwise, both
     *  exact; any other number is a {@code Double}. */
    public static Object toPlain(Object v) {
        if (v instanceof Obj) {
            Map<String, Object> m = new LinkedHashMap<String, Object>();
            for (Map.Entry<String, Object> e : ((Obj) v).pairs) m.put(e.getKey(), toPlain(e.getValue()));
            return m;
        }
        if (v instanceof List) {
            List<Object> out = new ArrayList<Object>();
            for (Object x : (List<?>) v) out.add(toPlain(x));
            return out;
        }
        if (v instanceof Num) {
            String raw = ((Num) v).raw;
            if (raw.matches("-?(0|[1-9][0-9]*)")) {
                java.math.BigInteger exact = new java.math.BigInteger(raw);
                return exact.bitLength() < 64 ? (Object) Long.valueOf(exact.longValue()) : exact;
            }
            return Double.parseDouble(raw);
        }
        return v == NULL ? null : v;
    }

    /** Well-formed UTF-8 per Unicode Table 3-7: no overlongs, no surrogates, nothing above U+10FFFF. */
    static boolean validUtf8(byte[] b) {
        int i = 0, n = b.length;
        while (i < n) {
            int c = b[i] & 0xff;
            if (c < 0x80) { i++; continue; }
            int need, lo = 0x80, hi = 0xbf;
            if (c >= 0xc2 && c <= 0xdf) need = 1;
            else if (c >= 0xe0 && c <= 0xef) {
                need = 2;
                if (c == 0xe0) lo = 0xa0;
                if (c == 0xed) hi = 0x9f;
            } else if (c >= 0xf0 && c <= 0xf4) {
                need = 3;
                if (c == 0xf0) lo = 0x90;
                if (c == 0xf4) hi = 0x8f;
            } else return false;
            if (i + need >= n) return false;
            int second = b[i + 1] & 0xff;
            if (second < lo || second > hi) return false;
            for (int j = 2; j <= need; j++) {
                int cc = b[i + j] & 0xff;
                if (cc < 0x80 || cc > 0xbf) return false;
            }
            i += need + 1;
        }
        return true;
    }

    private static final Pattern NUMBER = Pattern.compile("-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?");

    private static final class Parser {
        final String s;
        int i = 0;
        final boolean recordDups;
        final int maxDepth;

        Parser(String s, boolean recordDups, int maxDepth) {
            this.s = s;
            this.recordDups = recordDups;
            this.maxDepth = maxDepth;
        }

        JsonException fail(String m) { return new JsonException(m + " at offset " + i); }

        char peek() { return i < s.length() ? s.charAt(i) : '\0'; }

        void ws() {
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') i++;
                else break;
            }
        }

        Object value(int depth) throws JsonException {
            ws();
            if (i >= s.length()) throw fail("unexpected end");
            char c = s.charAt(i);
            if (c == '{') return obj(depth + 1);
            if (c == '[') return arr(depth + 1);
            if (c == '"') return string();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return NULL; }
            Matcher m = NUMBER.matcher(s);
            m.region(i, s.length());
            if (m.lookingAt() && m.end() > i) {
                i = m.end();
                return new Num(m.group());
            }
            throw fail("unexpected character");
        }

        Obj obj(int depth) throws JsonException {
            if (depth > maxDepth) throw fail("nesting too deep");
            i++;
            Obj o = new Obj();
            Set<String> names = new HashSet<String>();
            ws();
            if (peek() == '}' && i < s.length()) { i++; return o; }
            while (true) {
                ws();
                if (i >= s.length() || s.charAt(i) != '"') throw fail("expected member name");
                String name = string();
                if (!names.add(name)) {
                    if (!recordDups) throw fail("duplicate member name");
                    o.hasDups = true;
                }
                ws();
                if (i >= s.length() || s.charAt(i) != ':') throw fail("expected ':'");
                i++;
                o.pairs.add(new AbstractMap.SimpleImmutableEntry<String, Object>(name, value(depth)));
                ws();
                if (i < s.length() && s.charAt(i) == ',') { i++; continue; }
                if (i < s.length() && s.charAt(i) == '}') { i++; return o; }
                throw fail("expected ',' or '}'");
            }
        }

        List<Object> arr(int depth) throws JsonException {
            if (depth > maxDepth) throw fail("nesting too deep");
            i++;
            List<Object> items = new ArrayList<Object>();
            ws();
            if (i < s.length() && s.charAt(i) == ']') { i++; return items; }
            while (true) {
                items.add(value(depth));
                ws();
                if (i < s.length() && s.charAt(i) == ',') { i++; continue; }
                if (i < s.length() && s.charAt(i) == ']') { i++; return items; }
                throw fail("expected ',' or ']'");
            }
        }

        int hex4() throws JsonException {
            if (i + 4 > s.length()) throw fail("bad \\u escape");
            int v = 0;
            for (int j = 0; j < 4; j++) {
                int d = Character.digit(s.charAt(i + j), 16);
                char ch = s.charAt(i + j);
                boolean ascii = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
                if (!ascii || d < 0) throw fail("bad \\u escape");
                v = v * 16 + d;
            }
            i += 4;
            return v;
        }

        String string() throws JsonException {
            i++;
            StringBuilder out = new StringBuilder();
            while (true) {
                if (i >= s.length()) throw fail("unterminated string");
                char c = s.charAt(i);
                if (c == '"') { i++; return out.toString(); }
                if (c < 0x20) throw fail("control character in string");
                if (c != '\\') { out.append(c); i++; continue; }
                i++;
                if (i >= s.length()) throw fail("unterminated escape");
                char e = s.charAt(i++);
                switch (e) {
                    case '"': out.append('"'); break;
                    case '\\': out.append('\\'); break;
                    case '/': out.append('/'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'n': out.append('\n'); break;
                    case 'r': out.append('\r'); break;
                    case 't': out.append('\t'); break;
                    case 'u': {
                        int cp = hex4();
                        if (cp >= 0xdc00 && cp <= 0xdfff) throw fail("lone low surrogate");
                        if (cp >= 0xd800 && cp <= 0xdbff) {
                            if (!s.startsWith("\\u", i)) throw fail("lone high surrogate");
                            i += 2;
                            int lo = hex4();
                            if (lo < 0xdc00 || lo > 0xdfff) throw fail("high surrogate not followed by low surrogate");
                            out.append((char) cp).append((char) lo);
                        } else {
                            out.append((char) cp);
                        }
                        break;
                    }
                    default: throw fail("invalid escape");
                }
            }
        }
    }
}
