// HPKE (RFC 9180 A.2 base and auth) and key bundles through the public API: sealing, every refusal
// reason in check order, idempotent install, and the installed key opening a notification.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  BUNDLE_BYTES, BundleError, BundleReason, MemoryKeyStore, OpenError, RegistrationError, SealError, Sealer, deviceRegistration, registrationPublicKey, StoreLocked, b64urlDecode,
  b64urlEncode, deviceKey, deviceKeyId, keyId, opaqueThreadId, openBundle, openPayload, parseBundle, providerKeyId, sealBundle,
} from 'pushseal';
import { createHmac } from 'node:crypto';
import { HPKEError, deriveKeyPair, openAuth, openBase, sealAuth, sealBase, setupSender, x25519 } from 'pushseal/hpke';
import { BUNDLE_INFO } from '../src/bundle.mjs';
import { runFile } from '../bin/pushseal-vectors.mjs';

// The vendored external vectors (Vectors/external/, SHA-256 in its manifest.json), found like the
// repository's own files: PUSHSEAL_VECTORS (the Vectors directory) or this checkout's.
const vectorsDir = process.env.PUSHSEAL_VECTORS ?? fileURLToPath(new URL('../../..', import.meta.url));
const hpkeFile = () => join(vectorsDir, 'external/rfc9180/rfc9180-x25519-sha256-chacha20poly1305.json');
const wycheproofX25519 = () => join(vectorsDir, 'external/wycheproof/x25519_test.json');

const K = Buffer.from([...Array(32).keys()]); // the provider's conversation key: never on a device
const OTHER_K = Buffer.from([...Array(32).keys()].map((i) => i + 1));
const K2 = Buffer.from([...Array(32).keys()].map((i) => i + 2));
const NOW = 1764400000;
const SINCE = NOW - 86400;
const device = deriveKeyPair(Buffer.from('device'.repeat(6)));
const tablet = deriveKeyPair(Buffer.from('tablet'.repeat(6)));
const provider = deriveKeyPair(Buffer.from('provider'.repeat(4)));
const stranger = deriveKeyPair(Buffer.from('stranger'.repeat(4)));
const KD = deviceKey(K, deviceKeyId(device.publicKey)); // the device's key
const ALL_ONES = 0xFFFFFFFFFFFFFFFFn;

const bundle = (changes = {}) => sealBundle({
  conversationKey: K, devicePublicKey: device.publicKey, conversation: 'conv-1', epoch: 2, since: SINCE, retireBy: null, expires: NOW + 3600,
  providerPrivateKey: provider.privateKey, ...changes,
});
const install = (text, store, { now = NOW, envelopeKid = null } = {}) => openBundle(text, {
  devicePrivateKey: device.privateKey, pinnedProviderKeys: [provider.publicKey], store, now, envelopeKid,
});

function reason(text, { store = new MemoryKeyStore(), now = NOW, devicePrivateKey = device.privateKey, pinned = [provider.publicKey], envelopeKid = null } = {}) {
  try {
    openBundle(text, { devicePrivateKey, pinnedProviderKeys: pinned, store, now, envelopeKid });
  } catch (e) {
    assert.ok(e instanceof BundleError);
    assert.ok(!e.message.includes('conv-1') && !e.message.includes(K.toString('hex')) && !e.message.includes(KD.toString('hex')));
    return e.reason;
  }
  assert.fail('installed');
}

const edit = (text, at, value) => { const d = Buffer.from(b64urlDecode(text)); d[at] = value; return b64urlEncode(d); };

// A bundle of any 338-byte plaintext, sealed as the provider would (for the checks after opening).
function raw(pt) {
  const header = Buffer.concat([Buffer.from([2]), providerKeyId(provider.publicKey)]);
  const { enc, context } = setupSender(device.publicKey, BUNDLE_INFO, { senderPrivateKey: provider.privateKey });
  return b64urlEncode(Buffer.concat([header, enc, context.seal(header, pt)]));
}
function plaintext({ key = KD, kid = null, epoch = 2n, since = BigInt(SINCE), retireBy = ALL_ONES, expires = BigInt(NOW + 3600), cid = Buffer.from('conv-1'), n = null, pad = Buffer.alloc(0) } = {}) {
  const pt = Buffer.alloc(338);
  key.copy(pt, 0); (kid ?? keyId(key)).copy(pt, 32);
  pt.writeBigUInt64BE(epoch, 48); pt.writeBigUInt64BE(since, 56); pt.writeBigUInt64BE(retireBy, 64); pt.writeBigUInt64BE(expires, 72);
  pt.writeUInt16BE(n ?? cid.length, 80); Buffer.concat([cid, pad]).copy(pt, 82, 0, 256);
  return pt;
}

