package dev.pushseal;

import java.nio.charset.StandardCharsets;

/** A payload ready to send, with its size-policy path and exact sizes. */
public final class SealedPayload {
    /** {@code complete}, {@code truncated} or {@code content_free}. */
    public final String path;
    /** The wire string (base64url of the envelope). */
    public final String wire;
    /** The content that was sealed (after the size policy). */
    public final Content content;
    /** Sizes: content, padded plaintext, envelope, wire, payload, bytes counted against the limit, the limit. */
    public final int contentBytes, paddedBytes, envelopeBytes, wireLength, payloadBytes, limitedBytes, limit;
    private final byte[] body;

    SealedPayload(byte[] body, String path, String wire, Content content, int[] sizes) {
        this.body = body;
        this.path = path;
        this.wire = wire;
        this.content = content;
        contentBytes = sizes[0]; paddedBytes = sizes[1]; envelopeBytes = sizes[2]; wireLength = sizes[3];
        payloadBytes = sizes[4]; limitedBytes = sizes[5]; limit = sizes[6];
    }

    /** The request body (a copy). */
    public byte[] body() { return body.clone(); }

    /** The request body as text. */
    public String text() { return new String(body, StandardCharsets.UTF_8); }
}
