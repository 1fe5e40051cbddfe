// The notification content (SPEC §5): schema, strict decoding, the sender's deterministic encoding.
// A content is a plain object: {cid, mid, ts, body?, title?, subtitle?, sender?: {id, name?},
// thread?, category?, badge?, trunc?: true, x?: {name: value}}; no `body` = content-free.

import { ContentError } from './errors.mjs';
import { JNum, JObj, parseJSON } from './strict-json.mjs';

export const MAX_CONTENT_BYTES = 4000;
const TS_MAX = 253402300799;
const BADGE_MAX = 2147483647;
const KNOWN = ['cid', 'mid', 'ts', 'title', 'subtitle', 'body', 'sender', 'thread', 'category', 'badge', 'trunc', 'x'];
const isStr = (v) => typeof v === 'string';
const utf8Len = (s) => Buffer.byteLength(s, 'utf8');
// Identifiers: 1-256 UTF-8 bytes and no C0 control character (SPEC §5.1).
const ident = (v, required) => (v === undefined ? !required
  : isStr(v) && utf8Len(v) >= 1 && utf8Len(v) <= 256 && !/[\u0000-\u001f]/.test(v));
const intIn = (v, max) => Number.isSafeInteger(v) && v >= 0 && v <= max;
const hasLoneSurrogate = (s) => /\p{Surrogate}/u.test(s);

/** Throws ContentError when a field of `c` violates SPEC §5.1 (sizes are not checked). */
export function validateContent(c) {
  if (c === null || typeof c !== 'object') throw new ContentError('a content is an object');
  if (!ident(c.cid, true)) throw new ContentError('cid must be a string of 1-256 bytes without control characters');
  if (!ident(c.mid, true)) throw new ContentError('mid must be a string of 1-256 bytes without control characters');
  if (!intIn(c.ts, TS_MAX)) throw new ContentError('ts must be an integer 0...253402300799');
  for (const n of ['title', 'subtitle', 'body']) {
    if (c[n] !== undefined && !isStr(c[n])) throw new ContentError(`${n} must be a string`);
  }
  for (const n of ['thread', 'category']) {
    if (!ident(c[n], false)) throw new ContentError(`${n} must be a string of 1-256 bytes without control characters`);
  }
  if (c.sender !== undefined) {
    if (c.sender === null || typeof c.sender !== 'object' || !ident(c.sender.id, true)) {
      throw new ContentError('sender.id must be a string of 1-256 bytes without control characters');
    }
    if (c.sender.name !== undefined && !isStr(c.sender.name)) throw new ContentError('sender.name must be a string');
  }
  if (c.badge !== undefined && !intIn(c.badge, BADGE_MAX)) throw new ContentError('badge must be an integer 0...2147483647');
  if (c.trunc !== undefined && c.trunc !== true) throw new ContentError('trunc must be true');
  if (c.x !== undefined && (c.x === null || typeof c.x !== 'object' || !Object.values(c.x).every(isStr))) {
    throw new ContentError('x must map strings to strings');
  }
  const strings = [c.cid, c.mid, c.title, c.subtitle, c.body, c.thread, c.category, c.sender?.id, c.sender?.name,
    ...Object.entries(c.x ?? {}).flat()];
  if (strings.some((s) => isStr(s) && hasLoneSurrogate(s))) throw new ContentError('strings must not contain lone surrogates');
}

/** True when `c` is exactly {cid, mid, ts} (SPEC §9.5). */
export const isContentFreeShape = (c) => Object.keys(c).every((k) => ['cid', 'mid', 'ts'].includes(k) || c[k] === undefined);

/** Only cid, mid and ts. */
export const contentFree = (c) => ({ cid: c.cid, mid: c.mid, ts: c.ts });