const bundles = join(process.env.PUSHSEAL_VECTORS ?? fileURLToPath(new URL('../../..', import.meta.url)), 'pushseal-v1-bundles.json');

test('the bundle vectors pass', () => {
  assert.deepEqual(runFile(bundles), [JSON.parse(readFileSync(bundles, 'utf8')).numberOfTests, 0]);
});

test('a changed bundle vector is caught', () => {
  // Edited as text: JSON.parse would round the file's integers beyond 2^53.
  const text = readFileSync(bundles, 'utf8');
  const file = JSON.parse(text);
  const t = file.tests.find((c) => c.resealable && c.result === 'valid');
  const changed = `${t.bundle.slice(0, -1)}${t.bundle.endsWith('A') ? 'Q' : 'A'}`;
  const path = join(mkdtempSync(join(tmpdir(), 'ps-')), 'b.json');
  writeFileSync(path, text.replace(`"bundle": "${t.bundle}"`, `"bundle": "${changed}"`));
  assert.deepEqual(runFile(path), [file.numberOfTests - 1, 1]);
});

test('RFC 9180 A.2 base and auth pass', () => {
  assert.deepEqual(runFile(hpkeFile()), [2, 0]);
});

test('X25519 passes Wycheproof and refuses every all-zero result', () => {
  const doc = JSON.parse(readFileSync(wycheproofX25519(), 'utf8'));
  const cases = doc.testGroups.flatMap((g) => g.tests);
  assert.equal(cases.length, 518);
  let refused = 0;
  for (const t of cases) {
    const [sk, pk] = [Buffer.from(t.private, 'hex'), Buffer.from(t.public, 'hex')];
    if (t.flags.includes('ZeroSharedSecret')) {
      assert.throws(() => x25519(sk, pk), (e) => e instanceof HPKEError && e.code === 'zero_shared_secret', `tcId ${t.tcId}`);
      refused++;
    } else {
      assert.equal(x25519(sk, pk).toString('hex'), t.shared, `tcId ${t.tcId}`); // valid and acceptable (twist, non-canonical)
    }
  }
  assert.equal(refused, 31);
});

test('HPKE single-shot round trips and refuses changes', () => {
  const info = Buffer.from('info'); const aad = Buffer.from('aad'); const pt = Buffer.from('secret');
  let s = sealBase(device.publicKey, info, aad, pt);
  assert.deepEqual(openBase(s.enc, device.privateKey, info, aad, s.ciphertext), pt);
  s = sealAuth(device.publicKey, provider.privateKey, info, aad, pt);
  assert.deepEqual(openAuth(s.enc, device.privateKey, provider.publicKey, info, aad, s.ciphertext), pt);
  for (const args of [[s.enc, device.privateKey, stranger.publicKey, info, aad], [s.enc, device.privateKey, provider.publicKey, Buffer.from('inf0'), aad],
    [s.enc, device.privateKey, provider.publicKey, info, Buffer.from('aaD')], [s.enc, stranger.privateKey, provider.publicKey, info, aad]]) {
    assert.throws(() => openAuth(...args, s.ciphertext), (e) => e instanceof HPKEError && e.code === 'open_failed');
  }
});

test('the all-zero shared secret is refused', () => {
  const one = Buffer.alloc(32); one[0] = 1;
  for (const point of [Buffer.alloc(32), one, Buffer.from('e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800', 'hex')]) {
    assert.throws(() => sealBase(point, Buffer.alloc(0), Buffer.alloc(0), Buffer.from('x')), (e) => e.code === 'zero_shared_secret');
    assert.throws(() => openBase(point, device.privateKey, Buffer.alloc(0), Buffer.alloc(0), Buffer.alloc(16)), (e) => e.code === 'zero_shared_secret');
  }
});

