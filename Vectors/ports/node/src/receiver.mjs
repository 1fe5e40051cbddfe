// Opening payloads (SPEC §10): locate the envelope, run the checks in their exact order.

import { decodeContent } from './content.mjs';
import { ContentError, OpenError, Reason } from './errors.mjs';
import { JObj, parseJSON } from './strict-json.mjs';
import { HEADER_BYTES, MAX_ENVELOPE, MAX_WIRE_CHARS, MIN_ENVELOPE, VERSION, b64urlDecode, checkOptions, int63, keyId, openEnvelope, requireBytes, unpad } from './wire.mjs';

export const DEFAULT_MAX_AGE = 2678400;
export const DEFAULT_MAX_FUTURE_SKEW = 600;
/** Key-source answers besides a found key. */
export const KEY_NOT_FOUND = 'not_found';
export const KEY_LOCKED = 'locked';

/** A key source holding one conversation key; `locked` makes it answer KEY_LOCKED; `retireBy`
 * (seconds since 1970, or null while current) is the key's retire-by time (SPEC §10.2 step 11). */
export class SingleKeySource {
  #key; #kid; #conversation;
  constructor(key, conversation, { locked = false, retireBy = null } = {}) {
    requireBytes(key, 'key');
    if (key.length !== 32) throw new RangeError('a conversation key is 32 bytes');
    this.#key = Buffer.from(key); this.#kid = keyId(this.#key); this.#conversation = conversation; this.locked = locked;
    this.retireBy = retireBy;
  }
  lookup(kid) {
    if (!this.#kid.equals(kid)) return KEY_NOT_FOUND;
    return this.locked ? KEY_LOCKED : { key: this.#key, conversation: this.#conversation, retireBy: this.retireBy };
  }
}

/** Opens payloads with a key source ({lookup(kid)}), a clock and a duplicate log
 * (`seen(cid, mid)` answers whether the pair was delivered before and records it; `record(cid, mid,
 * envelope)`, when given, is used instead: it keeps a digest of each pair's first envelope and answers
 * 'first', 'duplicate' or 'conflict' — the pair again with another envelope, SPEC §10.4). */
export class Receiver {
  constructor(keySource, options) {
    const { maxAge = DEFAULT_MAX_AGE, maxFutureSkew = DEFAULT_MAX_FUTURE_SKEW, clock = () => Math.floor(Date.now() / 1000),
      seen = () => false, record = null } = checkOptions(options, ['maxAge', 'maxFutureSkew', 'clock', 'seen', 'record'], 'Receiver option');
    if (keySource === null || typeof keySource !== 'object' || typeof keySource.lookup !== 'function') {
      throw new TypeError('keySource must be an object with a lookup(kid) method');
    }
    for (const [name, f] of [['clock', clock], ['seen', seen]]) if (typeof f !== 'function') throw new TypeError(`${name} must be a function`);
    if (record !== null && typeof record !== 'function') throw new TypeError('record must be a function or null');
    int63(maxAge, 'maxAge');
    int63(maxFutureSkew, 'maxFutureSkew');
    Object.assign(this, { keySource, maxAge, maxFutureSkew, clock, seen, record });
  }

  /** Opens an APNs body, an FCM data map or an FCM v1 message: its exact bytes (Buffer or
   * Uint8Array) or text (string). Throws OpenError; a TypeError for anything else — an
   * already-parsed object has lost what SPEC §5.2 checks (duplicate members, exact numbers). */
  open(payload) {
    if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
      throw new TypeError('open() needs the payload as received: its bytes (Buffer/Uint8Array) or its JSON text, not a parsed '
        + `${payload === null ? 'null' : typeof payload} (JSON.parse drops duplicate members and rounds large numbers)`);
    }
    const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    const located = locate(bytes);
    if (located.reason) throw new OpenError(located.reason);
    return this.openWire(located.value);
  }

  /** Opens the wire string alone (steps 2-12). Throws OpenError. */
  openWire(wire) {
    if (typeof wire !== 'string' || wire.length > MAX_WIRE_CHARS) throw new OpenError(Reason.MALFORMED_ENVELOPE); // step 2
    const env = b64urlDecode(wire);
    if (!env || env.length === 0) throw new OpenError(Reason.MALFORMED_ENVELOPE);
    if (env[0] !== VERSION) throw new OpenError(Reason.UNSUPPORTED_VERSION); // step 3
    if (env.length < MIN_ENVELOPE || env.length > MAX_ENVELOPE) throw new OpenError(Reason.MALFORMED_ENVELOPE); // step 4
    const kid = env.subarray(1, 17);
    const found = this.keySource.lookup(kid);
    if (found === KEY_NOT_FOUND) throw new OpenError(Reason.UNKNOWN_KEY); // step 5
    if (found === null || typeof found !== 'object') throw new OpenError(Reason.STORE_LOCKED); // step 6
    if (!keyId(found.key).equals(kid)) throw new OpenError(Reason.UNKNOWN_KEY); // a key source derives kid from K
    const p = openEnvelope(found.key, env); // step 7
    if (!p) throw new OpenError(Reason.AUTHENTICATION_FAILED);
    const bytes = unpad(p); // step 8
    if (!bytes) throw new OpenError(Reason.MALFORMED_CONTENT);
    let content;
    try { ({ content } = decodeContent(bytes)); } catch (e) {
      if (e instanceof ContentError) throw new OpenError(Reason.MALFORMED_CONTENT);
      throw e;
    }
    if (!Buffer.from(content.cid, 'utf8').equals(Buffer.from(found.conversation, 'utf8'))) {
      throw new OpenError(Reason.CONVERSATION_MISMATCH); // step 9
    }
    // Steps 10-11 in BigInt: times up to 2^63 - 1, and their sums, exactly.
    const now = int63(this.clock(), 'clock()'); // step 10
    const maxAge = int63(this.maxAge, 'maxAge'); const maxFutureSkew = int63(this.maxFutureSkew, 'maxFutureSkew');
    const ts = BigInt(content.ts);
    if (now - ts > maxAge || ts - now > maxFutureSkew) throw new OpenError(Reason.STALE);
    const retireBy = found.retireBy === undefined || found.retireBy === null ? null : int63(found.retireBy, 'retireBy'); // step 11
    if (retireBy !== null && ts > retireBy + maxFutureSkew) throw new OpenError(Reason.RETIRED_KEY);
    // One content-free rule (SPEC 9.5, A.3): no body means fetch; trunc only marks a shortened body.
    let logged = 'first'; // step 12
    if (this.record === null) logged = this.seen(content.cid, content.mid) ? 'duplicate' : 'first';
    else {
      logged = this.record(content.cid, content.mid, Buffer.from(env));
      if (!['first', 'duplicate', 'conflict'].includes(logged)) throw new TypeError("record() must answer 'first', 'duplicate' or 'conflict'");
    }
    return { content, contentBytes: Buffer.from(bytes), duplicate: logged !== 'first', conflict: logged === 'conflict',
      requiresFetch: content.body === undefined, truncated: content.trunc === true };
  }
}

/** `new Receiver(keySource, options).open(payload)`. */
export const openPayload = (payload, keySource, options) => new Receiver(keySource, options).open(payload);
/** `new Receiver(keySource, options).openWire(wire)`. */
export const openWire = (wire, keySource, options) => new Receiver(keySource, options).openWire(wire);

// SPEC §10.1 and the payload part of steps 1-2: { reason } or { value }.
function locate(payload) {
  let root;
  try { root = parseJSON(payload, { recordDups: true }); } catch { return { reason: Reason.NOT_SEALED }; }
  if (!(root instanceof JObj)) return { reason: Reason.NOT_SEALED };
  let holder = root;
  let members = root.getAll('pushseal');
  if (members.length === 0) {
    const msgs = root.getAll('message');
    if (msgs.length === 1 && msgs[0] instanceof JObj) {
      const datas = msgs[0].getAll('data');
      if (datas.length === 1 && datas[0] instanceof JObj) { holder = datas[0]; members = holder.getAll('pushseal'); }
    }
  }
  if (members.length === 0) return { reason: Reason.NOT_SEALED };
  const otherDups = (v) => {
    if (v instanceof JObj) {
      const d = v.dupNames();
      if (v === holder) d.delete('pushseal');
      return d.size > 0 || v.pairs.some(([, x]) => otherDups(x));
    }
    if (Array.isArray(v)) return v.some(otherDups);
    return false;
  };
  if (otherDups(root)) return { reason: Reason.NOT_SEALED };
  if (members.length > 1) return { reason: Reason.MALFORMED_ENVELOPE };
  return { value: members[0] };
}
