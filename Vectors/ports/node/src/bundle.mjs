// Key bundles, format 2 (SPEC §16): one device key K_d for one (conversation, epoch), sealed to one
// device with HPKE mode_auth (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) by the
// provider's key. The provider's conversation key K never leaves the provider: a bundle carries
// K_d = HKDF-Expand(K, "pushseal v1 device conversation key" || deviceKeyId, 32) (SPEC §4.4).
// A backend seals with sealBundle(); a device opens, checks and installs with openBundle(), which
// throws a BundleError whose `reason` is the first failed check (SPEC §16.5). Every integer of a
// bundle (epochs, times) is a BigInt here: they go up to 2^63 - 1.

import { timingSafeEqual } from 'node:crypto';
import { PushSealError } from './errors.mjs';
import { HPKEError, publicKey, setupReceiver, setupSender } from './hpke.mjs';
import { KEY_NOT_FOUND } from './receiver.mjs';
import { JObj, JSONError, parseJSON } from './strict-json.mjs';
import { b64urlDecode, b64urlEncode, hkdfExpand, int63, keyId } from './wire.mjs';

export const BUNDLE_VERSION = 0x02;
export const BUNDLE_INFO = Buffer.from('pushseal v1 key bundle 2', 'ascii');
const DEVICE_KEY_INFO = Buffer.from('pushseal v1 device conversation key', 'ascii');
/** The retireBy field of a bundle whose epoch was current when sealed (2^64 − 1). */
export const NO_RETIRE_BY = 0xFFFFFFFFFFFFFFFFn;
/** Kept for callers of format 1: the same all-ones value. A format-2 bundle always expires. */
export const NO_EXPIRY = NO_RETIRE_BY;
const HEADER = 17; // B: version || provider key id
const ENC = 32;
/** The sealed plaintext, in bytes, of every bundle. */
export const PLAINTEXT_BYTES = 338;
/** The length of every bundle, in bytes (538 characters of text). */
export const BUNDLE_BYTES = HEADER + ENC + PLAINTEXT_BYTES + 16;
const MAX_CID = 256;
const MAX_63 = (1n << 63n) - 1n;
/** A longer text is refused before it is decoded. */
export const MAX_TEXT = 1024;
/** The newest epoch moves by at most this much per bundle (rule 9b). */
export const MAX_EPOCH_STEP = 65536n;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Why a key bundle was refused, in the order the device checks (plus store_locked). */
export const BundleReason = Object.freeze({
  MALFORMED_BUNDLE: 'malformed_bundle',
  UNSUPPORTED_BUNDLE_VERSION: 'unsupported_bundle_version',
  UNKNOWN_PROVIDER: 'unknown_provider',
  BUNDLE_AUTHENTICATION_FAILED: 'bundle_authentication_failed',
  KID_MISMATCH: 'kid_mismatch',
  BUNDLE_EXPIRED: 'bundle_expired',
  ENVELOPE_MISMATCH: 'envelope_mismatch',
  EPOCH_PURGED: 'epoch_purged',
  EPOCH_OUT_OF_RANGE: 'epoch_out_of_range',
  CONFLICTING_KEY: 'conflicting_key',
  STORE_LOCKED: 'store_locked',
});

/** What installing a bundle did. */
export const BundleOutcome = Object.freeze({
  INSTALLED: 'installed',
  INSTALLED_RETIRED: 'installed_retired',
  ALREADY_INSTALLED: 'already_installed',
});

/** A key bundle was refused; `reason` is its reason code. Carries no key material. */
export class BundleError extends PushSealError {
  constructor(reason) { super(`cannot install key bundle: ${reason}`); this.reason = reason; }
}

/** Thrown by a bundle key store that cannot be read or written now; reported as store_locked. */
export class StoreLocked extends PushSealError {
  constructor() { super('the key store is locked'); }
}

/**
 * K_d = HKDF-Expand(K, "pushseal v1 device conversation key" || deviceKeyId, 32) (SPEC §4.4): the key
 * of one device for one (conversation, epoch). Its kid and thread-id come from it as from any key.
 */
