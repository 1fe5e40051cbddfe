// Extended grapheme cluster boundaries (Unicode UAX #29, rules GB3-GB13 including GB9c) on the
// table in grapheme-data.mjs, the same rules and table as the Java library's Graphemes.java.
// Intl.Segmenter follows the runtime's ICU (Debian 12's Node 18 has ICU 72, without GB9c), so
// the port carries its own rules and data to cut exactly where the Swift provider does,
// whatever ICU the runtime has (or none: a Node built with --without-intl works too).

import { RANGES } from './grapheme-data.mjs';

const CR = 1, LF = 2, CONTROL = 3, EXTEND = 4, ZWJ = 5, RI = 6, PREPEND = 7, SPACING_MARK = 8, L = 9, V = 10, T = 11, LV = 12, LVT = 13;
const INCB_LINKER = 1, INCB_CONSONANT = 2, INCB_EXTEND = 3;

/** The table value of code point `cp` (binary search of the ranges). */
export function graphemeProperty(cp) {
  let lo = 0; let hi = RANGES.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((RANGES[mid] >>> 8) <= cp) lo = mid; else hi = mid - 1;
  }
  return RANGES[lo] & 0xff;
}

/** Whether there is a boundary between a character of class `prev` and the next one. */
function isBreak(prev, gcb, pict, cb, riCount, emoji, incb) {
  if (prev === CR && gcb === LF) return false; // GB3
  if (prev === CONTROL || prev === CR || prev === LF) return true; // GB4
  if (gcb === CONTROL || gcb === CR || gcb === LF) return true; // GB5
  if (prev === L && (gcb === L || gcb === V || gcb === LV || gcb === LVT)) return false; // GB6
  if ((prev === LV || prev === V) && (gcb === V || gcb === T)) return false; // GB7
  if ((prev === LVT || prev === T) && gcb === T) return false; // GB8
  if (gcb === EXTEND || gcb === ZWJ) return false; // GB9
  if (gcb === SPACING_MARK) return false; // GB9a
  if (prev === PREPEND) return false; // GB9b
  if (incb === 2 && cb === INCB_CONSONANT) return false; // GB9c
  if (emoji === 2 && pict) return false; // GB11
  if (prev === RI && gcb === RI && riCount % 2 === 1) return false; // GB12, GB13
  return true; // GB999
}

/** The extended grapheme clusters of `text`, in order (each a string). */
export function* graphemeClusters(text) {
  let clusterStart = 0; let prev = -1; let riCount = 0; let emoji = 0; let incb = 0;
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i);
    const p = graphemeProperty(cp);
    const gcb = p & 15; const pict = (p & 16) !== 0; const cb = (p >> 5) & 3;
    if (prev >= 0 && isBreak(prev, gcb, pict, cb, riCount, emoji, incb)) {
      yield text.slice(clusterStart, i);
      clusterStart = i;
    }
    // State for the next decision.
    riCount = gcb === RI ? riCount + 1 : 0;
    if (pict) emoji = 1;
    else if (emoji === 1 && gcb === EXTEND) emoji = 1;
    else if (emoji === 1 && gcb === ZWJ) emoji = 2;
    else emoji = 0;
    if (cb === INCB_CONSONANT) incb = 1;
    else if (incb > 0 && cb === INCB_LINKER) incb = 2;
    else if (incb > 0 && cb === INCB_EXTEND) { /* keep */ } else incb = 0;
    prev = gcb;
    i += cp > 0xffff ? 2 : 1;
  }
  if (text.length > 0) yield text.slice(clusterStart);
}