test('the device key is HKDF-Expand of K and the device key id', () => {
  const info = Buffer.concat([Buffer.from('pushseal v1 device conversation key'), deviceKeyId(device.publicKey)]);
  assert.equal(info.length, 51);
  assert.deepEqual(KD, createHmac('sha256', K).update(info).update(Buffer.from([1])).digest());
  const t = deviceKey(K, deviceKeyId(tablet.publicKey));
  assert.ok(!t.equals(KD) && !keyId(t).equals(keyId(KD)) && opaqueThreadId(t) !== opaqueThreadId(KD));
  assert.ok(!keyId(KD).equals(keyId(K)));
  for (const [k, d] of [[Buffer.alloc(31), deviceKeyId(device.publicKey)], [K, Buffer.alloc(15)], ['k'.repeat(32), Buffer.alloc(16)]]) assert.throws(() => deviceKey(k, d), RangeError);
});

test('the device key vectors pass', () => {
  assert.deepEqual(runFile(join(vectorsDir, 'pushseal-v1-devices.json')), [6, 0]);
});

test('a bundle delivers the device key and it opens a notification sealed per device', () => {
  const text = bundle();
  assert.equal(text.length, 538);
  assert.equal(b64urlDecode(text).length, BUNDLE_BYTES);
  assert.deepEqual(b64urlDecode(text).subarray(0, 17), Buffer.concat([Buffer.from([2]), providerKeyId(provider.publicKey)]));
  assert.equal(bundle({ conversation: 'c'.repeat(256) }).length, 538);
  const store = new MemoryKeyStore();
  const r = install(text, store);
  assert.equal(r.outcome, 'installed'); assert.equal(r.alreadyInstalled, false);
  assert.ok(r.bundle.key.equals(KD)); assert.equal(r.conversation, 'conv-1'); assert.equal(r.bundle.epoch, 2n);
  assert.deepEqual(r.record, { highWater: 2n, highWaterSince: BigInt(SINCE), purgedThrough: 0n });
  assert.deepEqual(store.record('conv-1'), r.record);
  const content = { cid: 'conv-1', mid: 'm-1', ts: NOW, body: 'hi' };
  const sealed = new Sealer().sealAPNsForDevice(content, K, deviceKeyId(device.publicKey));
  assert.equal(openPayload(sealed.body, store, { clock: () => NOW }).content.body, 'hi');
  assert.equal(sealed.text, new Sealer().sealAPNs(content, KD, {}, { testSalt: b64urlDecode(sealed.wire).subarray(17, 41) }).text); // a bare key is K_d
  const other = new Sealer().sealAPNsForDevice(content, K, deviceKeyId(tablet.publicKey));
  assert.throws(() => openPayload(other.body, store, { clock: () => NOW }), (e) => e instanceof OpenError && e.reason === 'unknown_key');
  const fcm = new Sealer().sealFCMForDevice(content, K, deviceKeyId(device.publicKey), { token: 't' });
  assert.equal(openPayload(fcm.body, store, { clock: () => NOW }).content.body, 'hi');
  assert.equal(install(text, store).outcome, 'already_installed');
  assert.throws(() => new Sealer().sealAPNsForDevice(content, K, Buffer.alloc(15)), (e) => e instanceof SealError && e.code === 'invalid_key');
});

test('a bundle sealed to another device fails authentication', () => {
  assert.equal(reason(bundle({ devicePublicKey: tablet.publicKey })), BundleReason.BUNDLE_AUTHENTICATION_FAILED);
  const r = openBundle(bundle({ devicePublicKey: tablet.publicKey }), { devicePrivateKey: tablet.privateKey, pinnedProviderKeys: [provider.publicKey], store: new MemoryKeyStore(), now: NOW });
  assert.ok(r.bundle.key.equals(deviceKey(K, deviceKeyId(tablet.publicKey))));
});

test('the expiry boundary', () => {
  assert.equal(install(bundle({ expires: NOW }), new MemoryKeyStore()).outcome, 'installed');
  assert.equal(reason(bundle({ expires: NOW - 1 })), BundleReason.BUNDLE_EXPIRED);
  assert.equal(reason(bundle({ expires: NOW }), { now: BigInt(NOW) + 1n }), BundleReason.BUNDLE_EXPIRED);
});