export function deviceKey(conversationKey, deviceKeyIdBytes) {
  if (!(conversationKey instanceof Uint8Array) || conversationKey.length !== 32) throw new RangeError('the conversation key must be 32 bytes');
  if (!(deviceKeyIdBytes instanceof Uint8Array) || deviceKeyIdBytes.length !== 16) throw new RangeError('the device key id must be 16 bytes');
  return hkdfExpand(Buffer.from(conversationKey), Buffer.concat([DEVICE_KEY_INFO, deviceKeyIdBytes]), 32);
}

/** HKDF-Expand(PRK = the device's X25519 public key, "pushseal v1 device key id", 16). */
export const deviceKeyId = (devicePublicKey) => hkdfExpand(Buffer.from(devicePublicKey), Buffer.from('pushseal v1 device key id', 'ascii'), 16);
/** HKDF-Expand(PRK = the provider's X25519 public key, "pushseal v1 provider key id", 16). */
export const providerKeyId = (providerPublicKey) => hkdfExpand(Buffer.from(providerPublicKey), Buffer.from('pushseal v1 provider key id', 'ascii'), 16);

export const REGISTRATION_SUITE = 'pushseal-v1-x25519';

/** A device registration was refused (SPEC §16.1); the message says why. */
export class RegistrationError extends PushSealError {}

/**
 * The registration a device sends to its backend next to its push token (SPEC §16.1):
 * {"suite":"pushseal-v1-x25519","deviceKeyId":…,"publicKey":…}.
 */
export function deviceRegistration(devicePublicKey) {
  if (!(devicePublicKey instanceof Uint8Array) || devicePublicKey.length !== 32) throw new RangeError('the device public key must be 32 bytes');
  return `{"suite":"${REGISTRATION_SUITE}","deviceKeyId":"${b64urlEncode(deviceKeyId(devicePublicKey))}","publicKey":"${b64urlEncode(devicePublicKey)}"}`;
}

/**
 * The device public key of a registration, for a backend that seals bundles to it. Throws
 * RegistrationError unless it is a strict JSON object whose suite is pushseal-v1-x25519, whose
 * publicKey is 32 bytes of strict base64url and whose deviceKeyId is that key's device key id
 * (other members are ignored).
 */
export function registrationPublicKey(registration) {
  let root;
  try {
    root = parseJSON(typeof registration === 'string' ? Buffer.from(registration, 'utf8') : Buffer.from(registration));
  } catch (e) {
    if (e instanceof JSONError) throw new RegistrationError(`not strict JSON: ${e.message}`);
    throw e;
  }
  if (!(root instanceof JObj)) throw new RegistrationError('not a JSON object');
  if (root.get('suite') !== REGISTRATION_SUITE) throw new RegistrationError(`suite is not ${REGISTRATION_SUITE}`);
  const text = root.get('publicKey'); const idText = root.get('deviceKeyId');
  const pk = typeof text === 'string' ? b64urlDecode(text) : null;
  if (!pk || pk.length !== 32) throw new RegistrationError('publicKey is not 32 bytes of strict base64url');
  const id = typeof idText === 'string' ? b64urlDecode(idText) : null;
  if (!id || !id.equals(deviceKeyId(pk))) throw new RegistrationError('deviceKeyId is not the device key id of publicKey');
  return pk;
}

/**
 * Parses a bundle (its text or its bytes) after steps 1-3 of the checks:
 * { headerBytes, providerKeyId, enc, ciphertext }. Throws BundleError malformed_bundle (text longer
 * than 1024 characters or not strict base64url), unsupported_bundle_version (checked before the
 * length, so format 1 reports this), malformed_bundle (not 403 bytes).
 */
