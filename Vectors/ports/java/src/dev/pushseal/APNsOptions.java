package dev.pushseal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The visible parts of an APNs body (everything here is visible to Apple; never put message
 * content in it). Immutable; {@code with…} methods return changed copies.
 */
public final class APNsOptions {
    String title, body = "New message", locKey, titleLocKey;
    List<String> locArgs = Collections.emptyList(), titleLocArgs = Collections.emptyList();
    String sound, category, interruptionLevel, plainThreadId;
    boolean opaqueThreadId = true;
    Double relevanceScore;
    String keyBundle;

    /** Placeholder {@code New message}, opaque thread-id, nothing else. */
    public APNsOptions() {}

    private APNsOptions copy() {
        APNsOptions o = new APNsOptions();
        o.title = title; o.body = body; o.locKey = locKey; o.titleLocKey = titleLocKey; o.locArgs = locArgs;
        o.titleLocArgs = titleLocArgs; o.sound = sound; o.category = category; o.interruptionLevel = interruptionLevel;
        o.plainThreadId = plainThreadId; o.opaqueThreadId = opaqueThreadId; o.relevanceScore = relevanceScore;
        o.keyBundle = keyBundle;
        return o;
    }

    /** A plain-text placeholder ({@code title} null: none). */
    public APNsOptions withPlaceholder(String title, String body) {
        APNsOptions o = copy(); o.title = title; o.body = body; o.locKey = null; return o;
    }

    /** A localized placeholder ({@code titleLocKey} null: none). */
    public APNsOptions withLocalizedPlaceholder(String titleLocKey, List<String> titleLocArgs, String locKey, List<String> locArgs) {
        APNsOptions o = copy();
        o.titleLocKey = titleLocKey; o.locKey = locKey; o.body = null; o.title = null;
        o.titleLocArgs = Collections.unmodifiableList(new ArrayList<String>(titleLocArgs));
        o.locArgs = Collections.unmodifiableList(new ArrayList<String>(locArgs));
        return o;
    }

    public APNsOptions withSound(String v) { APNsOptions o = copy(); o.sound = v; return o; }
    public APNsOptions withCategory(String v) { APNsOptions o = copy(); o.category = v; return o; }
    /** {@code passive}, {@code active}, {@code time-sensitive} or {@code critical}. */
    public APNsOptions withInterruptionLevel(String v) { APNsOptions o = copy(); o.interruptionLevel = v; return o; }
    /** 0...1, written with at most three decimals. */
    public APNsOptions withRelevanceScore(Double v) { APNsOptions o = copy(); o.relevanceScore = v; return o; }
    /** No thread-id member. */
    /** A key bundle's text carried in band as the top-level {@code "pushseal-bundle"} member (SPEC §16.7), counted first by the size policy; null: none. */
    public APNsOptions withKeyBundle(String bundle) { APNsOptions o = copy(); o.keyBundle = bundle; return o; }
    /** Omit {@code thread-id}. */
    public APNsOptions withoutThreadId() { APNsOptions o = copy(); o.opaqueThreadId = false; o.plainThreadId = null; return o; }
    /** This exact thread-id (visible to Apple: never a conversation id). */
    public APNsOptions withPlainThreadId(String v) { APNsOptions o = copy(); o.opaqueThreadId = false; o.plainThreadId = v; return o; }

    void validate() throws PushSealException {
        if (locKey != null || titleLocKey != null) {
            if (locKey == null || locKey.isEmpty()) throw PushSealException.seal("missing_placeholder", "the placeholder has no loc-key");
            if ("".equals(titleLocKey)) throw PushSealException.seal("invalid_placeholder", "empty title-loc-key (use null for no title)");
            if (titleLocKey == null && !titleLocArgs.isEmpty()) throw PushSealException.seal("invalid_placeholder", "title-loc-args given without a title-loc-key");
        } else {
            if (body == null || body.isEmpty()) throw PushSealException.seal("missing_placeholder", "the placeholder has no text");
            if ("".equals(title)) throw PushSealException.seal("invalid_placeholder", "empty title (use null for no title)");
        }
        if ("".equals(sound) || "".equals(category)) throw PushSealException.seal("invalid_option", "empty sound or category (use null for none)");
        if (interruptionLevel != null && !Arrays.asList("passive", "active", "time-sensitive", "critical").contains(interruptionLevel)) {
            throw PushSealException.seal("invalid_option", "interruption-level must be passive, active, time-sensitive or critical");
        }
        if (relevanceScore != null && !(relevanceScore >= 0 && relevanceScore <= 1)) {
            throw PushSealException.seal("invalid_option", "relevance-score must be a number from 0 to 1");
        }
        if (!opaqueThreadId && "".equals(plainThreadId)) throw PushSealException.seal("invalid_option", "thread-id: empty (use withoutThreadId)");
    }

    static String relevanceScoreText(double score) {
        double x = score * 1000;
        double whole = Math.floor(x);
        long thousandths = (long) (x - whole >= 0.5 ? whole + 1 : whole);
        if (thousandths <= 0) return "0";
        if (thousandths >= 1000) return "1";
        String digits = String.valueOf(thousandths);
        while (digits.length() < 3) digits = "0" + digits;
        while (digits.endsWith("0")) digits = digits.substring(0, digits.length() - 1);
        return "0." + digits;
    }

    private static void array(StringBuilder s, List<String> items) {
        s.append('[');
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) s.append(',');
            s.append(Content.jsonString(items.get(i)));
        }
        s.append(']');
    }

    String prefix(byte[] key) {
        StringBuilder s = new StringBuilder("{\"aps\":{\"alert\":{");
        if (locKey != null) {
            if (titleLocKey != null) {
                s.append("\"title-loc-key\":").append(Content.jsonString(titleLocKey));
                if (!titleLocArgs.isEmpty()) { s.append(",\"title-loc-args\":"); array(s, titleLocArgs); }
                s.append(',');
            }
            s.append("\"loc-key\":").append(Content.jsonString(locKey));
            if (!locArgs.isEmpty()) { s.append(",\"loc-args\":"); array(s, locArgs); }
        } else {
            if (title != null) s.append("\"title\":").append(Content.jsonString(title)).append(',');
            s.append("\"body\":").append(Content.jsonString(body));
        }
        s.append("},\"mutable-content\":1");
        if (sound != null) s.append(",\"sound\":").append(Content.jsonString(sound));
        if (opaqueThreadId) s.append(",\"thread-id\":\"").append(Wire.b64urlEncode(Wire.threadId(key))).append('"');
        else if (plainThreadId != null) s.append(",\"thread-id\":").append(Content.jsonString(plainThreadId));
        if (category != null) s.append(",\"category\":").append(Content.jsonString(category));
        if (interruptionLevel != null) s.append(",\"interruption-level\":").append(Content.jsonString(interruptionLevel));
        if (relevanceScore != null) s.append(",\"relevance-score\":").append(relevanceScoreText(relevanceScore));
        return s.append("},\"pushseal\":\"").toString();
    }
}
