// Vector checks for key delivery, used by pushseal-vectors.mjs: the RFC 9180 Appendix A.2 file
// (base and auth modes of DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) and the key
// bundle vectors (pushseal_v1_bundle_test_schema).

import { BUNDLE_INFO, BundleError, MemoryKeyStore, deviceKeyId, openBundle, providerKeyId, sealBundle } from '../src/bundle.mjs';
import { HPKEError, MODE_AUTH, MODE_BASE, deriveKeyPair, publicKey, setupReceiver, setupSender } from '../src/hpke.mjs';
import { b64urlDecode } from '../src/wire.mjs';

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

/**
 * Mismatches of one key bundle case: the key pairs and key ids, the re-seal of the bundle from its
 * inputs and ikmE (byte for byte, with the HPKE intermediates), and the outcome of opening it with
 * the case's device key, pinned providers, store and clock.
 */
export function runBundleCase(t) {
  const errs = [];
  const [deviceSk, devicePk, providerSk, providerPk] = ['devicePrivateKey', 'devicePublicKey', 'providerPrivateKey', 'providerPublicKey'].map((n) => b(t, n));
  if (!publicKey(deviceSk).equals(devicePk)) errs.push('device public key differs');
  if (!publicKey(providerSk).equals(providerPk)) errs.push('provider public key differs');
  if (deviceKeyId(devicePk).toString('hex') !== t.deviceKeyId) errs.push('deviceKeyId differs');
  if (providerKeyId(providerPk).toString('hex') !== t.providerKeyId) errs.push('providerKeyId differs');
  const key = b(t, 'key');
  const ikmE = b(t, 'ikmE');
  if (t.sealed ?? true) {
    const text = sealBundle({ key, conversation: t.conversation, epoch: t.epoch, notAfter: t.notAfter, providerPrivateKey: providerSk, devicePublicKey: devicePk, testIkmE: ikmE });
    if (text !== t.bundle) errs.push('re-sealed bundle differs from bundle');
    const data = b64urlDecode(text) ?? Buffer.alloc(0);
    const { enc, context } = setupSender(devicePk, BUNDLE_INFO, { senderPrivateKey: providerSk, testIkmE: ikmE });
    for (const [name, got] of [['aadHex', data.subarray(0, data.length - 80)], ['encHex', enc], ['sharedSecret', context.sharedSecret],
      ['hpkeKey', context.key], ['baseNonce', context.baseNonce]]) {
      if (t[name] !== got.toString('hex')) errs.push(`${name} differs`);
    }
  }
  const store = new MemoryKeyStore();
  for (const s of t.storedKeys ?? []) store.install(s.conversation, s.epoch, b(s, 'key'), s.notAfter ?? 0);
  const want = t.result === 'valid' ? `valid/${t.outcome}` : `invalid/${t.reason}`;
  let got;
  try {
    const r = openBundle(t.bundle, { devicePrivateKey: deviceSk, pinnedProviderKeys: t.pinnedProviderKeys.map((p) => Buffer.from(p, 'hex')), store, now: t.now });
    got = `valid/${r.alreadyInstalled ? 'already_installed' : 'installed'}`;
  } catch (e) {
    if (!(e instanceof BundleError)) throw e;
    got = `invalid/${e.reason}`;
  }
  if (got !== want) errs.push(`expected ${want}, got ${got}`);
  else if (t.result === 'valid' && !store.keyFor(t.conversation, t.epoch)?.equals(key)) errs.push('the key is not in the store after opening');
  return errs;
}
