#!/usr/bin/env node
// PushSeal v1 reference port: Node 18+ with the built-in `crypto` module only
// (createHmac, createCipheriv/createDecipheriv 'chacha20-poly1305'). Written from Docs/SPEC.md.
//
//   node pushseal_port.mjs [VECTOR_FILE]        run every case (default: Vectors/pushseal-v1.json)
//   node pushseal_port.mjs open --key K --conversation CID [--now UNIX] [--max-age S]
//                          [--max-future-skew S] < payload.json
//   node pushseal_port.mjs seal --key K [--salt S] [--pad-block N] [--apns] < content.json
//
// Exit codes: 0 ok; 1 failure; 3 `open` fell back; 64 usage error.

import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// ------------------------------------------------------------ constants (SPEC §4, §7, §10)

const VERSION = 0x01;
const INFO_KID = Buffer.from('pushseal v1 key id', 'ascii');
const INFO_MK = Buffer.from('pushseal v1 message key', 'ascii');
const INFO_TID = Buffer.from('pushseal v1 thread id', 'ascii');
const HEADER_LEN = 41;
const TAG_LEN = 16;
const MIN_ENVELOPE = 58;
const MAX_ENVELOPE = 4096;
const MAX_WIRE_CHARS = 5462;
const MAX_CONTENT = 4000;
const MAX_DEPTH = 16;
const ZERO_NONCE = Buffer.alloc(12);
const DEFAULT_MAX_AGE = 2678400;
const DEFAULT_MAX_FUTURE_SKEW = 600;
const DEFAULT_PAD_BLOCK = 256;
const TS_MAX = 253402300799n;
const BADGE_MAX = 2147483647n;
const REASONS = ['not_sealed', 'malformed_envelope', 'unsupported_version', 'unknown_key', 'store_locked',
  'authentication_failed', 'malformed_content', 'conversation_mismatch', 'stale'];
const PROG = 'pushseal_port.mjs';

// ------------------------------------------------------------ derivations (SPEC §4)

// HKDF-Expand(PRK = K, info, L <= 32) = first L bytes of HMAC-SHA256(K, info || 0x01).
// (crypto.hkdfSync would also run Extract: it must not be used here.)
function hkdfExpand(prk, info, length) {
  return createHmac('sha256', prk).update(info).update(Buffer.from([0x01])).digest().subarray(0, length);
}
const keyId = (k) => hkdfExpand(k, INFO_KID, 16);
const messageKey = (k, salt) => hkdfExpand(k, Buffer.concat([INFO_MK, salt]), 32);
const threadId = (k) => hkdfExpand(k, INFO_TID, 16);

// ------------------------------------------------------------ strict base64url (SPEC §8)

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64_VALUE = new Map([...B64].map((c, i) => [c, i]));

function b64urlEncode(buf) {
  let out = '';
  for (let i = 0; i < buf.length; i += 3) {
    const n = ((buf[i] << 16) | ((buf[i + 1] ?? 0) << 8) | (buf[i + 2] ?? 0)) >>> 0;
    const chars = [B64[(n >> 18) & 63], B64[(n >> 12) & 63], B64[(n >> 6) & 63], B64[n & 63]];
    out += chars.slice(0, Math.min(3, buf.length - i) + 1).join('');
  }
  return out;
}

// Strict decode: returns a Buffer or null. (Buffer.from(s, 'base64url') is lenient: never use it here.)
function b64urlDecode(s) {
  if (s.length % 4 === 1) return null;
  const vals = [];
  for (const c of s) {
    const v = B64_VALUE.get(c);
    if (v === undefined) return null;
    vals.push(v);
  }
  const rem = vals.length % 4;
  if (rem === 2 && (vals[vals.length - 1] & 0x0f)) return null;
  if (rem === 3 && (vals[vals.length - 1] & 0x03)) return null;
  const out = [];
  for (let i = 0; i < vals.length; i += 4) {
    const g = vals.slice(i, i + 4);
    let n = 0;
    for (const v of g) n = n * 64 + v;
    n *= 64 ** (4 - g.length);
    const bytes = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
    out.push(...bytes.slice(0, g.length - 1));
  }
  return Buffer.from(out);
}

// ------------------------------------------------------------ strict JSON (SPEC §5.2)

