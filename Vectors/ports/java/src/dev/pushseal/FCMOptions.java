package dev.pushseal;

/** An FCM HTTP v1 data message for one registration token. */
public final class FCMOptions {
    final String token, priority, keyBundle;
    final long ttl;

    /** High priority, the longest time to live (28 days). */
    public FCMOptions(String token) { this(token, "high", 2419200L); }

    /** {@code priority}: {@code high} or {@code normal}; {@code ttl}: 0...2419200 seconds. */
    public FCMOptions(String token, String priority, long ttl) { this(token, priority, ttl, null); }

    private FCMOptions(String token, String priority, long ttl, String keyBundle) {
        this.token = token;
        this.priority = priority;
        this.ttl = ttl;
        this.keyBundle = keyBundle;
    }

    /** A key bundle's text carried in band as the data member {@code "pushseal-bundle"} (SPEC §16.7), counted first by the size policy; null: none. */
    public FCMOptions withKeyBundle(String bundle) { return new FCMOptions(token, priority, ttl, bundle); }

    void validate() throws PushSealException {
        boolean ok = token != null && !token.isEmpty() && token.length() <= 4096;
        for (int i = 0; ok && i < token.length(); i++) {
            char c = token.charAt(i);
            ok = c >= 0x21 && c <= 0x7e && c != '"' && c != '\\';
        }
        if (!ok) throw PushSealException.seal("invalid_fcm_token", "1 to 4096 bytes of visible ASCII other than '\"' and '\\'");
        if (!"high".equals(priority) && !"normal".equals(priority)) throw PushSealException.seal("invalid_option", "priority must be high or normal");
        if (ttl < 0 || ttl > 2419200L) throw PushSealException.seal("invalid_option", "ttl must be 0 to 2419200 seconds");
    }
}
