// PushSeal v1 reference port: Java 17, JCE only (Mac "HmacSHA256", Cipher "ChaCha20-Poly1305").
// Written from Docs/SPEC.md. No dependencies, no build tool:
//
//   javac -d /tmp/ps PushSealPort.java
//   java -cp /tmp/ps PushSealPort [VECTOR_FILE]     run every case (default: Vectors/pushseal-v1.json,
//                                                   found by walking up from the working directory)
//   java -cp /tmp/ps PushSealPort open --key K --conversation CID [--now UNIX] [--max-age S]
//                                  [--max-future-skew S] < payload.json
//   java -cp /tmp/ps PushSealPort seal --key K [--salt S] [--pad-block N] [--apns] < content.json
//
// Exit codes: 0 ok; 1 failure; 3 `open` fell back; 64 usage error.

import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

public final class PushSealPort {

    // ------------------------------------------------------------ constants (SPEC §4, §7, §10)

    static final int VERSION = 0x01;
    static final byte[] INFO_KID = "pushseal v1 key id".getBytes(StandardCharsets.US_ASCII);
    static final byte[] INFO_MK = "pushseal v1 message key".getBytes(StandardCharsets.US_ASCII);
    static final byte[] INFO_TID = "pushseal v1 thread id".getBytes(StandardCharsets.US_ASCII);
    static final int HEADER_LEN = 41;
    static final int TAG_LEN = 16;
    static final int MIN_ENVELOPE = 58;
    static final int MAX_ENVELOPE = 4096;
    static final int MAX_WIRE_CHARS = 5462;
    static final int MAX_CONTENT = 4000;
    static final int MAX_DEPTH = 16;
    static final long DEFAULT_MAX_AGE = 2678400L;
    static final long DEFAULT_MAX_FUTURE_SKEW = 600L;
    static final int DEFAULT_PAD_BLOCK = 256;
    static final BigInteger TS_MAX = BigInteger.valueOf(253402300799L);
    static final BigInteger BADGE_MAX = BigInteger.valueOf(2147483647L);
    static final List<String> REASONS = List.of("not_sealed", "malformed_envelope", "unsupported_version",
            "unknown_key", "store_locked", "authentication_failed", "malformed_content", "conversation_mismatch", "stale");
    static final PrintStream OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    static final PrintStream ERR = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);

    // ------------------------------------------------------------ derivations (SPEC §4)

    /** HKDF-Expand(PRK = K, info, L <= 32) = first L bytes of HMAC-SHA256(K, info || 0x01). */
    static byte[] hkdfExpand(byte[] prk, byte[] info, int length) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(prk, "HmacSHA256"));
            mac.update(info);
            mac.update((byte) 0x01);
            return Arrays.copyOf(mac.doFinal(), length);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] keyId(byte[] k) { return hkdfExpand(k, INFO_KID, 16); }
    static byte[] messageKey(byte[] k, byte[] salt) { return hkdfExpand(k, concat(INFO_MK, salt), 32); }
    static byte[] threadId(byte[] k) { return hkdfExpand(k, INFO_TID, 16); }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }

    // ------------------------------------------------------------ AEAD (RFC 8439 via JCE)

    // A fresh Cipher per call: SunJCE refuses to re-initialise one Cipher for encryption with the same key and nonce.
    static byte[] aeadSeal(byte[] key, byte[] aad, byte[] plaintext) {
        try {
            Cipher c = Cipher.getInstance("ChaCha20-Poly1305");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "ChaCha20"), new IvParameterSpec(new byte[12]));
            c.updateAAD(aad);
            return c.doFinal(plaintext); // ciphertext || tag
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Returns the plaintext, or null when the tag does not verify (JCE compares in constant time). */
    static byte[] aeadOpen(byte[] key, byte[] aad, byte[] ciphertextAndTag) {
        try {
            Cipher c = Cipher.getInstance("ChaCha20-Poly1305");
            c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "ChaCha20"), new IvParameterSpec(new byte[12]));
            c.updateAAD(aad);
            return c.doFinal(ciphertextAndTag);
        } catch (AEADBadTagException e) {
            return null;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------ strict base64url (SPEC §8)

    static final String B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    static int b64Value(char c) {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '-') return 62;
        if (c == '_') return 63;
        return -1;
    }

    static String b64urlEncode(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < b.length; i += 3) {
            int rem = Math.min(3, b.length - i);
            int n = (b[i] & 0xff) << 16;
            if (rem > 1) n |= (b[i + 1] & 0xff) << 8;
            if (rem > 2) n |= b[i + 2] & 0xff;
            for (int j = 0; j <= rem; j++) sb.append(B64.charAt((n >> (18 - 6 * j)) & 63));
        }
        return sb.toString();
    }

    /** Strict decode; null on any violation. (java.util.Base64 is lenient about trailing bits: not used.) */
    static byte[] b64urlDecode(String s) {
        int len = s.length();
        if (len % 4 == 1) return null;
        int[] v = new int[len];
        for (int i = 0; i < len; i++) {
            v[i] = b64Value(s.charAt(i));
            if (v[i] < 0) return null;
        }
        int rem = len % 4;
        if (rem == 2 && (v[len - 1] & 0x0f) != 0) return null;
        if (rem == 3 && (v[len - 1] & 0x03) != 0) return null;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < len; i += 4) {
            int g = Math.min(4, len - i);
            int n = 0;
            for (int j = 0; j < 4; j++) n = (n << 6) | (j < g ? v[i + j] : 0);
            for (int j = 0; j < g - 1; j++) out.write((n >> (16 - 8 * j)) & 0xff);
        }
        return out.toByteArray();
    }

    // ------------------------------------------------------------ strict JSON (SPEC §5.2)

    static final class JSONError extends Exception {
        private static final long serialVersionUID = 1L;

        JSONError(String m) { super(m); }
    }

    static final class JNum {
        final String raw;
        JNum(String raw) { this.raw = raw; }
    }

    enum JNull { INSTANCE }

    static final class JObj {
        final List<Map.Entry<String, Object>> pairs = new ArrayList<>();
        boolean hasDups;

        List<Object> getAll(String name) {
            List<Object> out = new ArrayList<>();
            for (Map.Entry<String, Object> e : pairs) if (e.getKey().equals(name)) out.add(e.getValue());
            return out;
        }

        Object get(String name) {
            for (Map.Entry<String, Object> e : pairs) if (e.getKey().equals(name)) return e.getValue();
            return null; // absent (JSON null is JNull.INSTANCE)
        }

        Set<String> dupNames() {
            Set<String> seen = new HashSet<>(), dups = new HashSet<>();
            for (Map.Entry<String, Object> e : pairs) if (!seen.add(e.getKey())) dups.add(e.getKey());
            return dups;
        }
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
            if (i + need >= n) return false; // truncated sequence
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

    static final Pattern NUMBER = Pattern.compile("-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?");

    static final class Parser {
        final String s;
        int i = 0;
        final boolean recordDups;
        final int maxDepth;

        Parser(String s, boolean recordDups, int maxDepth) {
            this.s = s;
            this.recordDups = recordDups;
            this.maxDepth = maxDepth;
        }

        JSONError fail(String m) { return new JSONError(m + " at offset " + i); }

        char peek() { return i < s.length() ? s.charAt(i) : '\0'; }

        void ws() {
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') i++;
                else break;
            }
        }

        Object value(int depth) throws JSONError {
            ws();
            if (i >= s.length()) throw fail("unexpected end");
            char c = s.charAt(i);
            if (c == '{') return obj(depth + 1);
            if (c == '[') return arr(depth + 1);
            if (c == '"') return string();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return JNull.INSTANCE; }
            Matcher m = NUMBER.matcher(s);
            m.region(i, s.length());
            if (m.lookingAt() && m.end() > i) {
                i = m.end();
                return new JNum(m.group());
            }
            throw fail("unexpected character");
        }

        JObj obj(int depth) throws JSONError {
            if (depth > maxDepth) throw fail("nesting too deep");
            i++;
            JObj o = new JObj();
            Set<String> names = new HashSet<>();
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
                o.pairs.add(Map.entry(name, value(depth)));
                ws();
                if (i < s.length() && s.charAt(i) == ',') { i++; continue; }
                if (i < s.length() && s.charAt(i) == '}') { i++; return o; }
                throw fail("expected ',' or '}'");
            }
        }

        List<Object> arr(int depth) throws JSONError {
            if (depth > maxDepth) throw fail("nesting too deep");
            i++;
            List<Object> items = new ArrayList<>();
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

        int hex4() throws JSONError {
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

        String string() throws JSONError {
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

    static Object parseJson(byte[] data, boolean recordDups) throws JSONError {
        if (!validUtf8(data)) throw new JSONError("invalid UTF-8");
        String text = new String(data, StandardCharsets.UTF_8); // safe: validated above (a BOM stays and is rejected)
        Parser p = new Parser(text, recordDups, MAX_DEPTH);
        Object v = p.value(0);
        p.ws();
        if (p.i != text.length()) throw p.fail("trailing data");
        return v;
    }

    /** Parsed JSON to plain Java (for the vector file): Map, List, String, Boolean, Long/BigInteger/Double, null. */
    static Object toPlain(Object v) {
        if (v instanceof JObj) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : ((JObj) v).pairs) m.put(e.getKey(), toPlain(e.getValue()));
            return m;
        }
        if (v instanceof List) {
            List<Object> out = new ArrayList<>();
            for (Object x : (List<?>) v) out.add(toPlain(x));
            return out;
        }
        if (v instanceof JNum) {
            String raw = ((JNum) v).raw;
            if (raw.matches("-?(0|[1-9][0-9]*)")) {
                BigInteger b = new BigInteger(raw);
                return b.bitLength() < 63 ? (Object) b.longValue() : b;
            }
            return Double.parseDouble(raw);
        }
        if (v == JNull.INSTANCE) return null;
        return v;
    }

    // ------------------------------------------------------------ content (SPEC §5)

    static final class ContentError extends Exception {
        private static final long serialVersionUID = 1L;

        ContentError(String m) { super(m); }
    }

    static final List<String> KNOWN = List.of("cid", "mid", "ts", "title", "subtitle", "body", "sender", "thread",
            "category", "badge", "trunc", "x");

    static final class Content {
        String cid, mid, title, subtitle, body, thread, category, senderId, senderName;
        long ts;
        Long badge;
        boolean trunc;
        List<Map.Entry<String, Object>> x;
        final List<String> unknown = new ArrayList<>();
    }

    static int utf8Len(String s) { return s.getBytes(StandardCharsets.UTF_8).length; }

    static boolean strBytes(Object v, int lo, int hi) {
        return v instanceof String && utf8Len((String) v) >= lo && utf8Len((String) v) <= hi;
    }

    static boolean intForm(Object v, BigInteger max) {
        if (!(v instanceof JNum)) return false;
        String raw = ((JNum) v).raw;
        return raw.length() <= 20 && raw.matches("0|[1-9][0-9]*") && new BigInteger(raw).compareTo(max) <= 0;
    }

    static Content validateContent(byte[] content) throws ContentError {
        if (content.length > MAX_CONTENT) throw new ContentError("content longer than 4000 bytes");
        Object root;
        try {
            root = parseJson(content, false);
        } catch (JSONError e) {
            throw new ContentError(e.getMessage());
        }
        if (!(root instanceof JObj)) throw new ContentError("top level is not an object");
        JObj f = (JObj) root;
        Content c = new Content();
        for (Map.Entry<String, Object> e : f.pairs) if (!KNOWN.contains(e.getKey())) c.unknown.add(e.getKey());
        if (!strBytes(f.get("cid"), 1, 256)) throw new ContentError("cid must be a string of 1-256 bytes");
        if (!strBytes(f.get("mid"), 1, 256)) throw new ContentError("mid must be a string of 1-256 bytes");
        c.cid = (String) f.get("cid");
        c.mid = (String) f.get("mid");
        if (!intForm(f.get("ts"), TS_MAX)) throw new ContentError("ts must be an integer 0...253402300799");
        c.ts = Long.parseLong(((JNum) f.get("ts")).raw);
        Object body = f.get("body"); // absent only in a content-free (wake-and-fetch) content, SPEC §9.5
        if (body != null) {
            if (!(body instanceof String)) throw new ContentError("body must be a string");
            c.body = (String) body;
        }
        for (String name : List.of("title", "subtitle")) {
            Object v = f.get(name);
            if (v == null) continue;
            if (!(v instanceof String)) throw new ContentError(name + " must be a string");
            if (name.equals("title")) c.title = (String) v; else c.subtitle = (String) v;
        }
        for (String name : List.of("thread", "category")) {
            Object v = f.get(name);
            if (v == null) continue;
            if (!strBytes(v, 1, 256)) throw new ContentError(name + " must be a string of 1-256 bytes");
            if (name.equals("thread")) c.thread = (String) v; else c.category = (String) v;
        }
        Object sender = f.get("sender");
        if (sender != null) {
            if (!(sender instanceof JObj)) throw new ContentError("sender must be an object");
            JObj so = (JObj) sender;
            if (!strBytes(so.get("id"), 1, 256)) throw new ContentError("sender.id must be a string of 1-256 bytes");
            c.senderId = (String) so.get("id");
            Object name = so.get("name");
            if (name != null) {
                if (!(name instanceof String)) throw new ContentError("sender.name must be a string");
                c.senderName = (String) name;
            }
        }
        Object badge = f.get("badge");
        if (badge != null) {
            if (!intForm(badge, BADGE_MAX)) throw new ContentError("badge must be an integer 0...2147483647");
            c.badge = Long.parseLong(((JNum) badge).raw);
        }
        Object trunc = f.get("trunc");
        if (trunc != null) {
            if (trunc != Boolean.TRUE) throw new ContentError("trunc must be true");
            c.trunc = true;
        }
        Object x = f.get("x");
        if (x != null) {
            if (!(x instanceof JObj)) throw new ContentError("x must be an object of strings");
            for (Map.Entry<String, Object> e : ((JObj) x).pairs) {
                if (!(e.getValue() instanceof String)) throw new ContentError("x must be an object of strings");
            }
            c.x = ((JObj) x).pairs;
        }
        return c;
    }

    /** Deterministic string encoding (SPEC §5.3). */
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
                    if (ch < 0x20) out.append(String.format("\\u%04x", (int) ch));
                    else out.append(ch);
            }
        }
        return out.append('"').toString();
    }

    static byte[] encodeContent(Content c) {
        List<String> parts = new ArrayList<>();
        parts.add("\"cid\":" + jsonString(c.cid));
        parts.add("\"mid\":" + jsonString(c.mid));
        parts.add("\"ts\":" + c.ts);
        if (c.title != null) parts.add("\"title\":" + jsonString(c.title));
        if (c.subtitle != null) parts.add("\"subtitle\":" + jsonString(c.subtitle));
        parts.add("\"body\":" + jsonString(c.body));
        if (c.senderId != null) {
            String s = "\"id\":" + jsonString(c.senderId);
            if (c.senderName != null) s += ",\"name\":" + jsonString(c.senderName);
            parts.add("\"sender\":{" + s + "}");
        }
        if (c.thread != null) parts.add("\"thread\":" + jsonString(c.thread));
        if (c.category != null) parts.add("\"category\":" + jsonString(c.category));
        if (c.badge != null) parts.add("\"badge\":" + c.badge);
        if (c.trunc) parts.add("\"trunc\":true");
        if (c.x != null) {
            List<Map.Entry<String, Object>> items = new ArrayList<>(c.x);
            items.sort((a, b) -> Arrays.compareUnsigned(a.getKey().getBytes(StandardCharsets.UTF_8),
                    b.getKey().getBytes(StandardCharsets.UTF_8)));
            List<String> xs = new ArrayList<>();
            for (Map.Entry<String, Object> e : items) xs.add(jsonString(e.getKey()) + ":" + jsonString((String) e.getValue()));
            parts.add("\"x\":{" + String.join(",", xs) + "}");
        }
        return ("{" + String.join(",", parts) + "}").getBytes(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------ padding (SPEC §6)

    static byte[] pad(byte[] content, int block) {
        if (block < 1) throw new IllegalArgumentException("pad block must be >= 1");
        int n = content.length + 1;
        int padded = ((n + block - 1) / block) * block;
        byte[] out = Arrays.copyOf(content, padded); // zero-filled
        out[content.length] = (byte) 0x80;
        return out;
    }

    static byte[] unpad(byte[] p) {
        int i = p.length - 1;
        while (i >= 0 && p[i] == 0) i--;
        if (i < 0 || (p[i] & 0xff) != 0x80) return null;
        return Arrays.copyOf(p, i);
    }

    // ------------------------------------------------------------ envelope (SPEC §7, §10)

    static String sealPadded(byte[] k, byte[] salt, byte[] plaintext) {
        if (k.length != 32 || salt.length != 24) throw new IllegalArgumentException("key must be 32 bytes and salt 24 bytes");
        byte[] header = concat(new byte[] {(byte) VERSION}, keyId(k), salt);
        byte[] env = concat(header, aeadSeal(messageKey(k, salt), header, plaintext));
        if (env.length > MAX_ENVELOPE) throw new IllegalArgumentException("envelope longer than 4096 bytes");
        return b64urlEncode(env);
    }

    /** The receiver's result: a reason code (null when decrypted), the content bytes, the duplicate flag. */
    public static final class Result {
        /** The reason code (SPEC §10.2), or null when decrypted. */
        public final String reason;
        /** The unpadded content JSON (UTF-8) when decrypted, else null. */
        public final byte[] content;
        /** True when (cid, mid) was already in the duplicate log. */
        public final boolean duplicate;

        Result(String reason, byte[] content, boolean duplicate) {
            this.reason = reason;
            this.content = content;
            this.duplicate = duplicate;
        }

        /** A fallback with this reason code. */
        public static Result fail(String reason) { return new Result(reason, null, false); }

        String describe() { return reason == null ? "valid" : "invalid/" + reason; }
    }

    /** What the key source answers: found (key + conversation), not found, or locked. */
    public static final class Lookup {
        /** "found", "not_found" or "locked". */
        public final String status;
        /** K when found. */
        public final byte[] key;
        /** The conversation K is stored for, when found. */
        public final String conversation;

        /** A lookup answer; use {@link #found}, {@link #NOT_FOUND} or {@link #LOCKED}. */
        public Lookup(String status, byte[] key, String conversation) {
            this.status = status;
            this.key = key;
            this.conversation = conversation;
        }

        /** The key was found. */
        public static Lookup found(byte[] key, String conversation) { return new Lookup("found", key, conversation); }
        /** No key with that id: unknown_key. */
        public static final Lookup NOT_FOUND = new Lookup("not_found", null, null);
        /** The store cannot be read now: store_locked. */
        public static final Lookup LOCKED = new Lookup("locked", null, null);
    }

    /** The receiver's key store: looks up the one key with this 16-byte id (never others). */
    public interface KeySource { Lookup lookup(byte[] kid); }

    /** The duplicate log: atomically records (cid, mid) and says whether it was already there. */
    public interface DuplicateLog { boolean seenBefore(String cid, String mid); }

    /** SPEC §10.1 plus the duplicate part of steps 1-2: returns a reason code, or null with holder[0] = value. */
    static String locate(byte[] payload, Object[] value) {
        Object root;
        try {
            root = parseJson(payload, true);
        } catch (JSONError e) {
            return "not_sealed";
        }
        if (!(root instanceof JObj)) return "not_sealed";
        JObj holder = (JObj) root;
        List<Object> members = holder.getAll("pushseal");
        if (members.isEmpty()) {
            List<Object> msgs = ((JObj) root).getAll("message");
            if (msgs.size() == 1 && msgs.get(0) instanceof JObj) {
                List<Object> datas = ((JObj) msgs.get(0)).getAll("data");
                if (datas.size() == 1 && datas.get(0) instanceof JObj) {
                    holder = (JObj) datas.get(0);
                    members = holder.getAll("pushseal");
                }
            }
        }
        if (members.isEmpty()) return "not_sealed";
        if (otherDups(root, holder)) return "not_sealed";
        if (members.size() > 1) return "malformed_envelope";
        value[0] = members.get(0);
        return null;
    }

    static boolean otherDups(Object v, JObj holder) {
        if (v instanceof JObj) {
            JObj o = (JObj) v;
            Set<String> d = o.dupNames();
            if (o == holder) d.remove("pushseal");
            if (!d.isEmpty()) return true;
            for (Map.Entry<String, Object> e : o.pairs) if (otherDups(e.getValue(), holder)) return true;
            return false;
        }
        if (v instanceof List) {
            for (Object x : (List<?>) v) if (otherDups(x, holder)) return true;
        }
        return false;
    }

    /** SPEC §10.2, in the exact order. */
    static Result openPayload(byte[] payload, KeySource keys, DuplicateLog log, long now, long maxAge, long maxFutureSkew) {
        Object[] value = new Object[1];
        String reason = locate(payload, value);                                   // step 1 (+ duplicate sealed member)
        if (reason != null) return Result.fail(reason);
        if (!(value[0] instanceof String)) return Result.fail("malformed_envelope"); // step 2
        return openWire((String) value[0], keys, log, now, maxAge, maxFutureSkew);
    }

    /**
     * SPEC §10.2 steps 2-11 for the value of the sealed member, e.g. an FCM data map's
     * {@code data.get("pushseal")} on Android. Never throws on bad input: every failure is a reason code.
     */
    public static Result openWire(String wire, KeySource keys, DuplicateLog log, long now, long maxAge, long maxFutureSkew) {
        if (wire.length() > MAX_WIRE_CHARS) return Result.fail("malformed_envelope");
        byte[] env = b64urlDecode(wire);
        if (env == null || env.length == 0) return Result.fail("malformed_envelope");
        if ((env[0] & 0xff) != VERSION) return Result.fail("unsupported_version");  // step 3
        if (env.length < MIN_ENVELOPE || env.length > MAX_ENVELOPE) return Result.fail("malformed_envelope"); // step 4
        byte[] header = Arrays.copyOfRange(env, 0, HEADER_LEN);
        byte[] kid = Arrays.copyOfRange(env, 1, 17);
        byte[] salt = Arrays.copyOfRange(env, 17, HEADER_LEN);
        Lookup found = keys.lookup(kid);
        if (found.status.equals("not_found")) return Result.fail("unknown_key");  // step 5
        if (!found.status.equals("found")) return Result.fail("store_locked");    // step 6
        byte[] p = aeadOpen(messageKey(found.key, salt), header, Arrays.copyOfRange(env, HEADER_LEN, env.length)); // step 7
        if (p == null) return Result.fail("authentication_failed");
        byte[] content = unpad(p);                                                // step 8
        if (content == null) return Result.fail("malformed_content");
        Content c;
        try {
            c = validateContent(content);
        } catch (ContentError e) {
            return Result.fail("malformed_content");
        }
        if (!Arrays.equals(c.cid.getBytes(StandardCharsets.UTF_8), found.conversation.getBytes(StandardCharsets.UTF_8))) {
            return Result.fail("conversation_mismatch");                          // step 9
        }
        if (now - c.ts > maxAge || c.ts - now > maxFutureSkew) return Result.fail("stale"); // step 10
        return new Result(null, content, log.seenBefore(c.cid, c.mid));           // step 11
    }

    // ------------------------------------------------------------ vector runner (SPEC §12)

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

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(String.format("%02x", x & 0xff));
        return sb.toString();
    }

    static long longField(Map<String, Object> t, String name) throws CaseError {
        Object v = t.get(name);
        if (!(v instanceof Long)) throw new CaseError(name + " must be an integer");
        return (Long) v;
    }

    static boolean boolField(Map<String, Object> t, String name) throws CaseError {
        Object v = t.get(name);
        if (!(v instanceof Boolean)) throw new CaseError(name + " must be a boolean");
        return (Boolean) v;
    }

    static List<String> runCase(Map<String, Object> t) throws CaseError {
        List<String> errs = new ArrayList<>();
        byte[] key = hexField(t, "key", 32, false);
        byte[] kid = hexField(t, "kid", 16, false);
        if (!(t.get("conversation") instanceof String)) throw new CaseError("conversation must be a string");
        String conversation = (String) t.get("conversation");
        Object store = t.get("keyStore");
        if (!"available".equals(store) && !"locked".equals(store)) throw new CaseError("keyStore must be available or locked");
        boolean previouslySeen = boolField(t, "previouslySeen");
        long now = longField(t, "now"), maxAge = longField(t, "maxAge"), skew = longField(t, "maxFutureSkew");
        Object result = t.get("result");
        Object reason = t.get("reason");
        boolean duplicate = boolField(t, "duplicate");
        boolean resealable = boolField(t, "resealable");
        if (!"valid".equals(result) && !"invalid".equals(result)) throw new CaseError("result must be valid or invalid");
        if ("valid".equals(result) != (reason == null)) throw new CaseError("result and reason disagree");
        if (reason != null && !REASONS.contains(reason)) throw new CaseError("unknown reason code " + reason);
        byte[] sealKey = hexField(t, "sealKey", 32, true);
        byte[] salt = hexField(t, "salt", 24, true);
        byte[] mk = hexField(t, "messageKey", 32, true);
        byte[] contentHex = hexField(t, "contentHex", -1, true);
        byte[] plaintextHex = hexField(t, "plaintextHex", -1, true);
        Object padBlock = t.get("padBlock");

        byte[] derivedKid = keyId(key);
        if (!Arrays.equals(derivedKid, kid)) errs.add("kid: derived " + hex(derivedKid) + " != vector " + hex(kid));
        boolean locked = "locked".equals(store);
        KeySource keys = want -> !Arrays.equals(want, derivedKid) ? new Lookup("not_found", null, null)
                : locked ? new Lookup("locked", null, null) : new Lookup("found", key, conversation);
        String want = "valid".equals(result) ? "valid" : "invalid/" + reason;
        for (String label : List.of("payload", "fcm")) {
            Object text = t.get(label);
            if (text == null) {
                if (label.equals("payload")) throw new CaseError("payload missing");
                continue;
            }
            if (!(text instanceof String)) throw new CaseError(label + " must be a string");
            Result r = openPayload(((String) text).getBytes(StandardCharsets.UTF_8), keys, (c, m) -> previouslySeen, now, maxAge, skew);
            String got = r.describe();
            if (!got.equals(want)) errs.add(label + ": expected " + want + ", got " + got);
            else if (r.reason == null) {
                if (r.duplicate != duplicate) errs.add(label + ": expected duplicate=" + duplicate + ", got " + r.duplicate);
                if (contentHex == null || !Arrays.equals(r.content, contentHex)) {
                    errs.add(label + ": decrypted content " + hex(r.content) + " != contentHex");
                }
            } else if (duplicate) errs.add(label + ": invalid case expects duplicate=true");
        }
        if (mk != null && sealKey != null && salt != null) {
            byte[] d = messageKey(sealKey, salt);
            if (!Arrays.equals(d, mk)) errs.add("messageKey: derived " + hex(d) + " != vector " + hex(mk));
        }
        if (resealable) {
            Object wire = t.get("wire");
            if (sealKey == null || salt == null || plaintextHex == null || !(wire instanceof String)) {
                errs.add("resealable case lacks sealKey/salt/plaintextHex/wire");
            } else {
                try {
                    String w = sealPadded(sealKey, salt, plaintextHex);
                    if (!w.equals(wire)) errs.add("reseal: got " + w + " != wire " + wire);
                } catch (IllegalArgumentException e) {
                    errs.add("reseal: " + e.getMessage());
                }
            }
        }
        if ("valid".equals(result) && padBlock != null) {
            if (!(padBlock instanceof Long) || (Long) padBlock < 1 || (Long) padBlock > Integer.MAX_VALUE) {
                throw new CaseError("padBlock must be a positive integer");
            }
            if (contentHex == null || plaintextHex == null) errs.add("valid case with padBlock lacks contentHex/plaintextHex");
            else if (!Arrays.equals(pad(contentHex, (int) (long) (Long) padBlock), plaintextHex)) {
                errs.add("pad(contentHex, " + padBlock + ") != plaintextHex");
            }
        }
        Object content = t.get("content");
        if (content instanceof String && contentHex != null
                && !Arrays.equals(((String) content).getBytes(StandardCharsets.UTF_8), contentHex)) {
            errs.add("content string != contentHex");
        }
        return errs;
    }

    static Path defaultVectorPath() {
        Path dir = Paths.get("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            Path candidate = d.resolve("Vectors").resolve("pushseal-v1.json");
            if (Files.isRegularFile(candidate)) return candidate;
        }
        return dir.resolve("Vectors").resolve("pushseal-v1.json");
    }

    @SuppressWarnings("unchecked")
    static int runVectors(Path path) {
        byte[] raw;
        try {
            raw = Files.readAllBytes(path);
        } catch (IOException e) {
            ERR.println("PushSealPort: error: cannot read " + path + ": " + e);
            OUT.println("0 passed, 1 failed");
            return 1;
        }
        Object doc;
        try {
            doc = toPlain(parseJson(raw, false));
        } catch (JSONError e) {
            ERR.println("PushSealPort: error: " + path + " is not strict JSON: " + e.getMessage());
            OUT.println("0 passed, 1 failed");
            return 1;
        }
        List<String> fileErrors = new ArrayList<>();
        Map<String, Object> d = doc instanceof Map ? (Map<String, Object>) doc : Map.of();
        if (!"pushseal_v1_test_schema".equals(d.get("schema")) || !Long.valueOf(1).equals(d.get("schemaVersion"))) {
            fileErrors.add("file: schema is not pushseal_v1_test_schema version 1");
        }
        List<Object> tests = d.get("tests") instanceof List ? (List<Object>) d.get("tests") : List.of();
        if (!Long.valueOf(tests.size()).equals(d.get("numberOfTests"))) {
            fileErrors.add("file: numberOfTests " + d.get("numberOfTests") + " != " + tests.size() + " cases");
        }
        Set<Object> ids = new HashSet<>();
        for (Object t : tests) {
            if (t instanceof Map && !ids.add(((Map<String, Object>) t).get("tcId"))) {
                fileErrors.add("file: duplicate tcId " + ((Map<String, Object>) t).get("tcId"));
            }
        }
        int passed = 0, failed = 0;
        for (Object o : tests) {
            Object tc = o instanceof Map ? ((Map<String, Object>) o).get("tcId") : "?";
            List<String> errs;
            try {
                if (!(o instanceof Map)) throw new CaseError("case is not an object");
                errs = runCase((Map<String, Object>) o);
            } catch (CaseError | RuntimeException e) {
                errs = List.of("malformed case: " + e.getMessage());
            }
            if (errs.isEmpty()) passed++;
            else {
                failed++;
                for (String e : errs) OUT.println("FAIL tcId " + tc + ": " + e);
            }
        }
        for (String e : fileErrors) OUT.println("FAIL " + e);
        failed += fileErrors.size();
        if (tests.isEmpty()) {
            OUT.println("FAIL file: no test cases found");
            failed++;
        }
        OUT.println(passed + " passed, " + failed + " failed");
        return failed == 0 && passed > 0 ? 0 : 1;
    }

    // ------------------------------------------------------------ CLI (round trips with `pushseal`)

    static final class Usage extends Exception {
        private static final long serialVersionUID = 1L;

        Usage(String m) { super(m); }
    }

    static Map<String, String> options(String[] argv, int from, List<String> names, List<String> flags) throws Usage {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = from; i < argv.length; ) {
            String a = argv[i];
            if (flags.contains(a)) { opts.put(a, "true"); i++; }
            else if (names.contains(a) && i + 1 < argv.length) { opts.put(a, argv[i + 1]); i += 2; }
            else throw new Usage("unexpected argument '" + a + "'");
        }
        return opts;
    }

    static long longOpt(Map<String, String> opts, String name, long dflt) throws Usage {
        String v = opts.get(name);
        if (v == null) return dflt;
        if (!v.matches("-?[0-9]{1,18}")) throw new Usage(name + " needs an integer");
        return Long.parseLong(v);
    }

    static byte[] keyOpt(Map<String, String> opts, String name, int length) throws Usage {
        String v = opts.get(name);
        if (v == null) throw new Usage(name + " is required");
        byte[] b = b64urlDecode(v);
        if (b == null || b.length != length) throw new Usage(name + " must be " + length + " bytes in base64url without padding");
        return b;
    }

    static String placeholder(byte[] payload) {
        String title = null, body = "New message";
        try {
            Object root = parseJson(payload, true);
            Object aps = root instanceof JObj ? ((JObj) root).get("aps") : null;
            Object alert = aps instanceof JObj ? ((JObj) aps).get("alert") : null;
            if (alert instanceof String) body = (String) alert;
            else if (alert instanceof JObj) {
                if (((JObj) alert).get("title") instanceof String) title = (String) ((JObj) alert).get("title");
                if (((JObj) alert).get("body") instanceof String) body = (String) ((JObj) alert).get("body");
            }
        } catch (JSONError e) {
            // keep the defaults
        }
        return "{" + (title != null ? "\"title\":" + jsonString(title) + "," : "") + "\"body\":" + jsonString(body) + "}";
    }

    static int cliOpen(String[] argv) throws Usage, IOException {
        Map<String, String> opts = options(argv, 1, List.of("--key", "--conversation", "--now", "--max-age", "--max-future-skew"), List.of());
        byte[] key = keyOpt(opts, "--key", 32);
        String conversation = opts.get("--conversation");
        if (conversation == null) throw new Usage("--conversation is required");
        long now = longOpt(opts, "--now", System.currentTimeMillis() / 1000);
        long maxAge = longOpt(opts, "--max-age", DEFAULT_MAX_AGE);
        long skew = longOpt(opts, "--max-future-skew", DEFAULT_MAX_FUTURE_SKEW);
        byte[] payload = System.in.readAllBytes();
        byte[] kid = keyId(key);
        Result r = openPayload(payload, want -> Arrays.equals(want, kid) ? new Lookup("found", key, conversation)
                : new Lookup("not_found", null, null), (c, m) -> false, now, maxAge, skew);
        if (r.reason == null) {
            OUT.println("{\"outcome\":\"decrypted\",\"reason\":null,\"duplicate\":" + r.duplicate + ",\"content\":"
                    + new String(r.content, StandardCharsets.UTF_8) + "}");
            return 0;
        }
        OUT.println("{\"outcome\":\"fallback\",\"reason\":\"" + r.reason + "\",\"duplicate\":false,\"content\":" + placeholder(payload) + "}");
        return 3;
    }

    static int cliSeal(String[] argv) throws Usage, IOException {
        Map<String, String> opts = options(argv, 1, List.of("--key", "--salt", "--pad-block"), List.of("--apns"));
        byte[] key = keyOpt(opts, "--key", 32);
        byte[] salt;
        if (opts.containsKey("--salt")) salt = keyOpt(opts, "--salt", 24);
        else {
            salt = new byte[24];
            new SecureRandom().nextBytes(salt);
        }
        long block = longOpt(opts, "--pad-block", DEFAULT_PAD_BLOCK);
        if (block < 1 || block > 4096) throw new Usage("--pad-block must be 1...4096");
        byte[] input = System.in.readAllBytes();
        int end = input.length;
        while (end > 0 && input[end - 1] == '\n') end--;
        Content c;
        try {
            c = validateContent(Arrays.copyOf(input, end));
        } catch (ContentError e) {
            ERR.println("PushSealPort: error: invalid content: " + e.getMessage());
            return 1;
        }
        if (!c.unknown.isEmpty()) ERR.println("PushSealPort: warning: dropping unknown members " + c.unknown);
        byte[] content = encodeContent(c);
        if (content.length > MAX_CONTENT) {
            ERR.println("PushSealPort: error: content longer than 4000 bytes");
            return 1;
        }
        String wire;
        try {
            wire = sealPadded(key, salt, pad(content, (int) block));
        } catch (IllegalArgumentException e) {
            ERR.println("PushSealPort: error: " + e.getMessage());
            return 1;
        }
        if (opts.containsKey("--apns")) {
            OUT.println("{\"aps\":{\"alert\":{\"body\":\"New message\"},\"mutable-content\":1,\"thread-id\":\""
                    + b64urlEncode(threadId(key)) + "\"},\"pushseal\":\"" + wire + "\"}");
        } else OUT.println(wire);
        return 0;
    }

    static int run(String[] argv) throws IOException {
        try {
            if (argv.length > 0 && argv[0].equals("open")) return cliOpen(argv);
            if (argv.length > 0 && argv[0].equals("seal")) return cliSeal(argv);
            if (argv.length > 0 && (argv[0].equals("-h") || argv[0].equals("--help"))) {
                OUT.println("usage: java PushSealPort [VECTOR_FILE] | open --key K --conversation CID [--now T] | seal --key K [--salt S] [--pad-block N] [--apns]");
                return 0;
            }
            if (argv.length > 1) throw new Usage("expected at most one vector file");
            return runVectors(argv.length == 1 ? Paths.get(argv[0]) : defaultVectorPath());
        } catch (Usage e) {
            ERR.println("PushSealPort: error: " + e.getMessage());
            ERR.println("hint: java PushSealPort --help");
            return 64;
        }
    }

    public static void main(String[] argv) throws IOException {
        int rc = run(argv);
        OUT.flush();
        System.exit(rc);
    }
}
