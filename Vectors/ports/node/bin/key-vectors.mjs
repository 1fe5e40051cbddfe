// Vector checks for key delivery, used by pushseal-vectors.mjs: the RFC 9180 Appendix A.2 file
// (base and auth modes of DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) and the key
// bundle vectors (pushseal_v1_bundle_test_schema, format 2) and the device key derivation vectors
// (pushseal_v1_device_key_test_schema).

import {
  BUNDLE_INFO, BundleError, BundleOutcome, BundleReason, MemoryKeyStore, StoreLocked, deviceKey, deviceKeyId, openBundle, parseBundle, providerKeyId, sealBundle,
} from '../src/bundle.mjs';
import { HPKEError, MODE_AUTH, MODE_BASE, deriveKeyPair, publicKey, setupReceiver, setupSender } from '../src/hpke.mjs';
import { b64urlDecode, keyId, opaqueThreadId } from '../src/wire.mjs';

export const BUNDLE_SCHEMA = 'pushseal_v1_bundle_test_schema';
export const DEVICE_KEY_SCHEMA = 'pushseal_v1_device_key_test_schema';
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

const LOCKED_STORE = { keyFor() { throw new StoreLocked(); }, locationOf() { throw new StoreLocked(); }, record() { throw new StoreLocked(); } };
const hexOrNull = (buf) => (buf === null || buf === undefined ? null : buf.toString('hex'));
// Integers of the file, exact: numbers up to 2^53 - 1, BigInts beyond (the strict parser's toPlain).
const big = (v) => (v === null || v === undefined ? null : BigInt(v));
const recordJSON = (r) => (r === null ? null : { highWater: BigInt(r.highWater), highWaterSince: BigInt(r.highWaterSince), purgedThrough: BigInt(r.purgedThrough) });
const sameRecord = (a, b) => (a === null || b === null ? a === b : a.highWater === b.highWater && a.highWaterSince === b.highWaterSince && a.purgedThrough === b.purgedThrough);
const show = (r) => (r === null ? 'null' : JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? v.toString() : v)));

/** Mismatches of one device key case (SPEC §4.4): K_d, its kid and thread-id from K and the device key id. */
export function runDeviceKeyCase(t) {
  const errs = [];
  const k = b(t, 'conversationKey'); const d = b(t, 'deviceKeyId');
  if (t.devicePublicKey !== null && t.devicePublicKey !== undefined && !deviceKeyId(b(t, 'devicePublicKey')).equals(d)) errs.push('deviceKeyId differs');
  if (keyId(k).toString('hex') !== t.conversationKid) errs.push('conversationKid differs');
  if (Buffer.concat([Buffer.from('pushseal v1 device conversation key', 'ascii'), d]).toString('hex') !== t.info) errs.push('info differs');
  const kd = deviceKey(k, d);
  if (kd.toString('hex') !== t.deviceKey) errs.push('deviceKey differs');
  if (keyId(kd).toString('hex') !== t.kid) errs.push('kid differs');
  if (opaqueThreadId(kd) !== t.threadId) errs.push('threadId differs');
  return errs;
}

/**
 * Mismatches of one key bundle case (SPEC §16.8): the key pairs, key ids, K_d and kid; the
 * plaintext; the re-seal of resealable cases byte for byte; the intermediates (aad, enc, ct, and the
 * device's HPKE context); and the outcome of the checks with the case's device key, pinned keys,
 * clock, envelope kid, store and conversation record, with the not-after times and the record after.
 */