class JSONError extends Error {}
class JNum { constructor(raw) { this.raw = raw; } }
class JObj {
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

function parseJSON(bytes, { recordDups = false, maxDepth = MAX_DEPTH } = {}) {
  let text;
  try { text = UTF8.decode(bytes); } catch { throw new JSONError('invalid UTF-8'); }
  const p = new Parser(text, recordDups, maxDepth);
  const v = p.value(0);
  p.ws();
  if (p.i !== text.length) p.fail('trailing data');
  return v;
}

function toPlain(v) {
  if (v instanceof JObj) return Object.fromEntries(v.pairs.map(([k, x]) => [k, toPlain(x)]));
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof JNum) return Number(v.raw);
  return v;
}

// ------------------------------------------------------------ content (SPEC §5)

class ContentError extends Error {}
const isStr = (v) => typeof v === 'string';
const utf8Len = (s) => Buffer.byteLength(s, 'utf8');
const strBytes = (v, lo, hi) => isStr(v) && utf8Len(v) >= lo && utf8Len(v) <= hi;
const intForm = (v, max) => v instanceof JNum && v.raw.length <= 20 && /^(?:0|[1-9][0-9]*)$/.test(v.raw) && BigInt(v.raw) <= max;
const KNOWN = ['cid', 'mid', 'ts', 'title', 'subtitle', 'body', 'sender', 'thread', 'category', 'badge', 'trunc', 'x'];

function validateContent(content) {
  if (content.length > MAX_CONTENT) throw new ContentError('content longer than 4000 bytes');
  let root;
  try { root = parseJSON(content); } catch (e) { throw new ContentError(e.message); }
  if (!(root instanceof JObj)) throw new ContentError('top level is not an object');
  const f = new Map(root.pairs);
  const out = { unknown: root.pairs.map(([k]) => k).filter((k) => !KNOWN.includes(k)) };
  for (const name of ['cid', 'mid']) {
    if (!strBytes(f.get(name), 1, 256)) throw new ContentError(`${name} must be a string of 1-256 bytes`);
    out[name] = f.get(name);
  }
  if (!intForm(f.get('ts'), TS_MAX)) throw new ContentError('ts must be an integer 0...253402300799');
  out.ts = Number(f.get('ts').raw);
  if (f.has('body')) { // absent only in a content-free (wake-and-fetch) content, SPEC §9.5
    if (!isStr(f.get('body'))) throw new ContentError('body must be a string');
    out.body = f.get('body');
  }
  for (const name of ['title', 'subtitle']) {
    if (f.has(name)) {
      if (!isStr(f.get(name))) throw new ContentError(`${name} must be a string`);
      out[name] = f.get(name);
    }
  }
  for (const name of ['thread', 'category']) {
    if (f.has(name)) {
      if (!strBytes(f.get(name), 1, 256)) throw new ContentError(`${name} must be a string of 1-256 bytes`);
      out[name] = f.get(name);
    }
  }
  if (f.has('sender')) {
    const s = f.get('sender');
    if (!(s instanceof JObj)) throw new ContentError('sender must be an object');
    const sf = new Map(s.pairs);
    if (!strBytes(sf.get('id'), 1, 256)) throw new ContentError('sender.id must be a string of 1-256 bytes');
    out.sender = { id: sf.get('id') };
    if (sf.has('name')) {
      if (!isStr(sf.get('name'))) throw new ContentError('sender.name must be a string');
      out.sender.name = sf.get('name');
    }
  }
  if (f.has('badge')) {
    if (!intForm(f.get('badge'), BADGE_MAX)) throw new ContentError('badge must be an integer 0...2147483647');
    out.badge = Number(f.get('badge').raw);
  }
  if (f.has('trunc')) {
    if (f.get('trunc') !== true) throw new ContentError('trunc must be true');
    out.trunc = true;
  }
  if (f.has('x')) {
    const x = f.get('x');
    if (!(x instanceof JObj) || !x.pairs.every(([, v]) => isStr(v))) throw new ContentError('x must be an object of strings');
    out.x = x.pairs;
  }
  return out;
}