/** A string in the deterministic encoding of SPEC §5.3. */
export function jsonString(s) {
  let out = '"';
  for (const ch of s) {
    const o = ch.codePointAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (o < 0x20) out += ({ 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t' })[o] ?? `\\u${o.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

/** Bytes of `s` inside a JSON string as jsonString writes it (without quotes). */
export function escapedLength(s) {
  let n = 0;
  for (const b of Buffer.from(s, 'utf8')) {
    if (b === 0x22 || b === 0x5c || b === 0x08 || b === 0x0c || b === 0x0a || b === 0x0d || b === 0x09) n += 2;
    else if (b < 0x20) n += 6;
    else n += 1;
  }
  return n;
}

/** The deterministic compact UTF-8 JSON of SPEC §5.3 (no size check). */
export function encodeContent(c) {
  const parts = [`"cid":${jsonString(c.cid)}`, `"mid":${jsonString(c.mid)}`, `"ts":${c.ts}`];
  for (const n of ['title', 'subtitle', 'body']) if (c[n] !== undefined) parts.push(`"${n}":${jsonString(c[n])}`);
  if (c.sender !== undefined) {
    let s = `"id":${jsonString(c.sender.id)}`;
    if (c.sender.name !== undefined) s += `,"name":${jsonString(c.sender.name)}`;
    parts.push(`"sender":{${s}}`);
  }
  for (const n of ['thread', 'category']) if (c[n] !== undefined) parts.push(`"${n}":${jsonString(c[n])}`);
  if (c.badge !== undefined) parts.push(`"badge":${c.badge}`);
  if (c.trunc) parts.push('"trunc":true');
  const x = Object.entries(c.x ?? {});
  if (x.length > 0) {
    x.sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
    parts.push(`"x":{${x.map(([k, v]) => `${jsonString(k)}:${jsonString(v)}`).join(',')}}`);
  }
  return Buffer.from(`{${parts.join(',')}}`, 'utf8');
}

const intForm = (v) => v instanceof JNum && v.raw.length <= 20 && /^(?:0|[1-9][0-9]*)$/.test(v.raw);

/** Strictly parses and validates content bytes as a receiver does (at most `maxBytes`; Infinity
 * for a sealer's input, which the size policy shortens); unknown members are ignored (`unknown`
 * lists them). Throws ContentError. */
export function decodeContent(bytes, { maxBytes = MAX_CONTENT_BYTES } = {}) {
  if (bytes.length > maxBytes) throw new ContentError('content longer than 4000 bytes');
  let root;
  try { root = parseJSON(bytes); } catch (e) { throw new ContentError(e.message); }
  if (!(root instanceof JObj)) throw new ContentError('top level is not an object');
  const f = new Map(root.pairs);
  const c = {};
  for (const n of ['cid', 'mid', 'title', 'subtitle', 'body', 'thread', 'category']) {
    if (!f.has(n)) continue;
    if (!isStr(f.get(n))) throw new ContentError(`${n} must be a string`);
    c[n] = f.get(n);
  }
  if (!intForm(f.get('ts'))) throw new ContentError('ts must be an integer 0...253402300799');
  c.ts = BigInt(f.get('ts').raw) <= BigInt(TS_MAX) ? Number(f.get('ts').raw) : -1;
  if (f.has('sender')) {
    const s = f.get('sender');
    if (!(s instanceof JObj)) throw new ContentError('sender must be an object');
    const sf = new Map(s.pairs);
    c.sender = { id: sf.get('id') };
    if (sf.has('name')) c.sender.name = sf.get('name');
  }
  if (f.has('badge')) {
    if (!intForm(f.get('badge'))) throw new ContentError('badge must be an integer 0...2147483647');
    c.badge = BigInt(f.get('badge').raw) <= BigInt(BADGE_MAX) ? Number(f.get('badge').raw) : -1;
  }
  if (f.has('trunc')) c.trunc = f.get('trunc');
  if (f.has('x')) {
    const x = f.get('x');
    if (!(x instanceof JObj)) throw new ContentError('x must be an object of strings');
    c.x = Object.fromEntries(x.pairs);
  }
  validateContent(c);
  return { content: c, unknown: root.pairs.map(([k]) => k).filter((k) => !KNOWN.includes(k)) };
}
