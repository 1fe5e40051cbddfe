package dev.pushseal;

/** A decrypted payload: the content, its exact bytes, and the duplicate flag. */
public final class Opened {
    public final Content content;
    private final byte[] contentBytes;
    public final boolean duplicate;
    /** (cid, mid) was delivered before with a different envelope (always with {@link #duplicate}). */
    public final boolean conflict;

    Opened(Content content, byte[] contentBytes, boolean duplicate, boolean conflict) {
        this.content = content;
        this.contentBytes = contentBytes;
        this.duplicate = duplicate;
        this.conflict = conflict;
    }

    /** The decrypted content bytes (a copy). */
    public byte[] contentBytes() { return contentBytes.clone(); }

    /** A content-free notification (no body): fetch the message by (cid, mid). */
    public boolean requiresFetch() { return content.requiresFetch(); }

    /** The provider shortened the body ({@code trunc}); the body, even empty, is still shown. */
    public boolean truncated() { return content.trunc; }
}