export function parseBundle(bundle) {
  let data;
  if (typeof bundle === 'string') data = bundle.length <= MAX_TEXT ? b64urlDecode(bundle) : null;
  else if (bundle instanceof Uint8Array) data = Buffer.from(bundle);
  else data = null;
  if (!data || data.length === 0) throw new BundleError(BundleReason.MALFORMED_BUNDLE);
  if (data[0] !== BUNDLE_VERSION) throw new BundleError(BundleReason.UNSUPPORTED_BUNDLE_VERSION);
  if (data.length !== BUNDLE_BYTES) throw new BundleError(BundleReason.MALFORMED_BUNDLE);
  return { headerBytes: data.subarray(0, HEADER), providerKeyId: data.subarray(1, HEADER), enc: data.subarray(HEADER, HEADER + ENC), ciphertext: data.subarray(HEADER + ENC) };
}

// SPEC §5.1's identifier rule on UTF-8 bytes: 1-256 bytes of valid UTF-8 without a C0 control.
function identifier(bytes) {
  if (bytes.length < 1 || bytes.length > MAX_CID) return null;
  let text;
  try { text = STRICT_UTF8.decode(bytes); } catch { return null; }
  return /[\u0000-\u001f]/.test(text) ? null : text;
}

/**
 * The fields of a 338-byte plaintext: { key, kid, epoch, since, retireBy (null while current),
 * expires, conversation } (integers as BigInts). Throws malformed_bundle when one is out of range
 * (step 6); the kid is checked by step 7.
 */
export function decodePlaintext(pt) {
  if (pt.length !== PLAINTEXT_BYTES) throw new BundleError(BundleReason.MALFORMED_BUNDLE);
  const b = Buffer.from(pt.buffer, pt.byteOffset, pt.length);
  const epoch = b.readBigUInt64BE(48); const since = b.readBigUInt64BE(56);
  const retireBy = b.readBigUInt64BE(64); const expires = b.readBigUInt64BE(72);
  const n = b.readUInt16BE(80);
  const conversation = n >= 1 && n <= MAX_CID ? identifier(b.subarray(82, 82 + n)) : null;
  if (epoch < 1n || epoch > MAX_63 || since > MAX_63 || expires > MAX_63
      || !(retireBy === NO_RETIRE_BY || (retireBy >= since && retireBy <= MAX_63))
      || conversation === null || b.subarray(82 + n).some((x) => x !== 0)) {
    throw new BundleError(BundleReason.MALFORMED_BUNDLE);
  }
  return { key: Buffer.from(b.subarray(0, 32)), kid: Buffer.from(b.subarray(32, 48)), epoch, since, retireBy: retireBy === NO_RETIRE_BY ? null : retireBy, expires, conversation };
}


/**
 * The bundle text (538 characters of base64url) delivering the device key K_d of `conversationKey`
 * (the provider's K of (conversation, epoch)) to the device whose X25519 public key is
 * `devicePublicKey`, sealed by `providerPrivateKey` (SPEC §16.4). `since`: when the epoch became
 * current; `retireBy`: null while it is current, else its last current second (≥ since);
 * `expires`: the last second the bundle may be installed (e.g. now + 30 days). Integers are
 * numbers or bigints up to 2^63 - 1. `testIkmE` is for test vectors only.
 */
