// Key bundles v1: one conversation key K for one (conversation, epoch), sealed to one device with
// HPKE mode_auth (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) by the provider's
// key. A backend seals with sealBundle(); a device opens, checks and installs with openBundle(),
// which throws a BundleError whose `reason` is the first failed check.

import { timingSafeEqual } from 'node:crypto';
import { PushSealError } from './errors.mjs';
import { HPKEError, publicKey, setupReceiver, setupSender } from './hpke.mjs';
import { KEY_NOT_FOUND } from './receiver.mjs';
import { JObj, JSONError, parseJSON } from './strict-json.mjs';
import { b64urlDecode, b64urlEncode, hkdfExpand, keyId } from './wire.mjs';

export const BUNDLE_VERSION = 0x01;
export const BUNDLE_INFO = Buffer.from('pushseal v1 key bundle', 'ascii');
/** notAfter of a key without a time limit (2^64 − 1). */
export const NO_EXPIRY = 0xFFFFFFFFFFFFFFFFn;
const HEADER = 65; // B
const ENC = 32;
const OVERHEAD = HEADER + ENC + 32 + 16; // |bundle| = 145 + n (K and the tag around the sealed cid)
const MAX_CID = 256;
const MAX_63 = (1n << 63n) - 1n;
/** The longest bundle text, in characters (401 bytes). */
export const MAX_TEXT = 535;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Why a key bundle was refused, in the order the receiver checks (plus store_locked). */
export const BundleReason = Object.freeze({
  MALFORMED_BUNDLE: 'malformed_bundle',
  UNSUPPORTED_BUNDLE_VERSION: 'unsupported_bundle_version',
  WRONG_DEVICE: 'wrong_device',
  UNKNOWN_PROVIDER: 'unknown_provider',
  BUNDLE_AUTHENTICATION_FAILED: 'bundle_authentication_failed',
  KID_MISMATCH: 'kid_mismatch',
  BUNDLE_EXPIRED: 'bundle_expired',
  CONFLICTING_KEY: 'conflicting_key',
  STORE_LOCKED: 'store_locked',
});

/** A key bundle was refused; `reason` is its reason code. Carries no key material. */
export class BundleError extends PushSealError {
  constructor(reason) { super(`cannot install key bundle: ${reason}`); this.reason = reason; }
}

/** Thrown by a bundle key store that cannot be read or written now; reported as store_locked. */
export class StoreLocked extends PushSealError {
  constructor() { super('the key store is locked'); }
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
 * The bundle header B (65 bytes, the HPKE associated data), byte for byte. epoch and notAfter are
 * bigints. The conversation id is not in it: it is sealed together with K.
 */
export function encodeBundleHeader({ providerKeyId: p, deviceKeyId: d, epoch, notAfter, kid }) {
  const numbers = Buffer.alloc(16);
  numbers.writeBigUInt64BE(BigInt(epoch), 0);
  numbers.writeBigUInt64BE(BigInt(notAfter), 8);
  return Buffer.concat([Buffer.from([BUNDLE_VERSION]), p, d, numbers, kid]);
}

/**
 * Parses a bundle (its text or its bytes) after steps 1-3 of the checks:
 * { header, headerBytes, enc, ciphertext }. Throws BundleError malformed_bundle (text longer than
 * 535 characters or not strict base64url), unsupported_bundle_version (checked before the length),
 * malformed_bundle (length not 146...401 bytes, epoch 0 or above 2^63 - 1, notAfter above 2^63 - 1
 * and not NO_EXPIRY).
 */
export function parseBundle(bundle) {
  let data;
  if (typeof bundle === 'string') data = bundle.length <= MAX_TEXT ? b64urlDecode(bundle) : null;
  else data = Buffer.from(bundle);
  if (!data || data.length === 0) throw new BundleError(BundleReason.MALFORMED_BUNDLE);
  if (data[0] !== BUNDLE_VERSION) throw new BundleError(BundleReason.UNSUPPORTED_BUNDLE_VERSION);
  const n = data.length - OVERHEAD;
  if (n < 1 || n > MAX_CID) throw new BundleError(BundleReason.MALFORMED_BUNDLE);
  const epoch = data.readBigUInt64BE(33);
  const notAfter = data.readBigUInt64BE(41);
  if (epoch < 1n || epoch > MAX_63 || (notAfter > MAX_63 && notAfter !== NO_EXPIRY)) throw new BundleError(BundleReason.MALFORMED_BUNDLE);
  const header = { providerKeyId: data.subarray(1, 17), deviceKeyId: data.subarray(17, 33), epoch, notAfter, kid: data.subarray(49, 65) };
  return { header, headerBytes: data.subarray(0, HEADER), enc: data.subarray(HEADER, HEADER + ENC), ciphertext: data.subarray(HEADER + ENC) };
}

function int63(value, name, min) {
  const ok = (typeof value === 'bigint' || Number.isSafeInteger(value)) && BigInt(value) >= min && BigInt(value) <= MAX_63;
  if (!ok) throw new RangeError(`${name} must be an integer ${min}...2^63-1`);
  return BigInt(value);
}

/**
 * The bundle text (base64url, no padding) of conversation key `key` for (conversation, epoch),
 * sealed to `devicePublicKey` by `providerPrivateKey`. `notAfter`: the key's last live second (Unix
 * time, inclusive; number or bigint), null for no limit. `testIkmE` is for test vectors only.
 */
export function sealBundle({ key, conversation, epoch, notAfter = null, providerPrivateKey, devicePublicKey, testIkmE = null }) {
  for (const [name, v] of [['key', key], ['providerPrivateKey', providerPrivateKey], ['devicePublicKey', devicePublicKey]]) {
    if (!(v instanceof Uint8Array) || v.length !== 32) throw new RangeError(`${name} must be 32 bytes`);
  }
  const cidLength = typeof conversation === 'string' ? Buffer.byteLength(conversation, 'utf8') : 0;
  if (cidLength < 1 || cidLength > MAX_CID || LONE_SURROGATE.test(conversation)) {
    throw new RangeError('the conversation must be 1-256 bytes of UTF-8');
  }
  const headerBytes = encodeBundleHeader({
    providerKeyId: providerKeyId(publicKey(providerPrivateKey)), deviceKeyId: deviceKeyId(devicePublicKey),
    epoch: int63(epoch, 'epoch', 1n), notAfter: notAfter === null ? NO_EXPIRY : int63(notAfter, 'notAfter', 0n),
    kid: keyId(key),
  });
  const { enc, context } = setupSender(devicePublicKey, BUNDLE_INFO, { senderPrivateKey: providerPrivateKey, testIkmE });
  const pt = Buffer.concat([Buffer.from(key), Buffer.from(conversation, 'utf8')]);
  try {
    return b64urlEncode(Buffer.concat([headerBytes, enc, context.seal(headerBytes, pt)]));
  } finally {
    pt.fill(0);
  }
}

const sameBytes = (a, b) => a.length === b.length && timingSafeEqual(a, b);

/**
 * An in-memory key store: installs bundles ({keyFor, locationOf, install}) and is a receiver key
 * source (lookup), so a notification sealed under an installed key opens. For tests and examples;
 * a real app keeps keys in protected storage. A store throws StoreLocked when it cannot be used.
 * openBundle calls keyFor, locationOf and then install (steps 10-11) synchronously, so within one
 * process they are atomic; a store shared between processes must make them one transaction.
 */
export class MemoryKeyStore {
  #keys = new Map(); // "epoch cid" -> { key, notAfter }
  #kids = new Map(); // kid hex -> { conversation, epoch }

