// The v1 construction: derivations (SPEC §4), padding (§6), envelope (§7), strict base64url (§8).
// Built-in `crypto` only: createHmac and createCipheriv/createDecipheriv('chacha20-poly1305').

import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export const VERSION = 0x01;
export const KEY_BYTES = 32;
export const SALT_BYTES = 24;
export const HEADER_BYTES = 41;
export const TAG_BYTES = 16;
export const MIN_ENVELOPE = 58;
export const MAX_ENVELOPE = 4096;
export const MAX_WIRE_CHARS = 5462;
const ZERO_NONCE = Buffer.alloc(12);
const INFO_KID = Buffer.from('pushseal v1 key id', 'ascii');
const INFO_MK = Buffer.from('pushseal v1 message key', 'ascii');
const INFO_TID = Buffer.from('pushseal v1 thread id', 'ascii');

// HKDF-Expand(PRK = K, info, L <= 32) = first L bytes of HMAC-SHA256(K, info || 0x01).
// (crypto.hkdfSync would also run Extract: it must not be used here.)
export function hkdfExpand(prk, info, length) {
  return createHmac('sha256', prk).update(info).update(Buffer.from([0x01])).digest().subarray(0, length);
}
/** kid = HKDF-Expand(K, "pushseal v1 key id", 16). */
export const keyId = (key) => hkdfExpand(key, INFO_KID, 16);
/** mk = HKDF-Expand(K, "pushseal v1 message key" || s, 32). */
export const messageKey = (key, salt) => hkdfExpand(key, Buffer.concat([INFO_MK, salt]), 32);
/** tid = HKDF-Expand(K, "pushseal v1 thread id", 16). */
export const threadId = (key) => hkdfExpand(key, INFO_TID, 16);
/** The default APNs thread-id: base64url(tid). */
export const opaqueThreadId = (key) => b64urlEncode(threadId(key));

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64_VALUE = new Map([...B64].map((c, i) => [c, i]));

/** base64url without padding. */
export function b64urlEncode(buf) {
  let out = '';
  for (let i = 0; i < buf.length; i += 3) {
    const n = ((buf[i] << 16) | ((buf[i + 1] ?? 0) << 8) | (buf[i + 2] ?? 0)) >>> 0;
    const chars = [B64[(n >> 18) & 63], B64[(n >> 12) & 63], B64[(n >> 6) & 63], B64[n & 63]];
    out += chars.slice(0, Math.min(3, buf.length - i) + 1).join('');
  }
  return out;
}

/** Strict decoding (SPEC §8): a Buffer, or null. (Buffer.from(s, 'base64url') is lenient.) */
export function b64urlDecode(s) {
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
    out.push(...[(n >> 16) & 255, (n >> 8) & 255, n & 255].slice(0, g.length - 1));
  }
  return Buffer.from(out);
}

/** Characters of base64url for `count` bytes. */
export const encodedLength = (count) => Math.floor((count * 8 + 5) / 6);
/** The most bytes whose base64url fits in `chars` characters. */
export const decodedLength = (chars) => Math.floor((chars * 6) / 8);

/** The smallest multiple of `block` that is at least `contentLength + 1`. */
export function paddedLength(contentLength, block) {
  if (!Number.isInteger(block) || block < 1) throw new RangeError('pad block must be >= 1');
  return Math.ceil((contentLength + 1) / block) * block;
}

/** `content || 0x80 || 0x00…` of exactly `length` bytes. */
export function padTo(content, length) {
  if (length <= content.length) throw new RangeError('padded length must exceed the content length');
  return Buffer.concat([content, Buffer.from([0x80]), Buffer.alloc(length - content.length - 1)]);
}

/** ISO/IEC 7816-4 padding to a multiple of `block`. */
export const pad = (content, block) => padTo(content, paddedLength(content.length, block));

/** Removes padding without knowing the block size (SPEC §6.4); null when malformed. */
export function unpad(p) {
  const i = p.lastIndexOf(0x80);
  if (i < 0) return null;
  for (let j = i + 1; j < p.length; j++) if (p[j] !== 0) return null;
  return p.subarray(0, i);
}

/** E = 0x01 || kid || s || ChaCha20-Poly1305(mk, zero nonce, aad = header, P). */
export function sealEnvelope(key, salt, plaintext) {
  if (key.length !== KEY_BYTES || salt.length !== SALT_BYTES) throw new RangeError('key must be 32 bytes and salt 24 bytes');
  if (plaintext.length < 1 || HEADER_BYTES + plaintext.length + TAG_BYTES > MAX_ENVELOPE) {
    throw new RangeError('the envelope must be 58 to 4096 bytes');
  }
  const header = Buffer.concat([Buffer.from([VERSION]), keyId(key), salt]);
  const c = createCipheriv('chacha20-poly1305', messageKey(key, salt), ZERO_NONCE, { authTagLength: TAG_BYTES });
  c.setAAD(header, { plaintextLength: plaintext.length });
  return Buffer.concat([header, c.update(plaintext), c.final(), c.getAuthTag()]);
}

/** The padded plaintext P, or null when authentication fails (nothing is released then). */
export function openEnvelope(key, env) {
  const body = env.subarray(HEADER_BYTES);
  const ct = body.subarray(0, body.length - TAG_BYTES);
  const d = createDecipheriv('chacha20-poly1305', messageKey(key, env.subarray(17, HEADER_BYTES)), ZERO_NONCE,
    { authTagLength: TAG_BYTES });
  d.setAAD(env.subarray(0, HEADER_BYTES), { plaintextLength: ct.length });
  d.setAuthTag(body.subarray(body.length - TAG_BYTES));
  const first = d.update(ct); // not authentic yet: released only if final() succeeds
  try {
    return Buffer.concat([first, d.final()]);
  } catch {
    first.fill(0);
    return null;
  }
}

const MAX_I63 = (1n << 63n) - 1n;

/** An integer argument (an epoch, a time, a duration), exact: `value` as a BigInt when it is a
 * number up to 2^53 - 1 or a BigInt, `min` ≤ value ≤ 2^63 - 1 (SPEC §1: integers are read exactly,
 * and a double cannot hold more). A TypeError for another type, a RangeError otherwise. */
export function int63(value, name, min = 0n) {
  if (typeof value !== 'bigint' && typeof value !== 'number') throw new TypeError(`${name} must be a number or a bigint, not ${typeof value}`);
  const ok = (typeof value === 'bigint' || Number.isSafeInteger(value)) && BigInt(value) >= min && BigInt(value) <= MAX_I63;
  if (!ok) throw new RangeError(`${name} must be an integer ${min}...2^63-1 (a number up to 2^53 - 1, or a bigint)`);
  return BigInt(value);
}

/** A TypeError unless `value` is bytes (a Buffer or another Uint8Array): a string is refused,
 * never taken as its UTF-8 (a 32-character string is not a key). */
export function requireBytes(value, name) {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Buffer or Uint8Array, not ${value === null ? 'null' : typeof value}`);
  return value;
}

/** A TypeError unless `options` is undefined or a plain object whose members are all in `known`
 * (a misspelled option is an error, not silently ignored). */
export function checkOptions(options, known, what) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options) || options instanceof Uint8Array) {
    throw new TypeError(`${what} must be an object`);
  }
  const unknown = Object.keys(options).filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new TypeError(`unknown ${what} member ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return options;
}

/** A new conversation key: 32 bytes from the system's CSPRNG (SPEC §3.1). */
export function generateKey() { return randomBytes(32); }