// Deterministic string encoding (SPEC §5.3).
function jsonString(s) {
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

function encodeContent(c) {
  const parts = [`"cid":${jsonString(c.cid)}`, `"mid":${jsonString(c.mid)}`, `"ts":${c.ts}`];
  for (const n of ['title', 'subtitle']) if (n in c) parts.push(`"${n}":${jsonString(c[n])}`);
  if (c.body !== undefined) parts.push(`"body":${jsonString(c.body)}`);
  if (c.sender) {
    let s = `"id":${jsonString(c.sender.id)}`;
    if ('name' in c.sender) s += `,"name":${jsonString(c.sender.name)}`;
    parts.push(`"sender":{${s}}`);
  }
  for (const n of ['thread', 'category']) if (n in c) parts.push(`"${n}":${jsonString(c[n])}`);
  if ('badge' in c) parts.push(`"badge":${c.badge}`);
  if (c.trunc) parts.push('"trunc":true');
  if (c.x) {
    const items = [...c.x].sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
    parts.push(`"x":{${items.map(([k, v]) => `${jsonString(k)}:${jsonString(v)}`).join(',')}}`);
  }
  return Buffer.from(`{${parts.join(',')}}`, 'utf8');
}

// ------------------------------------------------------------ padding (SPEC §6)

function pad(content, block) {
  if (!Number.isInteger(block) || block < 1) throw new RangeError('pad block must be >= 1');
  const n = content.length + 1;
  const padded = Math.ceil(n / block) * block;
  return Buffer.concat([content, Buffer.from([0x80]), Buffer.alloc(padded - n)]);
}

function unpad(p) {
  const i = p.lastIndexOf(0x80);
  if (i < 0) return null;
  for (let j = i + 1; j < p.length; j++) if (p[j] !== 0) return null;
  return p.subarray(0, i);
}

// ------------------------------------------------------------ envelope (SPEC §7)

function sealPadded(k, salt, plaintext) {
  if (k.length !== 32 || salt.length !== 24) throw new RangeError('key must be 32 bytes and salt 24 bytes');
  const header = Buffer.concat([Buffer.from([VERSION]), keyId(k), salt]);
  const c = createCipheriv('chacha20-poly1305', messageKey(k, salt), ZERO_NONCE, { authTagLength: TAG_LEN });
  c.setAAD(header, { plaintextLength: plaintext.length });
  const ct = Buffer.concat([c.update(plaintext), c.final(), c.getAuthTag()]);
  const env = Buffer.concat([header, ct]);
  if (env.length > MAX_ENVELOPE) throw new RangeError('envelope longer than 4096 bytes');
  return b64urlEncode(env);
}

function aeadOpen(mk, header, body) {
  const ct = body.subarray(0, body.length - TAG_LEN);
  const tag = body.subarray(body.length - TAG_LEN);
  const d = createDecipheriv('chacha20-poly1305', mk, ZERO_NONCE, { authTagLength: TAG_LEN });
  d.setAAD(header, { plaintextLength: ct.length });
  d.setAuthTag(tag);
  const first = d.update(ct);   // not authentic yet: released only if final() succeeds
  try {
    return Buffer.concat([first, d.final()]);
  } catch {
    first.fill(0);
    return null;
  }
}

const fail = (reason) => ({ reason, content: null, duplicate: false });

// SPEC §10.1 + the duplicate part of steps 1-2. Returns { reason } or { value }.
function locate(payload) {
  let root;
  try { root = parseJSON(payload, { recordDups: true }); } catch { return { reason: 'not_sealed' }; }
  if (!(root instanceof JObj)) return { reason: 'not_sealed' };
  let holder = root;
  let members = root.getAll('pushseal');
  if (members.length === 0) {
    const msgs = root.getAll('message');
    if (msgs.length === 1 && msgs[0] instanceof JObj) {
      const datas = msgs[0].getAll('data');
      if (datas.length === 1 && datas[0] instanceof JObj) { holder = datas[0]; members = holder.getAll('pushseal'); }
    }
  }
  if (members.length === 0) return { reason: 'not_sealed' };
  const otherDups = (v) => {
    if (v instanceof JObj) {
      const d = v.dupNames();
      if (v === holder) d.delete('pushseal');
      return d.size > 0 || v.pairs.some(([, x]) => otherDups(x));
    }
    if (Array.isArray(v)) return v.some(otherDups);
    return false;
  };
  if (otherDups(root)) return { reason: 'not_sealed' };
  if (members.length > 1) return { reason: 'malformed_envelope' };
  return { value: members[0] };
}

// SPEC §10.2. lookup(kid) -> {status:'found', key, conversation} | {status:'not_found'} | {status:'locked'};
// seen(cid, mid) -> bool (and records the pair).
function openPayload(payload, lookup, seen, now, maxAge = DEFAULT_MAX_AGE, maxFutureSkew = DEFAULT_MAX_FUTURE_SKEW) {
  const loc = locate(payload);                                             // step 1 (+ duplicate sealed member)
  if (loc.reason) return fail(loc.reason);
  const wire = loc.value;
  if (!isStr(wire) || wire.length > MAX_WIRE_CHARS) return fail('malformed_envelope');   // step 2
  const env = b64urlDecode(wire);
  if (!env || env.length === 0) return fail('malformed_envelope');
  if (env[0] !== VERSION) return fail('unsupported_version');             // step 3
  if (env.length < MIN_ENVELOPE || env.length > MAX_ENVELOPE) return fail('malformed_envelope'); // step 4
  const kid = env.subarray(1, 17);
  const salt = env.subarray(17, HEADER_LEN);
  const found = lookup(kid);
  if (found.status === 'not_found') return fail('unknown_key');           // step 5
  if (found.status !== 'found') return fail('store_locked');              // step 6
  const p = aeadOpen(messageKey(found.key, salt), env.subarray(0, HEADER_LEN), env.subarray(HEADER_LEN)); // step 7
  if (!p) return fail('authentication_failed');
  const content = unpad(p);                                                // step 8
  if (!content) return fail('malformed_content');
  let fields;
  try { fields = validateContent(content); } catch (e) {
    if (e instanceof ContentError) return fail('malformed_content');
    throw e;
  }
  if (!Buffer.from(fields.cid, 'utf8').equals(Buffer.from(found.conversation, 'utf8'))) return fail('conversation_mismatch'); // step 9
  if (now - fields.ts > maxAge || fields.ts - now > maxFutureSkew) return fail('stale'); // step 10
  return { reason: null, content: Buffer.from(content), duplicate: seen(fields.cid, fields.mid) }; // step 11
}

// ------------------------------------------------------------ vector runner (SPEC §12)

const here = dirname(fileURLToPath(import.meta.url));
const defaultVectorPath = () => resolve(here, '..', '..', '..', 'Vectors', 'pushseal-v1.json');

function hexField(t, name, length = null, nullable = true) {
  const v = t[name];
  if (v === null || v === undefined) {
    if (nullable) return null;
    throw new Error(`${name} missing`);
  }
  if (typeof v !== 'string' || !/^(?:[0-9a-f]{2})*$/.test(v)) throw new Error(`${name} is not lowercase hex`);
  const b = Buffer.from(v, 'hex');
  if (length !== null && b.length !== length) throw new Error(`${name} must be ${length} bytes`);
  return b;
}

const describe = (r) => (r.reason === null ? 'valid' : `invalid/${r.reason}`);

function runCase(t) {
  const errs = [];
  const key = hexField(t, 'key', 32, false);
  const kid = hexField(t, 'kid', 16, false);
  const { conversation, keyStore, previouslySeen, now, maxAge, maxFutureSkew, result, reason, duplicate } = t;
  if (!isStr(conversation)) throw new Error('conversation must be a string');
  if (keyStore !== 'available' && keyStore !== 'locked') throw new Error('keyStore must be available or locked');
  for (const [n, v] of [['now', now], ['maxAge', maxAge], ['maxFutureSkew', maxFutureSkew]]) {
    if (!Number.isSafeInteger(v)) throw new Error(`${n} must be an integer`);
  }
  if (result !== 'valid' && result !== 'invalid') throw new Error('result must be valid or invalid');
  if ((result === 'valid') !== (reason === null)) throw new Error('result and reason disagree');
  if (reason !== null && !REASONS.includes(reason)) throw new Error(`unknown reason code ${reason}`);
  if (typeof t.resealable !== 'boolean' || typeof duplicate !== 'boolean' || typeof previouslySeen !== 'boolean') {
    throw new Error('resealable/duplicate/previouslySeen must be booleans');
  }
  const sealKey = hexField(t, 'sealKey', 32);
  const salt = hexField(t, 'salt', 24);
  const mk = hexField(t, 'messageKey', 32);
  const contentHex = hexField(t, 'contentHex');
  const plaintextHex = hexField(t, 'plaintextHex');
  const padBlock = t.padBlock ?? null;

  const derivedKid = keyId(key);
  if (!derivedKid.equals(kid)) errs.push(`kid: derived ${derivedKid.toString('hex')} != vector ${kid.toString('hex')}`);
  const lookup = (want) => {
    if (!derivedKid.equals(want)) return { status: 'not_found' };
    if (keyStore === 'locked') return { status: 'locked' };
    return { status: 'found', key, conversation };
  };
  const want = result === 'valid' ? 'valid' : `invalid/${reason}`;
  for (const [label, text] of [['payload', t.payload], ['fcm', t.fcm ?? null]]) {
    if (text === null) continue;
    if (!isStr(text)) throw new Error(`${label} must be a string`);
    const r = openPayload(Buffer.from(text, 'utf8'), lookup, () => previouslySeen, now, maxAge, maxFutureSkew);
    const got = describe(r);
    if (got !== want) errs.push(`${label}: expected ${want}, got ${got}`);
    else if (r.reason === null) {
      if (r.duplicate !== duplicate) errs.push(`${label}: expected duplicate=${duplicate}, got ${r.duplicate}`);
      if (!contentHex || !r.content.equals(contentHex)) errs.push(`${label}: decrypted content ${r.content.toString('hex')} != contentHex`);
    } else if (duplicate) errs.push(`${label}: invalid case expects duplicate=true`);
  }
  if (mk && sealKey && salt) {
    const d = messageKey(sealKey, salt);
    if (!d.equals(mk)) errs.push(`messageKey: derived ${d.toString('hex')} != vector ${mk.toString('hex')}`);
  }
  if (t.resealable) {
    if (!sealKey || !salt || !plaintextHex || !isStr(t.wire)) errs.push('resealable case lacks sealKey/salt/plaintextHex/wire');
    else {
      try {
        const w = sealPadded(sealKey, salt, plaintextHex);
        if (w !== t.wire) errs.push(`reseal: got ${w} != wire ${t.wire}`);
      } catch (e) { errs.push(`reseal: ${e.message}`); }
    }
  }
  if (result === 'valid' && padBlock !== null) {
    if (!contentHex || !plaintextHex) errs.push('valid case with padBlock lacks contentHex/plaintextHex');
    else if (!pad(contentHex, padBlock).equals(plaintextHex)) errs.push(`pad(contentHex, ${padBlock}) != plaintextHex`);
  }
  if (isStr(t.content) && contentHex && !Buffer.from(t.content, 'utf8').equals(contentHex)) errs.push('content string != contentHex');
  return errs;
}

function runVectors(path) {
  let raw;
  try { raw = readFileSync(path); } catch (e) {
    console.error(`${PROG}: error: cannot read ${path}: ${e.code ?? e.message}`);
    console.log('0 passed, 1 failed');
    return 1;
  }
  let doc;
  try { doc = toPlain(parseJSON(raw)); } catch (e) {
    console.error(`${PROG}: error: ${path} is not strict JSON: ${e.message}`);
    console.log('0 passed, 1 failed');
    return 1;
  }
  const fileErrors = [];
  const isObj = doc !== null && typeof doc === 'object' && !Array.isArray(doc);
  if (!isObj || doc.schema !== 'pushseal_v1_test_schema' || doc.schemaVersion !== 1) {
    fileErrors.push('file: schema is not pushseal_v1_test_schema version 1');
  }
  const tests = isObj && Array.isArray(doc.tests) ? doc.tests : [];
  if (isObj && doc.numberOfTests !== tests.length) fileErrors.push(`file: numberOfTests ${doc.numberOfTests} != ${tests.length} cases`);
  const ids = tests.map((t) => t?.tcId);
  if (new Set(ids).size !== ids.length) fileErrors.push('file: duplicate tcId');
  let passed = 0; let failed = 0;
  for (const t of tests) {
    let errs;
    try { errs = runCase(t); } catch (e) { errs = [`malformed case: ${e.message}`]; }
    if (errs.length) {
      failed++;
      for (const e of errs) console.log(`FAIL tcId ${t?.tcId ?? '?'}: ${e}`);
    } else passed++;
  }
  for (const e of fileErrors) console.log(`FAIL ${e}`);
  failed += fileErrors.length;
  if (tests.length === 0) { console.log('FAIL file: no test cases found'); failed++; }
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

// ------------------------------------------------------------ CLI (round trips with `pushseal`)

class Usage extends Error {}

function options(argv, names, flags = []) {
  const opts = {};
  for (let i = 0; i < argv.length;) {
    const a = argv[i];
    if (flags.includes(a)) { opts[a] = true; i++; } else if (names.includes(a) && i + 1 < argv.length) { opts[a] = argv[i + 1]; i += 2; } else throw new Usage(`unexpected argument '${a}'`);
  }
  return opts;
}
function intOpt(opts, name, dflt) {
  if (!(name in opts)) return dflt;
  if (!/^-?[0-9]+$/.test(opts[name])) throw new Usage(`${name} needs an integer`);
  return Number(opts[name]);
}
function keyOpt(opts, name, length) {
  if (!(name in opts)) throw new Usage(`${name} is required`);
  const b = b64urlDecode(opts[name]);
  if (!b || b.length !== length) throw new Usage(`${name} must be ${length} bytes in base64url without padding`);
  return b;
}
function readStdin() {
  try { return readFileSync(0); } catch { return Buffer.alloc(0); }
}
function placeholder(payload) {
  let title = null; let body = 'New message';
  try {
    const alert = parseJSON(payload, { recordDups: true }).get('aps').get('alert');
    if (isStr(alert)) body = alert;
    else if (alert instanceof JObj) {
      if (isStr(alert.get('title'))) title = alert.get('title');
      if (isStr(alert.get('body'))) body = alert.get('body');
    }
  } catch { /* keep defaults */ }
  return `{${title !== null ? `"title":${jsonString(title)},` : ''}"body":${jsonString(body)}}`;
}

function cliOpen(argv) {
  const opts = options(argv, ['--key', '--conversation', '--now', '--max-age', '--max-future-skew']);
  const key = keyOpt(opts, '--key', 32);
  if (!('--conversation' in opts)) throw new Usage('--conversation is required');
  const conversation = opts['--conversation'];
  const now = intOpt(opts, '--now', Math.floor(Date.now() / 1000));
  const maxAge = intOpt(opts, '--max-age', DEFAULT_MAX_AGE);
  const skew = intOpt(opts, '--max-future-skew', DEFAULT_MAX_FUTURE_SKEW);
  const payload = readStdin();
  const kid = keyId(key);
  const r = openPayload(payload, (want) => (want.equals(kid) ? { status: 'found', key, conversation } : { status: 'not_found' }),
    () => false, now, maxAge, skew);
  if (r.reason === null) {
    console.log(`{"outcome":"decrypted","reason":null,"duplicate":${r.duplicate},"content":${r.content.toString('utf8')}}`);
    return 0;
  }
  console.log(`{"outcome":"fallback","reason":"${r.reason}","duplicate":false,"content":${placeholder(payload)}}`);
  return 3;
}

function cliSeal(argv) {
  const opts = options(argv, ['--key', '--salt', '--pad-block'], ['--apns']);
  const key = keyOpt(opts, '--key', 32);
  const salt = '--salt' in opts ? keyOpt(opts, '--salt', 24) : randomBytes(24);
  const block = intOpt(opts, '--pad-block', DEFAULT_PAD_BLOCK);
  if (block < 1) throw new Usage('--pad-block must be >= 1');
  let input = readStdin();
  while (input.length && input[input.length - 1] === 0x0a) input = input.subarray(0, input.length - 1);
  let fields;
  try { fields = validateContent(input); } catch (e) {
    console.error(`${PROG}: error: invalid content: ${e.message}`);
    return 1;
  }
  if (fields.unknown.length) console.error(`${PROG}: warning: dropping unknown members ${JSON.stringify(fields.unknown)}`);
  const content = encodeContent(fields);
  if (content.length > MAX_CONTENT) { console.error(`${PROG}: error: content longer than 4000 bytes`); return 1; }
  let wire;
  try { wire = sealPadded(key, salt, pad(content, block)); } catch (e) { console.error(`${PROG}: error: ${e.message}`); return 1; }
  if (opts['--apns']) {
    console.log(`{"aps":{"alert":{"body":"New message"},"mutable-content":1,"thread-id":"${b64urlEncode(threadId(key))}"},"pushseal":"${wire}"}`);
  } else console.log(wire);
  return 0;
}

function main(argv) {
  try {
    if (argv[0] === 'open') return cliOpen(argv.slice(1));
    if (argv[0] === 'seal') return cliSeal(argv.slice(1));
    if (argv[0] === '-h' || argv[0] === '--help') {
      console.log('usage: node pushseal_port.mjs [VECTOR_FILE] | open --key K --conversation CID [--now T] | seal --key K [--salt S] [--pad-block N] [--apns]');
      return 0;
    }
    if (argv.length > 1) throw new Usage('expected at most one vector file');
    return runVectors(argv.length ? argv[0] : defaultVectorPath());
  } catch (e) {
    if (!(e instanceof Usage)) throw e;
    console.error(`${PROG}: error: ${e.message}`);
    console.error(`hint: node ${PROG} --help`);
    return 64;
  }
}

process.exitCode = main(process.argv.slice(2));
