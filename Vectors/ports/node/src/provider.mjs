// Sealing with the provider's size policy (SPEC §6.3, §9): APNs bodies and FCM v1 messages that
// always fit, byte for byte what the Swift provider (NotificationSealer) emits.

import { randomBytes } from 'node:crypto';
import { MAX_CONTENT_BYTES, contentFree, encodeContent, escapedLength, isContentFreeShape, jsonString, validateContent } from './content.mjs';
import { BundleError, BundleReason, deviceKey, parseBundle } from './bundle.mjs';
import { graphemeClusters } from './graphemes.mjs';
import { ContentError, SealError } from './errors.mjs';
import { HEADER_BYTES, MAX_ENVELOPE, MIN_ENVELOPE, SALT_BYTES, TAG_BYTES, b64urlEncode, decodedLength, encodedLength, checkOptions, keyId, opaqueThreadId, padTo, paddedLength, requireBytes, sealEnvelope } from './wire.mjs';

export const DEFAULT_PAD_BLOCK = 256;
export const MAX_PAD_BLOCK = 4096;
export const APNS_LIMIT = 4096;
export const FCM_DATA_LIMIT = 4096;
export const ELLIPSIS = '\u2026';
/** `threadId` default: base64url of the key's thread id (never the conversation id). */
export const OPAQUE = Symbol('pushseal.opaqueThreadId');
const OVERHEAD = HEADER_BYTES + TAG_BYTES;
const LEVELS = ['passive', 'active', 'time-sensitive', 'critical'];

function validateAPNs(o) {
  const p = o.placeholder ?? { body: 'New message' };
  if ('locKey' in p) {
    if (!p.locKey) throw new SealError('missing_placeholder', 'the placeholder has no loc-key');
    if (p.titleLocKey === '') throw new SealError('invalid_placeholder', 'empty title-loc-key (omit it for no title)');
    if (p.titleLocKey === undefined && (p.titleLocArgs ?? []).length > 0) {
      throw new SealError('invalid_placeholder', 'title-loc-args given without a title-loc-key');
    }
  } else {
    if (!p.body) throw new SealError('missing_placeholder', 'the placeholder has no text');
    if (p.title === '') throw new SealError('invalid_placeholder', 'empty title (omit it for no title)');
  }
  for (const n of ['sound', 'category']) if (o[n] === '') throw new SealError('invalid_option', `${n}: empty (omit it for none)`);
  if (o.interruptionLevel !== undefined && !LEVELS.includes(o.interruptionLevel)) {
    throw new SealError('invalid_option', 'interruption-level must be passive, active, time-sensitive or critical');
  }
  if (o.relevanceScore !== undefined && !(o.relevanceScore >= 0 && o.relevanceScore <= 1)) {
    throw new SealError('invalid_option', 'relevance-score must be a number from 0 to 1');
  }
  const t = o.threadId === undefined ? OPAQUE : o.threadId;
  if (t !== OPAQUE && t !== null && (typeof t !== 'string' || t === '')) throw new SealError('invalid_option', 'thread-id: empty (use null for none)');
}

function validateFCM(o) {
  const t = o.token;
  if (typeof t !== 'string' || t.length < 1 || t.length > 4096 || ![...t].every((c) => c >= '!' && c <= '~' && c !== '"' && c !== '\\')) {
    throw new SealError('invalid_fcm_token', "1 to 4096 bytes of visible ASCII other than '\"' and '\\'");
  }
  if (!['high', 'normal'].includes(o.priority ?? 'high')) throw new SealError('invalid_option', 'priority must be high or normal');
  const ttl = o.ttl ?? 2419200;
  if (!Number.isSafeInteger(ttl) || ttl < 0 || ttl > 2419200) throw new SealError('invalid_option', 'ttl must be 0 to 2419200 seconds');
}

/** round(score × 1000) thousandths (half away from zero), as `0`, `1` or `0.ddd`. */
export function relevanceScoreText(score) {
  const x = score * 1000;
  const whole = Math.floor(x);
  const thousandths = x - whole >= 0.5 ? whole + 1 : whole;
  if (thousandths <= 0) return '0';
  if (thousandths >= 1000) return '1';
  return `0.${String(thousandths).padStart(3, '0').replace(/0+$/, '')}`;
}