test('malformed bundles and other versions', () => {
  for (const text of ['', 'A', 'AQ=', 'AQ==', 'A'.repeat(1025), 'a+b/', b64urlEncode(Buffer.alloc(402, 2)), b64urlEncode(Buffer.alloc(404, 2)), b64urlEncode(Buffer.alloc(17, 2))]) {
    assert.equal(reason(text), BundleReason.MALFORMED_BUNDLE, text.slice(0, 10));
  }
  assert.equal(reason(42), BundleReason.MALFORMED_BUNDLE);
  for (const d of [Buffer.alloc(403, 1), Buffer.concat([Buffer.from([1]), Buffer.alloc(160)]), Buffer.from([3]), Buffer.alloc(403, 0)]) {
    assert.equal(reason(b64urlEncode(d)), BundleReason.UNSUPPORTED_BUNDLE_VERSION); // format 1, any length
  }
});

test('each check in order', () => {
  const text = bundle();
  assert.equal(reason(text, { pinned: [stranger.publicKey] }), BundleReason.UNKNOWN_PROVIDER);
  assert.equal(reason(text, { pinned: [] }), BundleReason.UNKNOWN_PROVIDER);
  assert.equal(openBundle(text, { devicePrivateKey: device.privateKey, pinnedProviderKeys: [stranger.publicKey, provider.publicKey], store: new MemoryKeyStore(), now: NOW }).outcome, 'installed');
  const forged = b64urlDecode(bundle({ providerPrivateKey: stranger.privateKey }));
  assert.equal(reason(b64urlEncode(Buffer.concat([Buffer.from([2]), providerKeyId(provider.publicKey), forged.subarray(17)]))), BundleReason.BUNDLE_AUTHENTICATION_FAILED);
  assert.equal(reason(edit(text, 1, b64urlDecode(text)[1] ^ 1)), BundleReason.UNKNOWN_PROVIDER);
  const relabelled = b64urlEncode(Buffer.concat([Buffer.from([2]), providerKeyId(stranger.publicKey), b64urlDecode(text).subarray(17)]));
  assert.equal(reason(relabelled, { pinned: [provider.publicKey, stranger.publicKey] }), BundleReason.BUNDLE_AUTHENTICATION_FAILED);
  for (const at of [17, 48, 49, 200, 402]) assert.equal(reason(edit(text, at, b64urlDecode(text)[at] ^ 1)), BundleReason.BUNDLE_AUTHENTICATION_FAILED);
  const d = b64urlDecode(text);
  assert.equal(reason(b64urlEncode(Buffer.concat([d.subarray(0, 17), Buffer.alloc(32), d.subarray(49)]))), BundleReason.BUNDLE_AUTHENTICATION_FAILED); // all-zero DH
  assert.equal(reason(text, { devicePrivateKey: stranger.privateKey }), BundleReason.BUNDLE_AUTHENTICATION_FAILED);
  assert.equal(reason(bundle({ expires: NOW - 1 }), { envelopeKid: Buffer.alloc(16) }), BundleReason.BUNDLE_EXPIRED);
  assert.equal(reason(bundle({ expires: NOW - 1 }), { store: LOCKED }), BundleReason.BUNDLE_EXPIRED);
  assert.equal(reason(text, { store: LOCKED, envelopeKid: Buffer.alloc(16) }), BundleReason.ENVELOPE_MISMATCH);
});

test('a sealed field out of range is malformed, after authentication', () => {
  for (const pt of [plaintext({ epoch: 0n }), plaintext({ epoch: 1n << 63n }), plaintext({ since: 1n << 63n }), plaintext({ retireBy: BigInt(SINCE) - 1n }),
    plaintext({ retireBy: 1n << 63n }), plaintext({ retireBy: ALL_ONES - 1n }), plaintext({ expires: 1n << 63n }), plaintext({ n: 0 }), plaintext({ n: 257 }),
    plaintext({ pad: Buffer.from([0, 1]) }), plaintext({ cid: Buffer.from([0x63, 0xff]) }), plaintext({ cid: Buffer.from('c\u0001d') }),
    plaintext({ cid: Buffer.from([0x63, 0xed, 0xa0, 0x80]) }), plaintext({ n: 7 })]) {
    assert.equal(reason(raw(pt)), BundleReason.MALFORMED_BUNDLE);
    assert.equal(reason(raw(pt), { pinned: [stranger.publicKey] }), BundleReason.UNKNOWN_PROVIDER);
  }
  for (const pt of [plaintext({ epoch: (1n << 63n) - 1n }), plaintext({ since: (1n << 63n) - 1n, retireBy: (1n << 63n) - 1n, expires: (1n << 63n) - 1n }),
    plaintext({ retireBy: BigInt(SINCE) }), plaintext({ cid: Buffer.from('é'.repeat(128)) })]) {
    assert.equal(install(raw(pt), new MemoryKeyStore()).outcome, 'installed');
  }
});

