package dev.pushseal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The registration a device sends to its backend next to its push token (SPEC §16.1):
 * {@code {"suite":"pushseal-v1-x25519","deviceKeyId":…,"publicKey":…}}.
 */
public final class DeviceRegistration {
    private DeviceRegistration() {}

    /** The suite string. */
    public static final String SUITE = "pushseal-v1-x25519";

    /** The registration JSON of a device public key (32 bytes). */
    public static String of(byte[] devicePublicKey) {
        if (devicePublicKey.length != 32) throw new IllegalArgumentException("the device public key must be 32 bytes");
        return "{\"suite\":\"" + SUITE + "\",\"deviceKeyId\":\"" + Wire.b64urlEncode(KeyBundle.deviceKeyId(devicePublicKey))
                + "\",\"publicKey\":\"" + Wire.b64urlEncode(devicePublicKey) + "\"}";
    }

    /**
     * The device public key of a registration, for a backend that seals bundles to it. Throws
     * IllegalArgumentException (its message says why) unless it is a strict JSON object whose
     * suite is {@link #SUITE}, whose publicKey is 32 bytes of strict base64url and whose
     * deviceKeyId is that key's device key id (other members are ignored).
     */
    public static byte[] publicKey(String registration) {
        Object root;
        try {
            root = StrictJson.parse(registration.getBytes(StandardCharsets.UTF_8));
        } catch (StrictJson.JsonException e) {
            throw new IllegalArgumentException("registration: not strict JSON: " + e.getMessage());
        }
        if (!(root instanceof StrictJson.Obj)) throw new IllegalArgumentException("registration: not a JSON object");
        StrictJson.Obj obj = (StrictJson.Obj) root;
        if (!SUITE.equals(obj.get("suite"))) throw new IllegalArgumentException("registration: suite is not " + SUITE);
        Object text = obj.get("publicKey"), idText = obj.get("deviceKeyId");
        byte[] pk = text instanceof String ? Wire.b64urlDecode((String) text) : null;
        if (pk == null || pk.length != 32) throw new IllegalArgumentException("registration: publicKey is not 32 bytes of strict base64url");
        byte[] id = idText instanceof String ? Wire.b64urlDecode((String) idText) : null;
        if (id == null || !MessageDigest.isEqual(id, KeyBundle.deviceKeyId(pk))) {
            throw new IllegalArgumentException("registration: deviceKeyId is not the device key id of publicKey");
        }
        return pk;
    }
}