function apnsFrame(o, key) {
  const p = o.placeholder ?? { body: 'New message' };
  let s = '{"aps":{"alert":{';
  if ('locKey' in p) {
    if (p.titleLocKey !== undefined) {
      s += `"title-loc-key":${jsonString(p.titleLocKey)}`;
      if ((p.titleLocArgs ?? []).length > 0) s += `,"title-loc-args":[${p.titleLocArgs.map(jsonString).join(',')}]`;
      s += ',';
    }
    s += `"loc-key":${jsonString(p.locKey)}`;
    if ((p.locArgs ?? []).length > 0) s += `,"loc-args":[${p.locArgs.map(jsonString).join(',')}]`;
  } else {
    if (p.title !== undefined) s += `"title":${jsonString(p.title)},`;
    s += `"body":${jsonString(p.body)}`;
  }
  s += '},"mutable-content":1';
  if (o.sound !== undefined) s += `,"sound":${jsonString(o.sound)}`;
  const t = o.threadId === undefined ? OPAQUE : o.threadId;
  if (t !== null) s += `,"thread-id":${jsonString(t === OPAQUE ? opaqueThreadId(key) : t)}`;
  if (o.category !== undefined) s += `,"category":${jsonString(o.category)}`;
  if (o.interruptionLevel !== undefined) s += `,"interruption-level":${jsonString(o.interruptionLevel)}`;
  if (o.relevanceScore !== undefined) s += `,"relevance-score":${relevanceScoreText(o.relevanceScore)}`;
  s += '},"pushseal":"';
  const prefix = Buffer.from(s, 'utf8');
  const suffix = Buffer.from('"}');
  return carrying({ prefix, suffix, overhead: prefix.length + suffix.length, limit: APNS_LIMIT }, o.keyBundle, true);
}

function fcmFrame(o) {
  const prefix = Buffer.from(`{"message":{"token":${jsonString(o.token)},"data":{"pushseal":"`, 'utf8');
  const suffix = Buffer.from(`"},"android":{"priority":${jsonString(o.priority ?? 'high')},"ttl":"${o.ttl ?? 2419200}s"}}}`, 'utf8');
  return carrying({ prefix, suffix, overhead: 'pushseal'.length, limit: FCM_DATA_LIMIT }, o.keyBundle, false);
}

const BUNDLE_MEMBER = 'pushseal-bundle';

function deviceKeyFor(conversationKey, deviceKeyId) {
  requireBytes(conversationKey, 'conversationKey');
  requireBytes(deviceKeyId, 'deviceKeyId');
  if (conversationKey.length !== 32) throw new SealError('invalid_key', 'a conversation key is 32 bytes');
  if (deviceKeyId.length !== 16) throw new SealError('invalid_key', 'a device key id is 16 bytes');
  return deviceKey(conversationKey, deviceKeyId);
}

// An in-band bundle (SPEC §16.7) must be a format-2 bundle (its kid is sealed: whether it delivers
// the notification's key is the device's step 8b, envelope_mismatch).
function checkBundle(bundle) {
  if (bundle === undefined || bundle === null) return;
  try {
    if (typeof bundle !== 'string') throw new BundleError(BundleReason.MALFORMED_BUNDLE);
    parseBundle(bundle);
  } catch (e) {
    if (e instanceof BundleError) throw new SealError('invalid_option', `keyBundle: ${e.reason}`);
    throw e;
  }
}

// The frame with the bundle as a "pushseal-bundle" member right after the wire string, counted
// first: 21 + |text| JSON bytes (APNs), or 15 + |text| data-map bytes (FCM).
function carrying(frame, bundle, jsonBytes) {
  if (bundle === undefined || bundle === null) return frame;
  const added = Buffer.from(`","${BUNDLE_MEMBER}":"${bundle}`, 'ascii');
  const counted = jsonBytes ? added.length : BUNDLE_MEMBER.length + bundle.length;
  return { ...frame, suffix: Buffer.concat([added, frame.suffix]), overhead: frame.overhead + counted };
}

/** The longest prefix of `text` ending at an extended grapheme cluster boundary (UAX #29 with
 * GB9c, the port's own table: not the runtime's ICU) whose JSON-escaped length is at most `budget`. */
export function graphemePrefix(text, budget) {
  let end = 0;
  let used = 0;
  for (const segment of graphemeClusters(text)) {
    used += escapedLength(segment);
    if (used > budget) break;
    end += segment.length;
  }
  return text.slice(0, end);
}

/** What to seal so the encoded content is at most `budget` bytes: {content, path} or null. */
export function plan(content, budget) {
  if (encodeContent(content).length <= budget) return { content, path: 'complete' };
  if (content.body !== undefined) {
    const shell = { ...content, body: '', trunc: true };
    const prefixBudget = budget - encodeContent(shell).length - 3;
    if (prefixBudget >= 0) return { content: { ...shell, body: graphemePrefix(content.body, prefixBudget) + ELLIPSIS }, path: 'truncated' };
  }
  const free = contentFree(content);
  return encodeContent(free).length <= budget ? { content: free, path: 'content_free' } : null;
}

/** Seals contents with the size policy. Salts are fresh random bytes; `testSalt` is for test
 * vectors only (a repeated salt under one key breaks confidentiality). */
export class Sealer {
  constructor(options) {
    const { padBlock = DEFAULT_PAD_BLOCK } = checkOptions(options, ['padBlock'], 'Sealer option');
    if (!Number.isInteger(padBlock) || padBlock < 1 || padBlock > MAX_PAD_BLOCK) {
      throw new SealError('invalid_pad_block', `pad block ${padBlock} is outside 1...${MAX_PAD_BLOCK}`);
    }
    this.padBlock = padBlock;
  }