test('kid mismatch', () => {
  assert.equal(reason(raw(plaintext({ kid: Buffer.alloc(16) }))), BundleReason.KID_MISMATCH);
  assert.equal(reason(raw(plaintext({ key: K, kid: keyId(KD) }))), BundleReason.KID_MISMATCH);
});

test('in band the bundle must deliver the envelope key', () => {
  const store = new MemoryKeyStore();
  assert.equal(reason(bundle(), { store, envelopeKid: keyId(K) }), BundleReason.ENVELOPE_MISMATCH);
  assert.equal(store.record('conv-1'), null);
  assert.equal(store.keyFor('conv-1', 2), null);
  assert.equal(install(bundle(), store, { envelopeKid: keyId(KD) }).outcome, 'installed');
});

test("rotation retires earlier epochs at the provider's since", () => {
  const store = new MemoryKeyStore();
  install(bundle({ epoch: 1, since: SINCE - 1000 }), store);
  const later = NOW + 86400 * 40;
  const r = install(bundle({ conversationKey: K2, epoch: 2, since: SINCE, expires: later }), store, { now: later });
  assert.equal(r.outcome, 'installed'); assert.equal(r.retireEarlierAt, BigInt(SINCE));
  assert.equal(store.keyFor('conv-1', 1).notAfter, BigInt(SINCE));
  const r3 = install(bundle({ conversationKey: OTHER_K, epoch: 3, since: later + 600, expires: later }), store, { now: later });
  assert.equal(r3.retireEarlierAt, BigInt(later));
  assert.equal(store.keyFor('conv-1', 2).notAfter, BigInt(later));
  assert.equal(store.keyFor('conv-1', 1).notAfter, BigInt(SINCE)); // never loosened
  assert.equal(store.lookup(keyId(store.keyFor('conv-1', 1).key)).retireBy, SINCE); // the receiver sees it (a safe integer as a number)
});

test('below the high-water a bundle installs only retired', () => {
  const store = new MemoryKeyStore();
  install(bundle({ conversationKey: K2, epoch: 2, since: SINCE }), store);
  const replay = install(bundle({ epoch: 1, since: SINCE - 1000 }), store);
  assert.equal(replay.outcome, 'installed_retired'); assert.equal(replay.notAfter, BigInt(SINCE));
  assert.deepEqual(store.record('conv-1'), { highWater: 2n, highWaterSince: BigInt(SINCE), purgedThrough: 0n });
  const s2 = new MemoryKeyStore();
  install(bundle({ conversationKey: K2, epoch: 2, since: SINCE }), s2);
  assert.equal(install(bundle({ epoch: 1, since: SINCE - 1000, retireBy: SINCE - 500 }), s2).notAfter, BigInt(SINCE - 500));
  const s3 = new MemoryKeyStore();
  install(bundle({ conversationKey: K2, epoch: 2, since: NOW + 600 }), s3);
  assert.equal(install(bundle({ epoch: 1, since: SINCE }), s3).notAfter, BigInt(NOW));
});

test('finding F1: below two stored epochs a bundle is retired at the next epoch\'s start, not S_H', () => {
  const store = new MemoryKeyStore();
  const K3 = Buffer.from([...Array(32).keys()].map((i) => i + 3));
  install(bundle({ conversationKey: K2, epoch: 2, since: SINCE - 3600 }), store);
  install(bundle({ conversationKey: K3, epoch: 3, since: SINCE }), store);
  assert.equal(store.createdAt('conv-1', 2), BigInt(SINCE - 3600)); // the start: min(since, install time)
  const replay = install(bundle({ epoch: 1, since: SINCE - 7200 }), store); // recorded while epoch 1 was current
  assert.equal(replay.outcome, 'installed_retired'); assert.equal(replay.notAfter, BigInt(SINCE - 3600));
});

test('already installed tightens a retire-by and never loosens it', () => {
  const store = new MemoryKeyStore();
  install(bundle({ epoch: 1 }), store);
  const t = install(bundle({ epoch: 1, retireBy: SINCE + 10 }), store);
  assert.equal(t.outcome, 'already_installed'); assert.equal(t.notAfter, BigInt(SINCE + 10));
  assert.equal(install(bundle({ epoch: 1, retireBy: SINCE + 20 }), store).notAfter, BigInt(SINCE + 10));
  assert.equal(install(bundle({ epoch: 1 }), store).notAfter, BigInt(SINCE + 10));
});