  /** The key stored for (conversation, epoch), or null. */
  keyFor(conversation, epoch) { return this.#keys.get(`${BigInt(epoch)} ${conversation}`)?.key ?? null; }

  /** { conversation, epoch } of the stored key with this kid, or null. */
  locationOf(kid) { return this.#kids.get(Buffer.from(kid).toString('hex')) ?? null; }

  /** Stores a new key for (conversation, epoch). */
  install(conversation, epoch, key, notAfter) {
    this.#keys.set(`${BigInt(epoch)} ${conversation}`, { key: Buffer.from(key), notAfter: BigInt(notAfter) });
    this.#kids.set(keyId(key).toString('hex'), { conversation, epoch: BigInt(epoch) });
  }

  /** The receiver's key source: { key, conversation } for this kid, or KEY_NOT_FOUND. */
  lookup(kid) {
    const place = this.locationOf(kid);
    return place === null ? KEY_NOT_FOUND : { key: this.keyFor(place.conversation, place.epoch), conversation: place.conversation };
  }
}

/**
 * Checks a bundle in the specified order and installs its key (idempotent): returns
 * { header, conversation, alreadyInstalled }. Throws BundleError with the first failed check's
 * reason and installs nothing then. `now`: seconds since 1970 (number or bigint). The store's
 * install() must copy the key: the opened plaintext is wiped when this returns.
 */
export function openBundle(bundle, { devicePrivateKey, pinnedProviderKeys, store, now }) {
  const { header, headerBytes, enc, ciphertext } = parseBundle(bundle); // steps 1-3
  if (!header.deviceKeyId.equals(deviceKeyId(publicKey(devicePrivateKey)))) throw new BundleError(BundleReason.WRONG_DEVICE); // step 4
  const provider = [...pinnedProviderKeys].find((p) => providerKeyId(p).equals(header.providerKeyId));
  if (provider === undefined) throw new BundleError(BundleReason.UNKNOWN_PROVIDER); // step 5
  let pt;
  try { // step 6
    pt = setupReceiver(enc, devicePrivateKey, BUNDLE_INFO, { senderPublicKey: Buffer.from(provider) }).open(headerBytes, ciphertext);
  } catch (e) {
    if (e instanceof HPKEError) throw new BundleError(BundleReason.BUNDLE_AUTHENTICATION_FAILED);
    throw e;
  }
  try {
    const key = pt.subarray(0, 32);
    let conversation;
    try { conversation = STRICT_UTF8.decode(pt.subarray(32)); } catch { throw new BundleError(BundleReason.MALFORMED_BUNDLE); } // step 7
    if (!sameBytes(keyId(key), header.kid)) throw new BundleError(BundleReason.KID_MISMATCH); // step 8
    if (header.notAfter !== NO_EXPIRY && BigInt(now) > header.notAfter) throw new BundleError(BundleReason.BUNDLE_EXPIRED); // step 9
    try { // steps 10-11
      const existing = store.keyFor(conversation, header.epoch);
      const where = store.locationOf(header.kid);
      const elsewhere = where !== null && (where.conversation !== conversation || BigInt(where.epoch) !== header.epoch);
      if ((existing !== null && !sameBytes(Buffer.from(existing), key)) || elsewhere) throw new BundleError(BundleReason.CONFLICTING_KEY);
      if (existing !== null) return { header, conversation, alreadyInstalled: true };
      store.install(conversation, header.epoch, key, header.notAfter);
    } catch (e) {
      if (e instanceof StoreLocked) throw new BundleError(BundleReason.STORE_LOCKED);
      throw e;
    }
    return { header, conversation, alreadyInstalled: false };
  } finally {
    pt.fill(0); // the store keeps its own copy
  }
}