export function runBundleCase(t) {
  const errs = [];
  const deviceSk = b(t.deviceKeyPair, 'private'); const devicePk = b(t.deviceKeyPair, 'public');
  const providerSk = b(t.providerKeyPair, 'private'); const providerPk = b(t.providerKeyPair, 'public');
  const k = b(t, 'conversationKey');
  for (const [name, derived, expected] of [['deviceKeyPair', publicKey(deviceSk), devicePk], ['providerKeyPair', publicKey(providerSk), providerPk],
    ['deviceKeyId', deviceKeyId(devicePk), b(t, 'deviceKeyId')], ['providerKeyId', providerKeyId(providerPk), b(t, 'providerKeyId')]]) {
    if (!derived.equals(expected)) errs.push(`${name} differs`);
  }
  if (t.resealable) {
    if (!deviceKey(k, deviceKeyId(devicePk)).equals(b(t, 'deviceKey')) || !keyId(b(t, 'deviceKey')).equals(b(t, 'kid'))) errs.push('deviceKey or kid differs from the derivation');
    const resealed = sealBundle({ conversationKey: k, devicePublicKey: devicePk, conversation: t.conversation, epoch: big(t.epoch), since: big(t.since),
      retireBy: big(t.retireBy), expires: big(t.expires), providerPrivateKey: providerSk, testIkmE: b(t, 'ikmE') });
    if (resealed !== t.bundle) errs.push('re-sealed bundle differs from bundle');
  }
  const text = t.bundle;
  const decoded = typeof text === 'string' ? b64urlDecode(text) : null;
  // SPEC §16.8: the strict base64url decoding (any length), null when the text is not strict base64url.
  if (!Object.hasOwn(t, 'bundleHex') || t.bundleHex !== (decoded === null ? null : decoded.toString('hex'))) errs.push('bundleHex differs from the decoded bundle');
  let want;
  if (t.result === 'valid' && Object.values(BundleOutcome).includes(t.outcome) && t.reason === null) want = `valid/${t.outcome}`;
  else if (t.result === 'invalid' && Object.values(BundleReason).includes(t.reason) && t.outcome === null) want = `invalid/${t.reason}`;
  else throw new Error('result, outcome and reason disagree');
  // The intermediates, from the device's side: B, enc and ct once the length checks pass; the HPKE
  // context and the plaintext once it opens the bundle (step 5 passes).
  let parsed = null;
  try { parsed = parseBundle(text); } catch (e) { if (!(e instanceof BundleError)) throw e; }
  for (const [name, part] of [['aad', 'headerBytes'], ['enc', 'enc'], ['ct', 'ciphertext']]) {
    if ((t[name] ?? null) !== (parsed === null ? null : parsed[part].toString('hex'))) errs.push(`${name} differs`);
  }
  let context = null; let pt = null;
  if (parsed !== null) {
    const sender = t.pinnedProviderKeys.map((x) => Buffer.from(x, 'hex')).find((p) => providerKeyId(p).equals(parsed.providerKeyId));
    if (sender !== undefined) {
      try {
        context = setupReceiver(parsed.enc, deviceSk, BUNDLE_INFO, { senderPublicKey: sender });
        pt = context.open(parsed.headerBytes, parsed.ciphertext);
      } catch (e) {
        if (!(e instanceof HPKEError)) throw e;
        context = null;
      }
    }
  }
  for (const [name, value] of [['sharedSecret', context?.sharedSecret], ['hpkeKey', context?.key], ['baseNonce', context?.baseNonce]]) {
    if ((t[name] ?? null) !== hexOrNull(context === null ? null : value)) errs.push(`${name} differs`);
  }
  if (pt !== null && pt.toString('hex') !== t.plaintext) errs.push('plaintext differs');
  // The checks.
  if (t.keyStore !== 'available' && t.keyStore !== 'locked') throw new Error('keyStore must be available or locked');
  const memory = new MemoryKeyStore();
  for (const s of t.storedKeys) memory.install(s.conversation, big(s.epoch), b(s, 'key'), big(s.notAfter), big(s.createdAt));
  if (t.conversationRecord !== null) memory.setRecord(t.conversation, recordJSON(t.conversationRecord));
  const store = t.keyStore === 'locked' ? LOCKED_STORE : memory;
  let got; let installed = null;
  try {
    installed = openBundle(text, { devicePrivateKey: deviceSk, pinnedProviderKeys: t.pinnedProviderKeys.map((p) => Buffer.from(p, 'hex')),
      store, now: big(t.now), envelopeKid: t.envelopeKid === null ? null : b(t, 'envelopeKid') });
    got = `valid/${installed.outcome}`;
  } catch (e) {
    if (!(e instanceof BundleError)) throw e;
    got = `invalid/${e.reason}`;
  }
  if (got !== want) return [...errs, `expected ${want}, got ${got}`];
  if (installed === null) return errs;
  const stored = memory.keyFor(t.conversation, big(t.epoch));
  if (stored === null || !stored.key.equals(b(t, 'deviceKey'))) errs.push('the key is not in the store after opening');
  else if (stored.notAfter !== big(t.notAfter) || installed.notAfter !== big(t.notAfter)) errs.push(`notAfter: expected ${t.notAfter}, got ${stored.notAfter}`);
  const created = memory.createdAt(t.conversation, big(t.epoch));
  if (t.outcome !== 'already_installed' && created !== big(t.createdAt)) errs.push(`createdAt: expected ${t.createdAt}, got ${created}`);
  if (installed.retireEarlierAt !== big(t.retireEarlierAt)) errs.push(`retireEarlierAt: expected ${t.retireEarlierAt}, got ${installed.retireEarlierAt}`);
  const after = memory.record(t.conversation);
  const want2 = t.conversationRecordAfter === null ? null : recordJSON(t.conversationRecordAfter);
  if (!sameRecord(after, want2) || !sameRecord(installed.record, after)) errs.push(`conversationRecordAfter: expected ${show(want2)}, got ${show(after)}`);
  const at = big(t.retireEarlierAt);
  for (const s of t.storedKeys) { // every earlier epoch retired at retireEarlierAt (9e)
    if (s.conversation === t.conversation && big(s.epoch) < big(t.epoch) && at !== null) {
      const na = big(s.notAfter); const wantNa = na === null || na > at ? at : na;
      const gotNa = memory.keyFor(s.conversation, big(s.epoch))?.notAfter ?? null;
      if (gotNa !== wantNa) errs.push(`epoch ${s.epoch} not-after: expected ${wantNa}, got ${gotNa}`);
    }
  }
  return errs;
}
