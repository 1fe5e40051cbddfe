// HPKE (RFC 9180) for one suite: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305; modes
// base (0x00) and auth (0x02), single-shot. Built-in `crypto` only: X25519 through
// diffieHellman() on DER-wrapped raw keys, createHmac('sha256'), and chacha20-poly1305.
// The key bundles (bundle.mjs) use the auth mode.

import { createCipheriv, createDecipheriv, createHmac, createPrivateKey, createPublicKey, diffieHellman, randomBytes } from 'node:crypto';
import { PushSealError } from './errors.mjs';

export const KEM_ID = 0x0020;
export const KDF_ID = 0x0001;
export const AEAD_ID = 0x0003;
export const MODE_BASE = 0x00;
export const MODE_AUTH = 0x02;
const KEM_SUITE = Buffer.from('KEM\x00\x20', 'latin1');
const HPKE_SUITE = Buffer.from('HPKE\x00\x20\x00\x01\x00\x03', 'latin1');
const VERSION_LABEL = Buffer.from('HPKE-v1', 'ascii');
const PKCS8_X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex'); // PrivateKeyInfo prefix of a raw key
const SPKI_X25519 = Buffer.from('302a300506032b656e032100', 'hex'); // SubjectPublicKeyInfo prefix
const ZERO32 = Buffer.alloc(32);

/**
 * An HPKE operation failed. `code` is `invalid_key` (not a 32-byte X25519 key),
 * `zero_shared_secret` (the X25519 result is all zero: a small-order public key, refused as
 * RFC 9180 §7.1.4 requires) or `open_failed` (the ciphertext does not authenticate).
 */
export class HPKEError extends PushSealError {
  constructor(code) { super(`hpke: ${code}`); this.code = code; }
}

const ascii = (s) => Buffer.from(s, 'ascii');

function extract(salt, ikm) {
  return createHmac('sha256', salt.length ? salt : ZERO32).update(ikm).digest();
}

function expand(prk, info, length) {
  const blocks = [];
  let t = Buffer.alloc(0);
  for (let i = 1; blocks.length * 32 < length; i++) {
    t = createHmac('sha256', prk).update(t).update(info).update(Buffer.from([i])).digest();
    blocks.push(t);
  }
  return Buffer.concat(blocks).subarray(0, length);
}

const labeledExtract = (suite, salt, label, ikm) => extract(salt, Buffer.concat([VERSION_LABEL, suite, ascii(label), ikm]));

function labeledExpand(suite, prk, label, info, length) {
  const l = Buffer.alloc(2);
  l.writeUInt16BE(length);
  return expand(prk, Buffer.concat([l, VERSION_LABEL, suite, ascii(label), info]), length);
}

function checkKey(key) {
  if (!(key instanceof Uint8Array) || key.length !== 32) throw new HPKEError('invalid_key');
  return Buffer.from(key);
}

const privateKeyObject = (sk) => createPrivateKey({ key: Buffer.concat([PKCS8_X25519, checkKey(sk)]), format: 'der', type: 'pkcs8' });
const publicKeyObject = (pk) => createPublicKey({ key: Buffer.concat([SPKI_X25519, checkKey(pk)]), format: 'der', type: 'spki' });

/** The X25519 public key (32 bytes) of a 32-byte private key. */
export function publicKey(privateKey) {
  return createPublicKey(privateKeyObject(privateKey)).export({ format: 'der', type: 'spki' }).subarray(SPKI_X25519.length);
}

/** RFC 9180 DeriveKeyPair for X25519: { privateKey, publicKey } from input keying material. */
export function deriveKeyPair(ikm) {
  const dkpPrk = labeledExtract(KEM_SUITE, Buffer.alloc(0), 'dkp_prk', Buffer.from(ikm));
  const sk = labeledExpand(KEM_SUITE, dkpPrk, 'sk', Buffer.alloc(0), 32);
  return { privateKey: sk, publicKey: publicKey(sk) };
}

/** A new random X25519 key pair { privateKey, publicKey }, e.g. a device key. */
export const generateKeyPair = () => deriveKeyPair(randomBytes(32));

/**
 * Raw X25519 (RFC 7748) of two 32-byte keys; throws HPKEError zero_shared_secret for the all-zero
 * result (RFC 9180 §7.1.4) and invalid_key for other lengths.
 */
export function x25519(sk, pk) {
  let z;
  try {
    z = diffieHellman({ privateKey: privateKeyObject(sk), publicKey: publicKeyObject(pk) });
  } catch (e) {
    if (e instanceof HPKEError) throw e;
    throw new HPKEError('zero_shared_secret'); // OpenSSL refuses the all-zero result itself
  }
  if (z.equals(ZERO32)) throw new HPKEError('zero_shared_secret');
  return z;
}

function extractAndExpand(dhBytes, kemContext) {
  const eaePrk = labeledExtract(KEM_SUITE, Buffer.alloc(0), 'eae_prk', dhBytes);
  return labeledExpand(KEM_SUITE, eaePrk, 'shared_secret', kemContext, 32);
}