  /**
   * The APNs JSON body (≤ 4096 bytes): {body, text, path, sizes, wire, content}. Throws SealError.
   * With `options.keyBundle` (a bundle's text) the bundle is carried in band, counted first.
   */
  sealAPNs(content, key, options = {}, extra = undefined) {
    const { testSalt } = checkOptions(extra, ['testSalt'], 'sealing option');
    checkContent(content);
    requireBytes(key, 'key');
    checkOptions(options, APNS_OPTIONS, 'APNs option');
    validateAPNs(options);
    checkBundle(options.keyBundle);
    return this.#seal(content, key, apnsFrame(options, key), testSalt);
  }

  /**
   * The FCM HTTP v1 message (data ≤ 4096 bytes). Throws SealError. With `options.keyBundle` the
   * bundle is carried in band as data "pushseal-bundle", counted first.
   */
  sealFCM(content, key, options, extra = undefined) {
    const { testSalt } = checkOptions(extra, ['testSalt'], 'sealing option');
    checkContent(content);
    requireBytes(key, 'key');
    checkOptions(options, FCM_OPTIONS, 'FCM option');
    validateFCM(options ?? {});
    checkBundle(options.keyBundle);
    return this.#seal(content, key, fcmFrame(options), testSalt);
  }

  /**
   * sealAPNs for one device: sealed under that device's key K_d = HKDF-Expand(K, "pushseal v1
   * device conversation key" || deviceKeyId, 32) of the conversation key K (SPEC §4.4), so only
   * that device opens it. Throws SealError.
   */
  sealAPNsForDevice(content, conversationKey, deviceKeyId, options = {}, extra = undefined) {
    return this.sealAPNs(content, deviceKeyFor(conversationKey, deviceKeyId), options, extra);
  }

  /** sealFCM for one device, under its key K_d (see sealAPNsForDevice). Throws SealError. */
  sealFCMForDevice(content, conversationKey, deviceKeyId, options, extra = undefined) {
    return this.sealFCM(content, deviceKeyFor(conversationKey, deviceKeyId), options, extra);
  }

  #seal(content, key, frame, salt) {
    if (!key || key.length !== 32) throw new SealError('invalid_key', 'a conversation key is 32 bytes');
    if (salt !== undefined) requireBytes(salt, 'testSalt');
    if (salt !== undefined && salt.length !== SALT_BYTES) throw new SealError('invalid_salt', `salt must be 24 bytes, got ${salt.length}`);
    const room = frame.limit - frame.overhead;
    const largest = room >= 0 ? Math.min(MAX_ENVELOPE, decodedLength(room)) : 0;
    if (largest < MIN_ENVELOPE) throw doesNotFit(content, frame);
    const maxPadded = largest - OVERHEAD;
    const planned = plan(content, Math.min(MAX_CONTENT_BYTES, maxPadded - 1));
    if (!planned) throw doesNotFit(content, frame);
    const data = encodeContent(planned.content);
    const padded = Math.min(paddedLength(data.length, this.padBlock), maxPadded);
    const envelope = sealEnvelope(Buffer.from(key), salt !== undefined ? Buffer.from(salt) : randomBytes(SALT_BYTES), padTo(data, padded));
    const wire = b64urlEncode(envelope);
    const body = Buffer.concat([frame.prefix, Buffer.from(wire, 'ascii'), frame.suffix]);
    const sizes = { content: data.length, padded, envelope: envelope.length, wire: wire.length, payload: body.length,
      limited: frame.overhead + wire.length, limit: frame.limit };
    return { body, text: body.toString('utf8'), path: planned.path, sizes, wire, content: planned.content };
  }
}

/** The members each transport's options may have. */
const APNS_OPTIONS = ['placeholder', 'sound', 'threadId', 'category', 'interruptionLevel', 'relevanceScore', 'keyBundle'];
const FCM_OPTIONS = ['token', 'priority', 'ttl', 'keyBundle'];

function checkContent(content) {
  if (content === null || typeof content !== 'object' || Array.isArray(content)) throw new TypeError('content must be an object');
  try { validateContent(content); } catch (e) {
    if (e instanceof ContentError) throw new SealError('invalid_content', e.message);
    throw e;
  }
  if (content.body === undefined && !isContentFreeShape(content)) {
    throw new SealError('invalid_content', 'body is required except in the content-free form (cid, mid, ts)');
  }
}

function doesNotFit(content, frame) {
  const count = frame.overhead + encodedLength(encodeContent(contentFree(content)).length + 1 + OVERHEAD);
  return new SealError('does_not_fit', `even the content-free payload is ${count} bytes, more than the ${frame.limit}-byte limit (shorten the placeholder or outer fields)`);
}
