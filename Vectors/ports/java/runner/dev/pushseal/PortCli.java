package dev.pushseal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Open and seal from the command line (round trips with the {@code pushseal} tool; not part of
 * the library jar):
 * <pre>
 * java -cp pushseal.jar:runner dev.pushseal.PortCli open --key K --conversation CID [--now T] [--max-age S] [--max-future-skew S] &lt; payload
 * java -cp pushseal.jar:runner dev.pushseal.PortCli seal --key K [--salt S] [--pad-block N] [--apns | --fcm TOKEN] &lt; content
 * java -cp pushseal.jar:runner dev.pushseal.PortCli --version
 * </pre>
 * Keys and salts are base64url without padding; --salt is for test vectors only.
 */
public final class PortCli {
    private PortCli() {}

    static final PrintStream OUT = VectorRunner.utf8(java.io.FileDescriptor.out);
    static final PrintStream ERR = VectorRunner.utf8(java.io.FileDescriptor.err);

    static final class Usage extends Exception {
        private static final long serialVersionUID = 1L;

        Usage(String m) { super(m); }
    }

    static Map<String, String> options(String[] argv, List<String> names, List<String> flags) throws Usage {
        Map<String, String> opts = new LinkedHashMap<String, String>();
        for (int i = 1; i < argv.length; ) {
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

    static byte[] bytesOpt(Map<String, String> opts, String name, int length) throws Usage {
        String v = opts.get(name);
        if (v == null) throw new Usage(name + " is required");
        byte[] b = Wire.b64urlDecode(v);
        if (b == null || b.length != length) throw new Usage(name + " must be " + length + " bytes in base64url without padding");
        return b;
    }

    static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        for (int n; (n = in.read(buf)) > 0; ) out.write(buf, 0, n);
        return out.toByteArray();
    }

    static String placeholder(byte[] payload) {
        String title = null, body = "New message";
        try {
            Object root = StrictJson.parse(payload, true, StrictJson.MAX_DEPTH);
            Object aps = root instanceof StrictJson.Obj ? ((StrictJson.Obj) root).get("aps") : null;
            Object alert = aps instanceof StrictJson.Obj ? ((StrictJson.Obj) aps).get("alert") : null;
            if (alert instanceof String) body = (String) alert;
            else if (alert instanceof StrictJson.Obj) {
                if (((StrictJson.Obj) alert).get("title") instanceof String) title = (String) ((StrictJson.Obj) alert).get("title");
                if (((StrictJson.Obj) alert).get("body") instanceof String) body = (String) ((StrictJson.Obj) alert).get("body");
            }
        } catch (StrictJson.JsonException e) {
            // keep the defaults
        }
        return "{" + (title != null ? "\"title\":" + Content.jsonString(title) + "," : "") + "\"body\":" + Content.jsonString(body) + "}";
    }

    static int open(String[] argv) throws Usage, IOException {
        Map<String, String> opts = options(argv, Arrays.asList("--key", "--conversation", "--now", "--max-age", "--max-future-skew"),
                Arrays.<String>asList());
        byte[] key = bytesOpt(opts, "--key", 32);
        String conversation = opts.get("--conversation");
        if (conversation == null) throw new Usage("--conversation is required");
        final long now = longOpt(opts, "--now", System.currentTimeMillis() / 1000);
        Receiver receiver = new Receiver(new SingleKeySource(key, conversation), longOpt(opts, "--max-age", Receiver.DEFAULT_MAX_AGE),
                longOpt(opts, "--max-future-skew", Receiver.DEFAULT_MAX_FUTURE_SKEW), new Receiver.Clock() {
                    @Override public long now() { return now; }
                }, null);
        byte[] payload = readAll(System.in);
        try {
            Opened opened = receiver.open(payload);
            OUT.println("{\"outcome\":\"decrypted\",\"reason\":null,\"duplicate\":" + opened.duplicate + ",\"content\":"
                    + new String(opened.contentBytes(), StandardCharsets.UTF_8) + "}");
            return 0;
        } catch (PushSealException e) {
            OUT.println("{\"outcome\":\"fallback\",\"reason\":\"" + e.getCode() + "\",\"duplicate\":false,\"content\":" + placeholder(payload) + "}");
            return 3;
        }
    }

    static int seal(String[] argv) throws Usage, IOException {
        Map<String, String> opts = options(argv, Arrays.asList("--key", "--salt", "--pad-block", "--fcm"), Arrays.asList("--apns"));
        byte[] key = bytesOpt(opts, "--key", 32);
        byte[] salt = opts.containsKey("--salt") ? bytesOpt(opts, "--salt", 24) : null;
        byte[] input = readAll(System.in);
        int end = input.length;
        while (end > 0 && input[end - 1] == '\n') end--;
        input = Arrays.copyOf(input, end);
        try {
            List<String> unknown = Content.unknownMembers(input);
            Content content = Content.decode(input, Integer.MAX_VALUE);
            if (!unknown.isEmpty()) ERR.println("PortCli: warning: dropping unknown members " + unknown);
            Sealer sealer = new Sealer((int) longOpt(opts, "--pad-block", Sealer.DEFAULT_PAD_BLOCK));
            SealedPayload sealed = opts.containsKey("--fcm")
                    ? sealer.sealFCM(content, key, new FCMOptions(opts.get("--fcm")), salt)
                    : sealer.sealAPNs(content, key, new APNsOptions(), salt);
            OUT.println(opts.containsKey("--apns") || opts.containsKey("--fcm") ? sealed.text() : sealed.wire);
            return 0;
        } catch (StrictJson.JsonException e) {
            ERR.println("PortCli: error: invalid content: " + e.getMessage());
            return 1;
        } catch (PushSealException e) {
            ERR.println("PortCli: error: " + e.getMessage());
            return 1;
        }
    }

    public static void main(String[] argv) throws IOException {
        int rc;
        try {
            if (argv.length > 0 && argv[0].equals("open")) rc = open(argv);
            else if (argv.length > 0 && argv[0].equals("seal")) rc = seal(argv);
            else if (argv.length > 0 && argv[0].equals("--version")) { OUT.println(PushSeal.VERSION); rc = 0; }
            else throw new Usage("expected open, seal or --version");
        } catch (Usage e) {
            ERR.println("PortCli: error: " + e.getMessage());
            ERR.println("hint: see the class comment of dev.pushseal.PortCli");
            rc = 64;
        }
        OUT.flush();
        System.exit(rc);
    }
}