/** The key schedule's result (RFC 9180 §5.1) for mode base or auth (psk and psk_id empty). */
export class HPKEContext {
  constructor(mode, sharedSecret, info) {
    const pskIdHash = labeledExtract(HPKE_SUITE, Buffer.alloc(0), 'psk_id_hash', Buffer.alloc(0));
    const infoHash = labeledExtract(HPKE_SUITE, Buffer.alloc(0), 'info_hash', Buffer.from(info));
    this.mode = mode;
    this.sharedSecret = sharedSecret;
    this.keyScheduleContext = Buffer.concat([Buffer.from([mode]), pskIdHash, infoHash]);
    this.secret = labeledExtract(HPKE_SUITE, sharedSecret, 'secret', Buffer.alloc(0));
    this.key = labeledExpand(HPKE_SUITE, this.secret, 'key', this.keyScheduleContext, 32);
    this.baseNonce = labeledExpand(HPKE_SUITE, this.secret, 'base_nonce', this.keyScheduleContext, 12);
    this.exporterSecret = labeledExpand(HPKE_SUITE, this.secret, 'exp', this.keyScheduleContext, 32);
  }

  /** base_nonce XOR I2OSP(seq, 12); seq is a non-negative safe integer or a bigint below 2^64. */
  nonce(seq = 0) {
    const s = BigInt(seq);
    if (s < 0n || s >= 1n << 64n) throw new RangeError('sequence number out of range');
    const n = Buffer.alloc(12);
    n.writeBigUInt64BE(s, 4);
    return Buffer.from(this.baseNonce.map((b, i) => b ^ n[i]));
  }

  /** ChaCha20Poly1305 under (key, nonce(seq)): ciphertext || tag. */
  seal(aad, plaintext, seq = 0) {
    const c = createCipheriv('chacha20-poly1305', this.key, this.nonce(seq), { authTagLength: 16 });
    c.setAAD(aad, { plaintextLength: plaintext.length });
    return Buffer.concat([c.update(plaintext), c.final(), c.getAuthTag()]);
  }

  /** The plaintext; throws HPKEError('open_failed') when the tag does not verify (nothing is released then). */
  open(aad, ciphertext, seq = 0) {
    if (ciphertext.length < 16) throw new HPKEError('open_failed');
    const d = createDecipheriv('chacha20-poly1305', this.key, this.nonce(seq), { authTagLength: 16 });
    d.setAAD(aad, { plaintextLength: ciphertext.length - 16 });
    d.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
    const head = d.update(ciphertext.subarray(0, ciphertext.length - 16));
    try {
      return Buffer.concat([head, d.final()]);
    } catch {
      head.fill(0);
      throw new HPKEError('open_failed');
    }
  }

  /** RFC 9180 §5.3 secret export. */
  export(exporterContext, length) {
    return labeledExpand(HPKE_SUITE, this.exporterSecret, 'sec', Buffer.from(exporterContext), length);
  }
}

/**
 * SetupBaseS (no `senderPrivateKey`) or SetupAuthS: { enc, context }. The ephemeral key is random;
 * `testIkmE` derives it with DeriveKeyPair, for test vectors only.
 */
export function setupSender(recipientPublicKey, info, { senderPrivateKey = null, testIkmE = null } = {}) {
  const pkR = checkKey(recipientPublicKey);
  const e = deriveKeyPair(testIkmE ?? randomBytes(32));
  let dhBytes = x25519(e.privateKey, pkR);
  let kemContext = Buffer.concat([e.publicKey, pkR]);
  if (senderPrivateKey !== null) {
    dhBytes = Buffer.concat([dhBytes, x25519(senderPrivateKey, pkR)]);
    kemContext = Buffer.concat([kemContext, publicKey(senderPrivateKey)]);
  }
  const mode = senderPrivateKey === null ? MODE_BASE : MODE_AUTH;
  return { enc: e.publicKey, context: new HPKEContext(mode, extractAndExpand(dhBytes, kemContext), info) };
}

/** SetupBaseR (no `senderPublicKey`) or SetupAuthR: the context. */
export function setupReceiver(enc, recipientPrivateKey, info, { senderPublicKey = null } = {}) {
  let dhBytes = x25519(recipientPrivateKey, enc);
  let kemContext = Buffer.concat([checkKey(enc), publicKey(recipientPrivateKey)]);
  if (senderPublicKey !== null) {
    dhBytes = Buffer.concat([dhBytes, x25519(recipientPrivateKey, senderPublicKey)]);
    kemContext = Buffer.concat([kemContext, checkKey(senderPublicKey)]);
  }
  const mode = senderPublicKey === null ? MODE_BASE : MODE_AUTH;
  return new HPKEContext(mode, extractAndExpand(dhBytes, kemContext), info);
}

/** Single-shot base-mode seal: { enc, ciphertext } (ciphertext || tag). */
export function sealBase(recipientPublicKey, info, aad, plaintext) {
  const { enc, context } = setupSender(recipientPublicKey, info);
  return { enc, ciphertext: context.seal(aad, plaintext) };
}

/** Single-shot base-mode open. */
export function openBase(enc, recipientPrivateKey, info, aad, ciphertext) {
  return setupReceiver(enc, recipientPrivateKey, info).open(aad, ciphertext);
}

/** Single-shot auth-mode seal by `senderPrivateKey`: { enc, ciphertext }. */
export function sealAuth(recipientPublicKey, senderPrivateKey, info, aad, plaintext) {
  const { enc, context } = setupSender(recipientPublicKey, info, { senderPrivateKey: checkKey(senderPrivateKey) });
  return { enc, ciphertext: context.seal(aad, plaintext) };
}

/** Single-shot auth-mode open: succeeds only for a ciphertext sealed with the private key of `senderPublicKey`. */
export function openAuth(enc, recipientPrivateKey, senderPublicKey, info, aad, ciphertext) {
  return setupReceiver(enc, recipientPrivateKey, info, { senderPublicKey: checkKey(senderPublicKey) }).open(aad, ciphertext);
}
