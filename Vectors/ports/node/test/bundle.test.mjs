// HPKE (RFC 9180 A.2 base and auth) and key bundles through the public API: sealing, every refusal
// reason in check order, idempotent install, and the installed key opening a notification.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  BundleError, BundleReason, MemoryKeyStore, NO_EXPIRY, RegistrationError, Sealer, deviceRegistration, registrationPublicKey, StoreLocked, b64urlDecode, b64urlEncode, deviceKeyId, keyId,
  openBundle, openPayload, parseBundle, providerKeyId, sealBundle,
} from 'pushseal';
import { HPKEError, deriveKeyPair, openAuth, openBase, sealAuth, sealBase, setupSender, x25519 } from 'pushseal/hpke';
import { BUNDLE_INFO, encodeBundleHeader } from '../src/bundle.mjs';
import { runFile } from '../bin/pushseal-vectors.mjs';

// The vendored external vectors (Vectors/external/, SHA-256 in its manifest.json), found like the
// repository's own files: PUSHSEAL_VECTORS (the Vectors directory) or this checkout's.
const vectorsDir = process.env.PUSHSEAL_VECTORS ?? fileURLToPath(new URL('../../..', import.meta.url));
const hpkeFile = () => join(vectorsDir, 'external/rfc9180/rfc9180-x25519-sha256-chacha20poly1305.json');
const wycheproofX25519 = () => join(vectorsDir, 'external/wycheproof/x25519_test.json');

const K = Buffer.from([...Array(32).keys()]);
const OTHER_K = Buffer.from([...Array(32).keys()].map((i) => i + 1));
const NOW = 1764400000;
const device = deriveKeyPair(Buffer.from('device'.repeat(6)));
const provider = deriveKeyPair(Buffer.from('provider'.repeat(4)));
const stranger = deriveKeyPair(Buffer.from('stranger'.repeat(4)));

const bundle = (changes = {}) => sealBundle({
  key: K, conversation: 'conv-1', epoch: 2, notAfter: NOW + 3600, providerPrivateKey: provider.privateKey, devicePublicKey: device.publicKey, ...changes,
});

function reason(text, { store = new MemoryKeyStore(), now = NOW, devicePrivateKey = device.privateKey, pinned = [provider.publicKey] } = {}) {
  try {
    openBundle(text, { devicePrivateKey, pinnedProviderKeys: pinned, store, now });
  } catch (e) {
    assert.ok(e instanceof BundleError);
    assert.ok(!e.message.includes('conv-1') && !e.message.includes(K.toString('hex')));
    return e.reason;
  }
  assert.fail('installed');
}

const edit = (text, at, value) => { const d = Buffer.from(b64urlDecode(text)); d[at] = value; return b64urlEncode(d); };

const bundles = join(process.env.PUSHSEAL_VECTORS ?? fileURLToPath(new URL('../../..', import.meta.url)), 'pushseal-v1-bundles.json');

test('the bundle vectors pass', () => {
  assert.deepEqual(runFile(bundles), [JSON.parse(readFileSync(bundles, 'utf8')).numberOfTests, 0]);
});