export function sealBundle({ conversationKey, devicePublicKey, conversation, epoch, since, retireBy = null, expires, providerPrivateKey, testIkmE = null }) {
  for (const [name, v] of [['conversationKey', conversationKey], ['providerPrivateKey', providerPrivateKey], ['devicePublicKey', devicePublicKey]]) {
    if (!(v instanceof Uint8Array) || v.length !== 32) throw new RangeError(`${name} must be 32 bytes`);
  }
  const e = int63(epoch, 'epoch', 1n); const s = int63(since, 'since', 0n); const x = int63(expires, 'expires', 0n);
  const r = retireBy === null ? NO_RETIRE_BY : int63(retireBy, 'retireBy', 0n);
  if (r !== NO_RETIRE_BY && r < s) throw new RangeError('retireBy must not be before since');
  const cid = typeof conversation === 'string' && !LONE_SURROGATE.test(conversation) ? Buffer.from(conversation, 'utf8') : Buffer.alloc(0);
  if (identifier(cid) === null) throw new RangeError('the conversation must be 1-256 bytes of UTF-8 without a control character');
  const kd = deviceKey(conversationKey, deviceKeyId(devicePublicKey));
  const pt = Buffer.alloc(PLAINTEXT_BYTES);
  kd.copy(pt, 0); keyId(kd).copy(pt, 32);
  pt.writeBigUInt64BE(e, 48); pt.writeBigUInt64BE(s, 56); pt.writeBigUInt64BE(r, 64); pt.writeBigUInt64BE(x, 72);
  pt.writeUInt16BE(cid.length, 80); cid.copy(pt, 82);
  const headerBytes = Buffer.concat([Buffer.from([BUNDLE_VERSION]), providerKeyId(publicKey(providerPrivateKey))]);
  try {
    const { enc, context } = setupSender(devicePublicKey, BUNDLE_INFO, { senderPrivateKey: providerPrivateKey, testIkmE });
    return b64urlEncode(Buffer.concat([headerBytes, enc, context.seal(headerBytes, pt)]));
  } finally {
    pt.fill(0); kd.fill(0);
  }
}

const sameBytes = (a, b) => a.length === b.length && timingSafeEqual(a, b);
const min = (a, b) => (a < b ? a : b);

/**
 * An in-memory key store: installs bundles and is a receiver key source (lookup, with each key's
 * retire-by time), so a notification sealed under an installed key opens. For tests and examples;
 * a real app keeps keys and conversation records in protected storage. The store interface that
 * openBundle uses: keyFor(cid, epoch) → { key, notAfter } | null, locationOf(kid) →
 * { conversation, epoch } | null, record(cid) → { highWater, highWaterSince, purgedThrough } | null,
 * startedAbove(cid, epoch) → the earliest created time of the cid's stored keys above epoch | null,
 * install(cid, epoch, key, notAfter, created) (from a bundle, created = min(since, now): the key's
 * start, step 9e/9f), setNotAfter(cid, epoch, notAfter),
 * retireEarlier(cid, epoch, at), setRecord(cid, record); any of them throws StoreLocked when the
 * store cannot be used. openBundle calls them synchronously, so within one process they are
 * atomic; a store shared between processes must make them one transaction. Epochs and times are
 * BigInts; notAfter null means current.
 */
export class MemoryKeyStore {
  #keys = new Map(); // "epoch cid" -> { conversation, epoch, key, notAfter, created }
  #kids = new Map(); // kid hex -> { conversation, epoch }
  #records = new Map(); // cid -> { highWater, highWaterSince, purgedThrough }

  /** { key, notAfter } stored for (conversation, epoch), or null. */
  keyFor(conversation, epoch) {
    const row = this.#keys.get(`${BigInt(epoch)} ${conversation}`);
    return row === undefined ? null : { key: row.key, notAfter: row.notAfter };
  }

