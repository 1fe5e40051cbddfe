// Strict JSON (SPEC §5.2): RFC 8259 plus UTF-8 validation, distinct member names, no lone
// surrogates and a depth limit. JSON.parse keeps the last duplicate and TextDecoder strips a BOM
// by default, so PushSeal parses with this parser.

export const MAX_DEPTH = 16;

/** A syntax error; the message names the offset. */
export class JSONError extends Error {}
/** A number, kept as its literal text. */
export class JNum { constructor(raw) { this.raw = raw; } }
/** An object: its members in order, and whether a name occurred twice (payloads only). */
export class JObj {
  constructor(pairs, hasDups) { this.pairs = pairs; this.hasDups = hasDups; }
  getAll(name) { return this.pairs.filter(([k]) => k === name).map(([, v]) => v); }
  get(name) { const p = this.pairs.find(([k]) => k === name); return p ? p[1] : undefined; }
  has(name) { return this.pairs.some(([k]) => k === name); }
  dupNames() {
    const seen = new Set(); const dups = new Set();
    for (const [k] of this.pairs) { if (seen.has(k)) dups.add(k); seen.add(k); }
    return dups;
  }
}

const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const HEX4 = /^[0-9a-fA-F]{4}$/;
// fatal: reject overlongs, encoded surrogates, > U+10FFFF, truncation; ignoreBOM: keep a BOM so the parser rejects it.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

class Parser {
  constructor(text, recordDups, maxDepth) { this.s = text; this.i = 0; this.recordDups = recordDups; this.maxDepth = maxDepth; }
  fail(msg) { throw new JSONError(`${msg} at offset ${this.i}`); }
  ws() {
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.i++; else break;
    }
  }
  value(depth) {
    this.ws();
    if (this.i >= this.s.length) this.fail('unexpected end');
    const c = this.s[this.i];
    if (c === '{') return this.obj(depth + 1);
    if (c === '[') return this.arr(depth + 1);
    if (c === '"') return this.string();
    for (const [lit, val] of [['true', true], ['false', false], ['null', null]]) {
      if (this.s.startsWith(lit, this.i)) { this.i += lit.length; return val; }
    }
    NUMBER_RE.lastIndex = this.i;
    const m = NUMBER_RE.exec(this.s);
    if (m && m[0].length > 0) { this.i += m[0].length; return new JNum(m[0]); }
    this.fail('unexpected character');
  }
  obj(depth) {
    if (depth > this.maxDepth) this.fail('nesting too deep');
    this.i++;
    const pairs = []; const names = new Set(); let dups = false;
    this.ws();
    if (this.s[this.i] === '}') { this.i++; return new JObj(pairs, false); }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('expected member name');
      const name = this.string();
      if (names.has(name)) {
        if (!this.recordDups) this.fail('duplicate member name');
        dups = true;
      }
      names.add(name);
      this.ws();
      if (this.s[this.i] !== ':') this.fail("expected ':'");
      this.i++;
      pairs.push([name, this.value(depth)]);
      this.ws();
      if (this.s[this.i] === ',') { this.i++; continue; }
      if (this.s[this.i] === '}') { this.i++; return new JObj(pairs, dups); }
      this.fail("expected ',' or '}'");
    }
  }
  arr(depth) {
    if (depth > this.maxDepth) this.fail('nesting too deep');
    this.i++;
    const items = [];
    this.ws();
    if (this.s[this.i] === ']') { this.i++; return items; }
    for (;;) {
      items.push(this.value(depth));
      this.ws();
      if (this.s[this.i] === ',') { this.i++; continue; }
      if (this.s[this.i] === ']') { this.i++; return items; }
      this.fail("expected ',' or ']'");
    }
  }
  hex4() {
    const h = this.s.slice(this.i, this.i + 4);
    if (!HEX4.test(h)) this.fail('bad \\u escape');
    this.i += 4;
    return parseInt(h, 16);
  }
  string() {
    const s = this.s;
    this.i++;
    let out = '';
    for (;;) {
      if (this.i >= s.length) this.fail('unterminated string');
      const c = s[this.i];
      if (c === '"') { this.i++; return out; }
      if (c.charCodeAt(0) < 0x20) this.fail('control character in string');
      if (c !== '\\') { out += c; this.i++; continue; }
      this.i++;
      if (this.i >= s.length) this.fail('unterminated escape');
      const e = s[this.i++];
      if (Object.hasOwn(ESCAPES, e)) { out += ESCAPES[e]; continue; }
      if (e !== 'u') this.fail('invalid escape');
      const cp = this.hex4();
      if (cp >= 0xdc00 && cp <= 0xdfff) this.fail('lone low surrogate');
      if (cp >= 0xd800 && cp <= 0xdbff) {
        if (s.slice(this.i, this.i + 2) !== '\\u') this.fail('lone high surrogate');
        this.i += 2;
        const lo = this.hex4();
        if (lo < 0xdc00 || lo > 0xdfff) this.fail('high surrogate not followed by low surrogate');
        out += String.fromCharCode(cp, lo);
      } else {
        out += String.fromCharCode(cp);
      }
    }
  }
}


/** Parses UTF-8 bytes strictly; throws JSONError. */
export function parseJSON(bytes, { recordDups = false, maxDepth = MAX_DEPTH } = {}) {
  let text;
  try { text = UTF8.decode(bytes); } catch { throw new JSONError('invalid UTF-8'); }
  const p = new Parser(text, recordDups, maxDepth);
  const v = p.value(0);
  p.ws();
  if (p.i !== text.length) p.fail('trailing data');
  return v;
}

/** Parsed JSON as plain values (objects, arrays, numbers). An integer literal (no fraction or
 * exponent) beyond Number.MAX_SAFE_INTEGER becomes a BigInt, exact: a double would round it. */
export function toPlain(v) {
  if (v instanceof JObj) return Object.fromEntries(v.pairs.map(([k, x]) => [k, toPlain(x)]));
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof JNum) {
    if (/^-?(?:0|[1-9][0-9]*)$/.test(v.raw)) {
      const exact = BigInt(v.raw);
      return exact >= BigInt(Number.MIN_SAFE_INTEGER) && exact <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(exact) : exact;
    }
    return Number(v.raw);
  }
  return v;
}
