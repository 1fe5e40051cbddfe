// Vector checks for key delivery, used by pushseal-vectors.mjs: the RFC 9180 Appendix A.2 file
// (base and auth modes of DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) and the key
// bundle vectors (pushseal_v1_bundle_test_schema).

import {
  BUNDLE_INFO, BundleError, BundleReason, MemoryKeyStore, NO_EXPIRY, StoreLocked, deviceKeyId, openBundle, parseBundle, providerKeyId, sealBundle,
} from '../src/bundle.mjs';
import { HPKEError, MODE_AUTH, MODE_BASE, deriveKeyPair, publicKey, setupReceiver, setupSender } from '../src/hpke.mjs';
import { b64urlDecode, keyId } from '../src/wire.mjs';

export const BUNDLE_SCHEMA = 'pushseal_v1_bundle_test_schema';
const b = (o, name) => Buffer.from(o[name], 'hex');

/** The RFC 9180 vector file of this suite (it has no `schema` member). */
export const isHPKEFile = (doc) => doc?.suite?.kem_id === 32 && doc.suite.kdf_id === 1 && doc.suite.aead_id === 3 && Array.isArray(doc.vectors);

/** The base and auth vectors of the file (the psk modes are not implemented). */
export const hpkeCases = (doc) => doc.vectors.filter((v) => v?.mode === MODE_BASE || v?.mode === MODE_AUTH);

/**
 * Mismatches of one base or auth vector: DeriveKeyPair of every key, encap (enc, shared secret),
 * decap, every key-schedule value on both sides, every encryption (seal and open) and export.
 */
export function runHPKECase(v) {
  const errs = [];
  const auth = v.mode === MODE_AUTH;
  const pairs = [['E', 'ikmE', 'skEm', 'pkEm'], ['R', 'ikmR', 'skRm', 'pkRm']];
  if (auth) pairs.push(['S', 'ikmS', 'skSm', 'pkSm']);
  for (const [who, ikm, sk, pk] of pairs) {
    const kp = deriveKeyPair(b(v, ikm));
    if (!kp.privateKey.equals(b(v, sk)) || !kp.publicKey.equals(b(v, pk))) errs.push(`DeriveKeyPair(ikm${who}) differs from (${sk}, ${pk})`);
  }
  const info = b(v, 'info');
  const { enc, context: sender } = setupSender(b(v, 'pkRm'), info, { senderPrivateKey: auth ? b(v, 'skSm') : null, testIkmE: b(v, 'ikmE') });
  if (!enc.equals(b(v, 'enc'))) errs.push('enc differs');
  let receiver;
  try {
    receiver = setupReceiver(b(v, 'enc'), b(v, 'skRm'), info, { senderPublicKey: auth ? b(v, 'pkSm') : null });
  } catch (e) {
    return [...errs, `setupReceiver: ${e.code ?? e.message}`];
  }
  for (const [side, ctx] of [['sender', sender], ['receiver', receiver]]) {
    for (const [name, got] of [['shared_secret', ctx.sharedSecret], ['key_schedule_context', ctx.keyScheduleContext], ['secret', ctx.secret],
      ['key', ctx.key], ['base_nonce', ctx.baseNonce], ['exporter_secret', ctx.exporterSecret]]) {
      if (!got.equals(b(v, name))) errs.push(`${side}: ${name} differs`);
    }
  }
  for (const e of v.encryptions) {
    const [aad, pt, ct] = [b(e, 'aad'), b(e, 'pt'), b(e, 'ct')];
    if (!sender.nonce(e.seq).equals(b(e, 'nonce'))) errs.push(`seq ${e.seq}: nonce differs`);
    if (!sender.seal(aad, pt, e.seq).equals(ct)) errs.push(`seq ${e.seq}: seal differs from ct`);
    try {
      if (!receiver.open(aad, ct, e.seq).equals(pt)) errs.push(`seq ${e.seq}: open differs from pt`);
    } catch { errs.push(`seq ${e.seq}: open failed`); }
    try {
      receiver.open(Buffer.concat([aad, Buffer.from([0])]), ct, e.seq);
      errs.push(`seq ${e.seq}: open accepted a changed aad`);
    } catch (x) { if (!(x instanceof HPKEError)) throw x; }
  }
  for (const x of v.exports) {
    if (!receiver.export(b(x, 'exporter_context'), x.L).equals(b(x, 'exported_value'))) errs.push(`export ${x.exporter_context} differs`);
  }
  return errs;
}