  /** { conversation, epoch } of the stored key with this kid, or null. */
  locationOf(kid) { return this.#kids.get(Buffer.from(kid).toString('hex')) ?? null; }

  /** The conversation record; without one, the newest stored epoch and its created time. */
  record(conversation) {
    const stored = this.#records.get(conversation);
    if (stored !== undefined) return { ...stored };
    let newest = null;
    for (const row of this.#keys.values()) {
      if (row.conversation === conversation && (newest === null || row.epoch > newest.epoch)) newest = row;
    }
    return newest === null ? null : { highWater: newest.epoch, highWaterSince: newest.created, purgedThrough: 0n };
  }

  /** The earliest created time of the conversation's stored keys with an epoch above `epoch`, or null (step 9f). */
  startedAbove(conversation, epoch) {
    let earliest = null;
    for (const row of this.#keys.values()) {
      if (row.conversation === conversation && row.epoch > BigInt(epoch) && (earliest === null || row.created < earliest)) earliest = row.created;
    }
    return earliest;
  }

  /** The created time of the stored key of (conversation, epoch), or null. */
  createdAt(conversation, epoch) { return this.#keys.get(`${BigInt(epoch)} ${conversation}`)?.created ?? null; }

  /** Stores a key for (conversation, epoch) (also for adding one by hand, as a test fixture). */
  install(conversation, epoch, key, notAfter = null, created = 0n) {
    if (!(key instanceof Uint8Array) || key.length !== 32) throw new RangeError('a key is 32 bytes');
    const e = BigInt(epoch);
    this.#keys.set(`${e} ${conversation}`, { conversation, epoch: e, key: Buffer.from(key), notAfter: notAfter === null ? null : BigInt(notAfter), created: BigInt(created) });
    this.#kids.set(keyId(key).toString('hex'), { conversation, epoch: e });
  }

  /** Sets the not-after time of the stored key of (conversation, epoch). */
  setNotAfter(conversation, epoch, notAfter) { this.#keys.get(`${BigInt(epoch)} ${conversation}`).notAfter = BigInt(notAfter); }

  /** Every stored key of the conversation below `epoch` gets notAfter := min(its notAfter, at). */
  retireEarlier(conversation, epoch, at) {
    for (const row of this.#keys.values()) {
      if (row.conversation === conversation && row.epoch < BigInt(epoch)) row.notAfter = row.notAfter === null ? BigInt(at) : min(row.notAfter, BigInt(at));
    }
  }

  /** Writes the conversation record. */
  setRecord(conversation, record) {
    this.#records.set(conversation, { highWater: BigInt(record.highWater), highWaterSince: BigInt(record.highWaterSince), purgedThrough: BigInt(record.purgedThrough) });
  }

  /** Deletes the key of (conversation, epoch) and sets the tombstone P := max(P, epoch): a purged epoch never comes back. */
  purge(conversation, epoch) {
    const e = BigInt(epoch);
    const row = this.#keys.get(`${e} ${conversation}`);
    if (row !== undefined) { this.#keys.delete(`${e} ${conversation}`); this.#kids.delete(keyId(row.key).toString('hex')); }
    const old = this.record(conversation) ?? { highWater: 0n, highWaterSince: 0n, purgedThrough: 0n };
    this.#records.set(conversation, { ...old, purgedThrough: old.purgedThrough > e ? old.purgedThrough : e });
  }

  /** The receiver's key source: { key, conversation, retireBy (null while current) } for this kid, or KEY_NOT_FOUND. */
  lookup(kid) {
    const place = this.locationOf(kid);
    if (place === null) return KEY_NOT_FOUND;
    const { key, notAfter } = this.keyFor(place.conversation, place.epoch);
    // A safe integer as a number (what every receiver compares), a larger one as the exact BigInt.
    const retireBy = notAfter !== null && notAfter <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(notAfter) : notAfter;
    return { key, conversation: place.conversation, retireBy };
  }
}

/**
 * Checks a bundle in the order of SPEC §16.5 and installs its key by the rules of step 9. Returns
 * { outcome ('installed' | 'installed_retired' | 'already_installed'), alreadyInstalled, bundle
 * (the sealed fields), conversation, notAfter (the stored key's, null while current),
 * retireEarlierAt (9e, else null), record (the conversation record afterwards) }. `envelopeKid`:
 * in band, the kid of the envelope the bundle rides with (step 8b). Throws BundleError with the
 * first failed check's reason and installs nothing then. `now`: seconds since 1970 (number or bigint).
 */
export function openBundle(bundle, { devicePrivateKey, pinnedProviderKeys, store, now, envelopeKid = null }) {
  const { headerBytes, providerKeyId: pid, enc, ciphertext } = parseBundle(bundle); // steps 1-3
  const provider = [...pinnedProviderKeys].find((p) => sameBytes(providerKeyId(p), pid));
  if (provider === undefined) throw new BundleError(BundleReason.UNKNOWN_PROVIDER); // step 4
  let pt;
  try { // step 5
    pt = setupReceiver(enc, devicePrivateKey, BUNDLE_INFO, { senderPublicKey: Buffer.from(provider) }).open(headerBytes, ciphertext);
  } catch (e) {
    if (e instanceof HPKEError) throw new BundleError(BundleReason.BUNDLE_AUTHENTICATION_FAILED);
    throw e;
  }
  let opened;
  try {
    opened = decodePlaintext(pt); // step 6
  } finally {
    pt.fill(0);
  }
  try {
    if (!sameBytes(keyId(opened.key), opened.kid)) throw new BundleError(BundleReason.KID_MISMATCH); // step 7
    const t = BigInt(now);
    if (t > opened.expires) throw new BundleError(BundleReason.BUNDLE_EXPIRED); // step 8
    if (envelopeKid !== null && !sameBytes(Buffer.from(envelopeKid), opened.kid)) throw new BundleError(BundleReason.ENVELOPE_MISMATCH); // step 8b
    try { // step 9
      return install(store, opened, t);
    } catch (e) {
      if (e instanceof StoreLocked) throw new BundleError(BundleReason.STORE_LOCKED);
      throw e;
    }
  } catch (e) {
    opened.key.fill(0);
    throw e;
  }
}

function install(store, o, now) {
  const cid = o.conversation; const epoch = o.epoch;
  const record = store.record(cid);
  const purged = record === null ? 0n : BigInt(record.purgedThrough);
  if (record !== null && epoch <= purged) throw new BundleError(BundleReason.EPOCH_PURGED); // 9a
  const high = record === null || BigInt(record.highWater) === 0n ? null : BigInt(record.highWater);
  if (high !== null && epoch > high && epoch - high > MAX_EPOCH_STEP) throw new BundleError(BundleReason.EPOCH_OUT_OF_RANGE); // 9b
  const existing = store.keyFor(cid, epoch);
  const where = store.locationOf(o.kid);
  const elsewhere = where !== null && (where.conversation !== cid || BigInt(where.epoch) !== epoch);
  if ((existing !== null && !sameBytes(Buffer.from(existing.key), o.key)) || elsewhere) throw new BundleError(BundleReason.CONFLICTING_KEY); // 9c
  const result = (outcome, notAfter, retireEarlierAt, after) => ({
    outcome, alreadyInstalled: outcome === BundleOutcome.ALREADY_INSTALLED, bundle: o, conversation: cid, notAfter, retireEarlierAt, record: after,
  });
  if (existing !== null) { // 9d
    let notAfter = existing.notAfter === null ? null : BigInt(existing.notAfter);
    if (o.retireBy !== null && (notAfter === null || o.retireBy < notAfter)) {
      notAfter = o.retireBy;
      store.setNotAfter(cid, epoch, notAfter);
    }
    const after = record === null ? { highWater: epoch, highWaterSince: o.since, purgedThrough: purged } : normalized(record);
    return result(BundleOutcome.ALREADY_INSTALLED, notAfter, null, after);
  }
  const start = min(o.since, now); // the key's start T, kept as its created time (9e, 9f)
  if (high === null || epoch > high) { // 9e
    const at = start;
    store.install(cid, epoch, o.key, o.retireBy, start);
    store.retireEarlier(cid, epoch, at);
    const after = { highWater: epoch, highWaterSince: o.since, purgedThrough: purged };
    store.setRecord(cid, after);
    return result(BundleOutcome.INSTALLED, o.retireBy, at, after);
  }
  let notAfter = min(BigInt(record.highWaterSince), now); // 9f
  const above = store.startedAbove(cid, epoch); // every stored epoch above retired this one when it started (F1)
  if (above !== null) notAfter = min(notAfter, BigInt(above));
  if (o.retireBy !== null) notAfter = min(notAfter, o.retireBy);
  store.install(cid, epoch, o.key, notAfter, start);
  return result(BundleOutcome.INSTALLED_RETIRED, notAfter, null, normalized(record));
}

const normalized = (r) => ({ highWater: BigInt(r.highWater), highWaterSince: BigInt(r.highWaterSince), purgedThrough: BigInt(r.purgedThrough) });