test('the step cap and big epochs', () => {
  const store = new MemoryKeyStore();
  install(bundle({ epoch: 1 }), store);
  assert.equal(reason(bundle({ conversationKey: K2, epoch: 65538 }), { store }), BundleReason.EPOCH_OUT_OF_RANGE);
  assert.equal(reason(bundle({ conversationKey: K2, epoch: (1n << 63n) - 1n }), { store }), BundleReason.EPOCH_OUT_OF_RANGE);
  assert.equal(install(bundle({ conversationKey: K2, epoch: 65537 }), store).outcome, 'installed');
  const big = install(bundle({ epoch: (1n << 63n) - 1n, since: (1n << 53n) + 1n, retireBy: (1n << 63n) - 2n, expires: (1n << 63n) - 1n }), new MemoryKeyStore());
  assert.deepEqual(big.record, { highWater: (1n << 63n) - 1n, highWaterSince: (1n << 53n) + 1n, purgedThrough: 0n });
  assert.equal(big.notAfter, (1n << 63n) - 2n);
});

test('a purged epoch never comes back', () => {
  const store = new MemoryKeyStore();
  install(bundle({ epoch: 1 }), store);
  install(bundle({ conversationKey: K2, epoch: 2 }), store);
  store.purge('conv-1', 1);
  assert.equal(store.keyFor('conv-1', 1), null);
  assert.equal(reason(bundle({ epoch: 1 }), { store }), BundleReason.EPOCH_PURGED);
  store.purge('conv-1', 0);
  assert.equal(store.record('conv-1').purgedThrough, 1n);
});

test('conflicting keys are refused and nothing is installed', () => {
  const store = new MemoryKeyStore();
  store.install('conv-1', 2, OTHER_K);
  assert.equal(reason(bundle(), { store }), BundleReason.CONFLICTING_KEY);
  const elsewhere = new MemoryKeyStore();
  elsewhere.install('conv-2', 2, KD);
  assert.equal(reason(bundle(), { store: elsewhere }), BundleReason.CONFLICTING_KEY);
  assert.equal(elsewhere.keyFor('conv-1', 2), null);
  assert.equal(elsewhere.record('conv-1'), null);
});

test('a store without a record starts from its newest epoch', () => {
  const store = new MemoryKeyStore();
  store.install('conv-1', 5, OTHER_K, null, SINCE);
  assert.deepEqual(store.record('conv-1'), { highWater: 5n, highWaterSince: BigInt(SINCE), purgedThrough: 0n });
  assert.equal(install(bundle({ epoch: 3 }), store).outcome, 'installed_retired');
});

const LOCKED = { keyFor() { throw new StoreLocked(); }, locationOf() { throw new StoreLocked(); }, record() { throw new StoreLocked(); } };

test('a locked store is store_locked', () => {
  assert.equal(reason(bundle(), { store: LOCKED }), BundleReason.STORE_LOCKED);
});

test('seal refuses invalid arguments', () => {
  for (const change of [{ conversationKey: Buffer.alloc(31) }, { epoch: 0 }, { epoch: 1n << 63n }, { epoch: 2 ** 53 }, { since: 1n << 63n }, { since: -1 },
    { retireBy: SINCE - 1 }, { retireBy: 1n << 63n }, { expires: 1n << 63n }, { conversation: 'a\ud800' }, { conversation: '' },
    { conversation: 'x'.repeat(257) }, { conversation: 'a\nb' }, { devicePublicKey: Buffer.alloc(31) }]) {
    assert.throws(() => bundle(change), RangeError, JSON.stringify(change, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)));
  }
  for (const change of [{ epoch: '2' }, { expires: undefined }]) assert.throws(() => bundle(change), TypeError);
  assert.throws(() => bundle({ devicePublicKey: Buffer.alloc(32) }), HPKEError);
});