test('a changed bundle vector is caught', () => {
  const doc = JSON.parse(readFileSync(bundles, 'utf8'));
  const t = doc.tests.find((c) => c.resealable && c.result === 'valid');
  t.bundle = `${t.bundle.slice(0, -1)}${t.bundle.endsWith('A') ? 'Q' : 'A'}`;
  const path = join(mkdtempSync(join(tmpdir(), 'ps-')), 'b.json');
  writeFileSync(path, JSON.stringify(doc));
  assert.equal(runFile(path)[1], 1);
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

test('a bundle installs and its key opens a notification', () => {
  const text = bundle();
  assert.equal(b64urlDecode(text).length, 145 + 'conv-1'.length);
  assert.ok(!b64urlDecode(text).includes(Buffer.from('conv-1'))); // the conversation id is sealed
  const { header, headerBytes, enc, ciphertext } = parseBundle(text);
  assert.deepEqual(header.providerKeyId, providerKeyId(provider.publicKey));
  assert.deepEqual(header.deviceKeyId, deviceKeyId(device.publicKey));
  assert.deepEqual([header.epoch, header.notAfter], [2n, BigInt(NOW + 3600)]);
  assert.deepEqual(header.kid, keyId(K));
  assert.deepEqual(encodeBundleHeader(header), headerBytes);
  assert.deepEqual([headerBytes.length, enc.length, ciphertext.length], [65, 32, 32 + 6 + 16]);
  const store = new MemoryKeyStore();
  const first = openBundle(text, { devicePrivateKey: device.privateKey, pinnedProviderKeys: [stranger.publicKey, provider.publicKey], store, now: NOW });
  assert.equal(first.alreadyInstalled, false);
  assert.equal(first.conversation, 'conv-1');
  assert.deepEqual(store.keyFor('conv-1', 2), K);
  const again = openBundle(bundle(), { devicePrivateKey: device.privateKey, pinnedProviderKeys: [provider.publicKey], store, now: NOW });
  assert.equal(again.alreadyInstalled, true);
  const sealed = new Sealer().sealAPNs({ cid: 'conv-1', mid: 'm-1', ts: NOW, body: 'after rotation' }, K);
  assert.equal(openPayload(sealed.body, store, { clock: () => NOW }).content.body, 'after rotation');
});

test('no expiry and the expiry boundary', () => {
  assert.equal(parseBundle(bundle({ notAfter: null })).header.notAfter, NO_EXPIRY);
  const late = openBundle(bundle({ notAfter: null }), { devicePrivateKey: device.privateKey, pinnedProviderKeys: [provider.publicKey], store: new MemoryKeyStore(), now: NO_EXPIRY });
  assert.equal(late.alreadyInstalled, false);
  openBundle(bundle({ notAfter: NOW }), { devicePrivateKey: device.privateKey, pinnedProviderKeys: [provider.publicKey], store: new MemoryKeyStore(), now: NOW });
  assert.equal(reason(bundle({ notAfter: NOW }), { now: NOW + 1 }), BundleReason.BUNDLE_EXPIRED);
});

test('each check in order', () => {
  const text = bundle();
  const data = b64urlDecode(text);
  for (const bad of ['', '!!!', 'AQ=', 'AB', b64urlEncode(Buffer.alloc(145, 1)), b64urlEncode(Buffer.alloc(48, 1)), `AQ${'A'.repeat(534)}`, `${text}!`,
    b64urlEncode(Buffer.concat([Buffer.from([1]), Buffer.alloc(400)])), b64urlEncode(data.subarray(0, 145)),
    edit(text, 40, 0), edit(text, 33, 0x80), edit(text, 41, 0x80)]) {
    assert.equal(reason(bad), BundleReason.MALFORMED_BUNDLE, bad);
  }
  for (const other of ['AAAA', 'Ag', b64urlEncode(Buffer.concat([Buffer.from([2]), Buffer.alloc(400)]))]) {
    assert.equal(reason(other), BundleReason.UNSUPPORTED_BUNDLE_VERSION);
  }
  assert.equal(reason(edit(text, 0, 2)), BundleReason.UNSUPPORTED_BUNDLE_VERSION);
  assert.equal(reason(edit(edit(text, 0, 2), 17, 0)), BundleReason.UNSUPPORTED_BUNDLE_VERSION);
  assert.equal(reason(text, { devicePrivateKey: stranger.privateKey }), BundleReason.WRONG_DEVICE);
  assert.equal(reason(text, { pinned: [stranger.publicKey] }), BundleReason.UNKNOWN_PROVIDER);
  assert.equal(reason(text, { pinned: [] }), BundleReason.UNKNOWN_PROVIDER);
  for (const at of [40, data.length - 1, 65, 97]) assert.equal(reason(edit(text, at, data[at] ^ 1)), BundleReason.BUNDLE_AUTHENTICATION_FAILED);
  assert.equal(reason(b64urlEncode(Buffer.concat([data, Buffer.alloc(1)]))), BundleReason.BUNDLE_AUTHENTICATION_FAILED); // a longer cid
  assert.equal(reason(b64urlEncode(data.subarray(0, data.length - 1))), BundleReason.BUNDLE_AUTHENTICATION_FAILED); // a shorter cid
  const forged = Buffer.from(b64urlDecode(bundle({ providerPrivateKey: stranger.privateKey })));
  providerKeyId(provider.publicKey).copy(forged, 1);
  assert.equal(reason(b64urlEncode(forged)), BundleReason.BUNDLE_AUTHENTICATION_FAILED);
  assert.equal(reason(bundle({ notAfter: NOW - 1 })), BundleReason.BUNDLE_EXPIRED);
});

test('kid mismatch needs an authentic bundle with another kid', () => {
  const header = encodeBundleHeader({
    providerKeyId: providerKeyId(provider.publicKey), deviceKeyId: deviceKeyId(device.publicKey), epoch: 2n, notAfter: BigInt(NOW + 3600), kid: keyId(OTHER_K),
  });
  const { enc, context } = setupSender(device.publicKey, BUNDLE_INFO, { senderPrivateKey: provider.privateKey });
  assert.equal(reason(b64urlEncode(Buffer.concat([header, enc, context.seal(header, Buffer.concat([K, Buffer.from('conv-1')]))]))), BundleReason.KID_MISMATCH);
});

test('a sealed conversation id that is not UTF-8 is malformed after opening', () => {
  const header = encodeBundleHeader({
    providerKeyId: providerKeyId(provider.publicKey), deviceKeyId: deviceKeyId(device.publicKey), epoch: 2n, notAfter: BigInt(NOW + 3600), kid: keyId(K),
  });
  const { enc, context } = setupSender(device.publicKey, BUNDLE_INFO, { senderPrivateKey: provider.privateKey });
  const text = b64urlEncode(Buffer.concat([header, enc, context.seal(header, Buffer.concat([K, Buffer.from('conv-'), Buffer.from([0xff])]))]));
  assert.equal(reason(text), BundleReason.MALFORMED_BUNDLE);
  assert.equal(reason(text, { devicePrivateKey: stranger.privateKey }), BundleReason.WRONG_DEVICE); // the header checks come first
});

test('conflicting keys are refused and nothing is installed', () => {
  for (const [conversation, epoch, key] of [['conv-1', 2, OTHER_K], ['conv-1', 1, K], ['conv-2', 2, K]]) {
    const store = new MemoryKeyStore();
    store.install(conversation, epoch, key, NO_EXPIRY);
    assert.equal(reason(bundle(), { store }), BundleReason.CONFLICTING_KEY);
    if (conversation !== 'conv-1' || epoch !== 2) assert.equal(store.keyFor('conv-1', 2), null);
  }
});

test('a locked store is store_locked, and it is asked last', () => {
  const locked = { keyFor() { throw new StoreLocked(); }, locationOf() { throw new StoreLocked(); }, install() { throw new StoreLocked(); } };
  assert.equal(reason(bundle(), { store: locked }), BundleReason.STORE_LOCKED);
  assert.equal(reason(bundle({ notAfter: NOW - 1 }), { store: locked }), BundleReason.BUNDLE_EXPIRED);
});

test('seal refuses invalid arguments', () => {
  for (const change of [{ key: Buffer.alloc(31) }, { epoch: 0 }, { epoch: 1n << 63n }, { notAfter: 1n << 63n }, { notAfter: NO_EXPIRY - 1n }, { conversation: '' }, { conversation: 'x'.repeat(257) },
    { conversation: 'a\ud800' }, { notAfter: -1 }, { devicePublicKey: Buffer.alloc(31) }]) {
    assert.throws(() => bundle(change), RangeError);
  }
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
  const seal = (body, options) => new Sealer().sealAPNs({ cid: 'conv-1', mid: 'm-1', ts: NOW, body }, K, options);
  const sealed = seal('hi', { keyBundle: text });
  assert.ok(sealed.text.endsWith(`"pushseal":"${sealed.wire}","pushseal-bundle":"${text}"}`));
  assert.equal(sealed.sizes.limited, sealed.body.length);
  const store = new MemoryKeyStore();
  openBundle(JSON.parse(sealed.text)['pushseal-bundle'], { devicePrivateKey: device.privateKey, pinnedProviderKeys: [provider.publicKey], store, now: NOW });
  assert.equal(openPayload(sealed.body, store, { clock: () => NOW }).content.body, 'hi');
  const n = largestCompleteBody((b) => seal(b, {}));
  const squeezed = seal('x'.repeat(n), { keyBundle: text });
  assert.equal(squeezed.path, 'truncated');
  assert.ok(squeezed.body.length <= 4096);
  assert.ok(largestCompleteBody((b) => seal(b, { keyBundle: text })) < n);
});

test('an in-band bundle in an FCM message', () => {
  const text = bundle();
  const sealed = new Sealer().sealFCM({ cid: 'conv-1', mid: 'm-1', ts: NOW, body: 'hi' }, K, { token: 'tok', keyBundle: text });
  const data = JSON.parse(sealed.text).message.data;
  assert.deepEqual(Object.keys(data), ['pushseal', 'pushseal-bundle']);
  assert.equal(data['pushseal-bundle'], text);
  assert.equal(sealed.sizes.limited, 'pushseal'.length + sealed.wire.length + 'pushseal-bundle'.length + text.length);
});

test('an in-band bundle must carry the sealing key', () => {
  for (const [text, detail] of [[bundle({ key: OTHER_K }), 'the bundle carries key'], ['AQ', 'malformed_bundle']]) {
    assert.throws(() => new Sealer().sealAPNs({ cid: 'conv-1', mid: 'm-1', ts: NOW, body: 'hi' }, K, { keyBundle: text }),
      (e) => e.code === 'invalid_option' && e.detail.includes(detail));
  }
});
