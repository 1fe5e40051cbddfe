package dev.pushseal;

/**
 * Extended grapheme cluster boundaries (Unicode UAX #29, rules GB3-GB13 including GB9c), on the
 * table in {@link GraphemeData}. Java's BreakIterator and regex {@code \X} follow the runtime's
 * Unicode version (Java 17: Unicode 13, no GB9c; Android API 28: ICU 60), so the library carries
 * its own rules and data to cut exactly where the Swift provider does.
 */
final class Graphemes {
    private Graphemes() {}

    private static final int OTHER = 0, CR = 1, LF = 2, CONTROL = 3, EXTEND = 4, ZWJ = 5, RI = 6, PREPEND = 7,
            SPACING_MARK = 8, L = 9, V = 10, T = 11, LV = 12, LVT = 13;
    private static final int INCB_LINKER = 1, INCB_CONSONANT = 2, INCB_EXTEND = 3;

    static int property(int cp) {
        int[] r = GraphemeData.RANGES;
        int lo = 0, hi = r.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if ((r[mid] >>> 8) <= cp) lo = mid; else hi = mid - 1;
        }
        return r[lo] & 0xff;
    }

    /**
     * The end (a UTF-16 index) of the longest prefix of {@code text} that ends at a cluster boundary
     * and whose JSON-escaped length is at most {@code budget}.
     */
    static int fittingPrefixEnd(String text, int budget) {
        int end = 0, used = 0, clusterStart = 0;
        int i = 0, prev = -1;
        int riCount = 0, emoji = 0, incb = 0;
        while (i <= text.length()) {
            boolean atEnd = i == text.length();
            int cp = atEnd ? 0 : text.codePointAt(i);
            int p = atEnd ? 0 : property(cp);
            int gcb = p & 15;
            boolean pict = (p & 16) != 0;
            int cb = (p >> 5) & 3;
            if (prev >= 0 && (atEnd || isBreak(prev, gcb, pict, cb, riCount, emoji, incb))) {
                used += Content.escapedLength(text.substring(clusterStart, i));
                if (used > budget) break;
                end = i;
                clusterStart = i;
            }
            if (atEnd) break;
            // State for the next decision.
            riCount = gcb == RI ? riCount + 1 : 0;
            if (pict) emoji = 1;
            else if (emoji == 1 && gcb == EXTEND) emoji = 1;
            else if (emoji == 1 && gcb == ZWJ) emoji = 2;
            else emoji = 0;
            if (cb == INCB_CONSONANT) incb = 1;
            else if (incb > 0 && cb == INCB_LINKER) incb = 2;
            else if (incb > 0 && cb == INCB_EXTEND) { /* keep */ }
            else incb = 0;
            prev = gcb;
            i += Character.charCount(cp);
        }
        return end;
    }

    /** Whether there is a boundary between a character of class {@code prev} and the next one. */
    private static boolean isBreak(int prev, int gcb, boolean pict, int cb, int riCount, int emoji, int incb) {
        if (prev == CR && gcb == LF) return false;                                        // GB3
        if (prev == CONTROL || prev == CR || prev == LF) return true;                     // GB4
        if (gcb == CONTROL || gcb == CR || gcb == LF) return true;                        // GB5
        if (prev == L && (gcb == L || gcb == V || gcb == LV || gcb == LVT)) return false; // GB6
        if ((prev == LV || prev == V) && (gcb == V || gcb == T)) return false;            // GB7
        if ((prev == LVT || prev == T) && gcb == T) return false;                         // GB8
        if (gcb == EXTEND || gcb == ZWJ) return false;                                    // GB9
        if (gcb == SPACING_MARK) return false;                                            // GB9a
        if (prev == PREPEND) return false;                                                // GB9b
        if (incb == 2 && cb == INCB_CONSONANT) return false;                              // GB9c
        if (emoji == 2 && pict) return false;                                             // GB11
        if (prev == RI && gcb == RI && riCount % 2 == 1) return false;                    // GB12, GB13
        return true;                                                                      // GB999
    }
}