test('a registration round trips and bad ones are refused', () => {
  const text = deviceRegistration(device.publicKey);
  const id = b64urlEncode(deviceKeyId(device.publicKey));
  assert.equal(text, `{"suite":"pushseal-v1-x25519","deviceKeyId":"${id}","publicKey":"${b64urlEncode(device.publicKey)}"}`);
  assert.deepEqual(registrationPublicKey(text), device.publicKey);
  assert.deepEqual(registrationPublicKey(`${text.slice(0, -1)},"token":"x"}`), device.publicKey);
  for (const bad of ['', '[]', text.replace('x25519', 'x448'), text.replace(id, b64urlEncode(deviceKeyId(stranger.publicKey))),
    text.replace(b64urlEncode(device.publicKey), b64urlEncode(device.publicKey.subarray(0, 31))), `${text.slice(0, -1)},"suite":"pushseal-v1-x25519"}`,
    text.replace('"publicKey":"', '"publicKey":"=')]) {
    assert.throws(() => registrationPublicKey(bad), RegistrationError, bad);
  }
});

function largestCompleteBody(seal) {
  let [lo, hi] = [1, 4000];
  while (lo < hi) {
    const mid = Math.floor((lo + hi + 1) / 2);
    if (seal('x'.repeat(mid)).path === 'complete') lo = mid; else hi = mid - 1;
  }
  return lo;
}

test('an in-band bundle is counted first and sits next to the envelope', () => {
  const text = bundle();
  const seal = (body, options) => new Sealer().sealAPNs({ cid: 'conv-1', mid: 'm-1', ts: NOW, body }, KD, options);
  const sealed = seal('hi', { keyBundle: text });
  assert.ok(sealed.text.endsWith(`"pushseal":"${sealed.wire}","pushseal-bundle":"${text}"}`));
  assert.equal(sealed.sizes.limited, sealed.body.length);
  const store = new MemoryKeyStore();
  openBundle(JSON.parse(sealed.text)['pushseal-bundle'], { devicePrivateKey: device.privateKey, pinnedProviderKeys: [provider.publicKey], store, now: NOW, envelopeKid: b64urlDecode(sealed.wire).subarray(1, 17) });
  assert.equal(openPayload(sealed.body, store, { clock: () => NOW }).content.body, 'hi');
  const n = largestCompleteBody((b) => seal(b, {}));
  const squeezed = seal('x'.repeat(n), { keyBundle: text });
  assert.equal(squeezed.path, 'truncated');
  assert.ok(squeezed.body.length <= 4096);
  assert.ok(largestCompleteBody((b) => seal(b, { keyBundle: text })) < n);
});

test('an in-band bundle in an FCM message', () => {
  const text = bundle();
  const sealed = new Sealer().sealFCM({ cid: 'conv-1', mid: 'm-1', ts: NOW, body: 'hi' }, KD, { token: 'tok', keyBundle: text });
  const data = JSON.parse(sealed.text).message.data;
  assert.deepEqual(Object.keys(data), ['pushseal', 'pushseal-bundle']);
  assert.equal(data['pushseal-bundle'], text);
  assert.equal(sealed.sizes.limited, 'pushseal'.length + sealed.wire.length + 'pushseal-bundle'.length + text.length);
});

test('an in-band bundle must be a format-2 bundle', () => {
  for (const text of ['AQ', b64urlEncode(Buffer.alloc(403, 1)), bundle().slice(0, -4), 7]) {
    assert.throws(() => new Sealer().sealAPNs({ cid: 'conv-1', mid: 'm-1', ts: NOW, body: 'hi' }, KD, { keyBundle: text }), (e) => e instanceof SealError && e.code === 'invalid_option');
  }
});

test('a retired device key is refused for later notifications', () => {
  const store = new MemoryKeyStore();
  install(bundle({ epoch: 1, since: SINCE - 1000 }), store);
  install(bundle({ conversationKey: K2, epoch: 2, since: SINCE }), store); // retires epoch 1 at SINCE
  const d = deviceKeyId(device.publicKey);
  const early = new Sealer().sealFCMForDevice({ cid: 'conv-1', mid: 'm-1', ts: SINCE - 10, body: 'old' }, K, d, { token: 'tok' });
  assert.equal(openPayload(early.body, store, { clock: () => SINCE }).content.body, 'old');
  const late = new Sealer().sealFCMForDevice({ cid: 'conv-1', mid: 'm-2', ts: NOW, body: 'forged' }, K, d, { token: 'tok' });
  assert.throws(() => openPayload(late.body, store, { clock: () => NOW }), (e) => e instanceof OpenError && e.reason === 'retired_key');
});