const LOCKED_STORE = { keyFor() { throw new StoreLocked(); }, locationOf() { throw new StoreLocked(); }, install() { throw new StoreLocked(); } };
const hexOrNull = (buf) => (buf === null || buf === undefined ? null : buf.toString('hex'));

/**
 * Mismatches of one key bundle case (SPEC §16.8): the key pairs, key ids and kid; the re-seal of
 * resealable cases byte for byte; the intermediates (aad, enc, ct, and the device's HPKE context); and
 * the outcome of the checks with the case's device key, pinned keys, clock and store.
 */
export function runBundleCase(t) {
  const errs = [];
  const [deviceSk, devicePk] = [b(t.deviceKeyPair, 'private'), b(t.deviceKeyPair, 'public')];
  const [providerSk, providerPk] = [b(t.providerKeyPair, 'private'), b(t.providerKeyPair, 'public')];
  const key = b(t, 'key');
  for (const [name, got, want] of [['deviceKeyPair', publicKey(deviceSk), devicePk], ['providerKeyPair', publicKey(providerSk), providerPk],
    ['deviceKeyId', deviceKeyId(devicePk), b(t, 'deviceKeyId')], ['providerKeyId', providerKeyId(providerPk), b(t, 'providerKeyId')],
    ['kid', keyId(key), b(t, 'kid')]]) {
    if (!got.equals(want)) errs.push(`${name} differs`);
  }
  const text = t.bundle;
  if ((b64urlDecode(text) ?? Buffer.alloc(0)).toString('hex') !== (t.bundleHex ?? '')) errs.push('bundleHex differs from the decoded bundle');
  if (t.resealable) {
    const resealed = sealBundle({ key, conversation: t.conversation, epoch: t.epoch, notAfter: t.notAfter, providerPrivateKey: providerSk, devicePublicKey: devicePk, testIkmE: b(t, 'ikmE') });
    if (resealed !== text) errs.push('re-sealed bundle differs from bundle');
  }
  let want;
  if (t.result === 'valid') want = `valid/${t.outcome}`;
  else if (t.result === 'invalid' && Object.values(BundleReason).includes(t.reason)) want = `invalid/${t.reason}`;
  else throw new Error('result, outcome and reason disagree');
  // The intermediates, from the device's side: B, enc and ct once the header parses; the HPKE
  // context once it opens the bundle (step 6 passes).
  let parsed = null;
  try { parsed = parseBundle(text); } catch (e) { if (!(e instanceof BundleError)) throw e; }
  for (const [name, value] of [['aad', parsed?.headerBytes], ['enc', parsed?.enc], ['ct', parsed?.ciphertext]]) {
    if (t[name] !== hexOrNull(value)) errs.push(`${name} differs`);
  }
  let context = null;
  if (parsed !== null && parsed.header.deviceKeyId.equals(deviceKeyId(devicePk))) {
    const sender = t.pinnedProviderKeys.map((k) => Buffer.from(k, 'hex')).find((k) => providerKeyId(k).equals(parsed.header.providerKeyId));
    if (sender !== undefined) {
      try {
        context = setupReceiver(parsed.enc, deviceSk, BUNDLE_INFO, { senderPublicKey: sender });
        context.open(parsed.headerBytes, parsed.ciphertext);
      } catch (e) {
        if (!(e instanceof HPKEError)) throw e;
        context = null;
      }
    }
  }
  for (const [name, value] of [['sharedSecret', context?.sharedSecret], ['hpkeKey', context?.key], ['baseNonce', context?.baseNonce]]) {
    if (t[name] !== hexOrNull(value)) errs.push(`${name} differs`);
  }
  // The checks.
  if (t.keyStore !== 'available' && t.keyStore !== 'locked') throw new Error('keyStore must be available or locked');
  const memory = new MemoryKeyStore();
  for (const s of t.storedKeys) memory.install(s.conversation, s.epoch, b(s, 'key'), NO_EXPIRY);
  let got;
  try {
    const r = openBundle(text, { devicePrivateKey: deviceSk, pinnedProviderKeys: t.pinnedProviderKeys.map((p) => Buffer.from(p, 'hex')),
      store: t.keyStore === 'locked' ? LOCKED_STORE : memory, now: t.now });
    got = `valid/${r.alreadyInstalled ? 'already_installed' : 'installed'}`;
  } catch (e) {
    if (!(e instanceof BundleError)) throw e;
    got = `invalid/${e.reason}`;
  }
  if (got !== want) errs.push(`expected ${want}, got ${got}`);
  else if (t.result === 'valid' && !memory.keyFor(t.conversation, t.epoch)?.equals(key)) errs.push('the key is not in the store after opening');
  return errs;
}
