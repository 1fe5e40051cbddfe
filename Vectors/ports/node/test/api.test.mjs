// The public API as a user calls it: seal, open, every reason code, every seal error.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import {
  KEY_LOCKED, OpenError, Reason, Receiver, SealError, Sealer, SingleKeySource, b64urlEncode, generateKey, keyId, openPayload, openWire,
} from '../src/index.mjs';
import { sealEnvelope } from '../src/wire.mjs';
import { graphemeClusters } from '../src/graphemes.mjs';

const KEY = Buffer.from([...Array(32).keys()]);
const OTHER = Buffer.from([...Array(32).keys()].map((i) => i + 1));
const NOW = 1_764_400_000;
const content = (changes = {}) => ({ cid: 'conv-1', mid: 'm-1', ts: NOW - 5, title: 'Ana', body: 'Hi 👋🏽', ...changes });
const source = (key = KEY, conversation = 'conv-1', locked = false) => new SingleKeySource(key, conversation, { locked });
function reasonOf(payload, src = source(), options = {}) {
  try { openPayload(payload, src, { clock: () => NOW, ...options }); } catch (e) {
    assert.ok(e instanceof OpenError);
    assert.ok(!e.message.includes('Hi'));
    return e.reason;
  }
  assert.fail('opened');
}

test('APNs and FCM round trips', () => {
  const sealed = new Sealer().sealAPNs(content(), KEY);
  assert.equal(sealed.path, 'complete');
  assert.equal(sealed.sizes.padded, 256);
  const opened = openPayload(sealed.body, source(), { clock: () => NOW });
  assert.deepEqual(opened.content, content());
  assert.equal(opened.duplicate, false);
  const fcm = new Sealer().sealFCM(content(), KEY, { token: 'token-1' });
  assert.ok(fcm.text.startsWith('{"message":{"token":"token-1","data":{"pushseal":"'));
  assert.equal(openPayload(fcm.text, source(), { clock: () => NOW }).content.body, 'Hi 👋🏽');
});

test('fresh salts differ; a test salt is deterministic', () => {
  assert.notEqual(new Sealer().sealAPNs(content(), KEY).wire, new Sealer().sealAPNs(content(), KEY).wire);
  const salt = Buffer.alloc(24);
  assert.equal(new Sealer().sealAPNs(content(), KEY, {}, { testSalt: salt }).text, new Sealer().sealAPNs(content(), KEY, {}, { testSalt: salt }).text);
});

test('every reason code', () => {
  const good = new Sealer().sealAPNs(content(), KEY).wire;
  const p = (wire) => `{"pushseal":"${wire}"}`;
  assert.equal(reasonOf('{"aps":{}}'), Reason.NOT_SEALED);
  assert.equal(reasonOf('{"pushseal":"a","pushseal":"b"}'), Reason.MALFORMED_ENVELOPE);
  assert.equal(reasonOf(p(`${good}=`)), Reason.MALFORMED_ENVELOPE);
  assert.equal(reasonOf(p(b64urlEncode(Buffer.concat([Buffer.from([2]), Buffer.alloc(60)])))), Reason.UNSUPPORTED_VERSION);
  assert.equal(reasonOf(p(good), source(OTHER)), Reason.UNKNOWN_KEY);
  assert.equal(reasonOf(p(good), source(KEY, 'conv-1', true)), Reason.STORE_LOCKED);
  const tampered = good.slice(0, -2) + (good.at(-2) === 'A' ? 'B' : 'A') + good.at(-1);
  assert.equal(reasonOf(p(tampered)), Reason.AUTHENTICATION_FAILED);
  const badPadding = b64urlEncode(sealEnvelope(KEY, Buffer.alloc(24), Buffer.from('{"cid":"conv-1"}\x00')));
  assert.equal(reasonOf(p(badPadding)), Reason.MALFORMED_CONTENT);
  assert.equal(reasonOf(p(good), source(KEY, 'conv-2')), Reason.CONVERSATION_MISMATCH);
  assert.equal(reasonOf(p(good), source(), { maxAge: 1 }), Reason.STALE);
  assert.throws(() => openWire('', source()), (e) => e instanceof OpenError && e.reason === 'malformed_envelope');
  assert.equal(KEY_LOCKED, 'locked');
});

test('duplicate flag and content-free', () => {
  const seen = new Set();
  const receiver = new Receiver(source(), { clock: () => NOW, seen: (c, m) => { const k = `${c}\n${m}`; const hit = seen.has(k); seen.add(k); return hit; } });
  const sealed = new Sealer().sealAPNs(content(), KEY);
  assert.deepEqual([receiver.open(sealed.body).duplicate, receiver.open(sealed.body).duplicate], [false, true]);
  assert.equal(receiver.open(new Sealer().sealAPNs({ cid: 'conv-1', mid: 'm-2', ts: NOW }, KEY).body).requiresFetch, true);
});

test('truncation keeps whole grapheme clusters and marks trunc', () => {
  const family = '👨‍👩‍👧‍👦';
  const sealed = new Sealer().sealAPNs(content({ body: family.repeat(400) }), KEY);
  assert.equal(sealed.path, 'truncated');
  assert.ok(sealed.sizes.limited <= 4096);
  const body = sealed.content.body;
  assert.ok(body.endsWith('…') && sealed.content.trunc);
  assert.equal(body.slice(0, -1), family.repeat(body.slice(0, -1).length / family.length));
});

test('padding cap, content-free switch, does_not_fit', () => {
  const capped = new Sealer({ padBlock: 4096 }).sealAPNs(content({ body: 'x' }), KEY);
  assert.ok(capped.sizes.limited <= 4096 && capped.sizes.limited + 4 > 4096);
  const free = new Sealer().sealAPNs(content({ title: 'T'.repeat(3500) }), KEY);
  assert.equal(free.path, 'content_free');
  assert.deepEqual(free.content, { cid: 'conv-1', mid: 'm-1', ts: NOW - 5 });
  assert.throws(() => new Sealer().sealAPNs(content(), KEY, { placeholder: { body: 'p'.repeat(4100) } }),
    (e) => e instanceof SealError && e.code === 'does_not_fit');
});

test('seal errors carry their codes', () => {
  const cases = [
    [() => new Sealer({ padBlock: 0 }), 'invalid_pad_block'],
    [() => new Sealer().sealAPNs(content({ cid: '' }), KEY), 'invalid_content'],
    [() => new Sealer().sealAPNs(content({ body: undefined }), KEY), 'invalid_content'],
    [() => new Sealer().sealAPNs(content(), KEY, {}, { testSalt: Buffer.alloc(3) }), 'invalid_salt'],
    [() => new Sealer().sealAPNs(content(), Buffer.alloc(5)), 'invalid_key'],
    [() => new Sealer().sealAPNs(content(), KEY, { placeholder: { body: '' } }), 'missing_placeholder'],
    [() => new Sealer().sealAPNs(content(), KEY, { relevanceScore: 2 }), 'invalid_option'],
    [() => new Sealer().sealFCM(content(), KEY, { token: 'bad token' }), 'invalid_fcm_token'],
  ];
  for (const [call, code] of cases) assert.throws(call, (e) => e instanceof SealError && e.code === code, code);
});

test('importing the package has no side effects', () => {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', "import * as p from 'pushseal'; console.log(Object.keys(p).length)"],
    { cwd: new URL('..', import.meta.url), encoding: 'utf8' });
  assert.match(out, /^\d+\n$/);
});

test('times are exact up to 2^63 - 1 (BigInt), and a time of another type or range is refused', () => {
  const sealed = new Sealer().sealAPNs(content(), KEY);
  const max = (1n << 63n) - 1n;
  // retireBy + maxFutureSkew exceeds 2^63 - 1; ts is far below it: not retired.
  assert.equal(openPayload(sealed.body, new SingleKeySource(KEY, 'conv-1', { retireBy: max }), { clock: () => NOW }).content.mid, 'm-1');
  // now 2^53 + 1, one second more than maxAge after ts: stale (a double would round now down and call it fresh).
  const now = (1n << 53n) + 1n;
  assert.equal(reasonOf(sealed.body, source(), { clock: () => now, maxAge: now - 1n - BigInt(NOW - 5) }), Reason.STALE);
  assert.equal(openPayload(sealed.body, source(), { clock: () => now, maxAge: now - BigInt(NOW - 5) }).content.mid, 'm-1');
  assert.throws(() => new Receiver(source(), { maxAge: '60' }), TypeError);
  assert.throws(() => new Receiver(source(), { maxFutureSkew: -1 }), RangeError);
  assert.throws(() => new Receiver(source(), { maxAge: 1n << 63n }), RangeError);
  assert.throws(() => openPayload(sealed.body, source(), { clock: () => Date.now() / 1000 }), RangeError);
});

test('a key that is not bytes, an unknown option and a wrong argument type are TypeErrors; a parsed payload is refused clearly', () => {
  const keyText = 'k'.repeat(32); // 32 characters, not a key
  assert.throws(() => new Sealer().sealAPNs(content(), keyText), TypeError);
  assert.throws(() => new SingleKeySource(keyText, 'conv-1'), TypeError);
  assert.throws(() => new Sealer().sealAPNs(content(), KEY, { sond: 'default' }), /unknown APNs option member sond/);
  assert.throws(() => new Sealer().sealFCM(content(), KEY, { token: 't', tll: 60 }), TypeError);
  assert.throws(() => new Sealer({ padblock: 64 }), TypeError);
  assert.throws(() => new Receiver(source(), { maxage: 60 }), TypeError);
  assert.throws(() => new Sealer().sealAPNs('not content', KEY), TypeError);
  assert.throws(() => new Receiver({}), TypeError);
  const sealed = new Sealer().sealAPNs(content(), KEY);
  assert.throws(() => openPayload(JSON.parse(sealed.text), source(), { clock: () => NOW }), /needs the payload as received/);
  assert.equal(openPayload(new Uint8Array(sealed.body), source(), { clock: () => NOW }).content.mid, 'm-1');
});

test('generateKey gives 32 fresh random bytes that seal and open', () => {
  const a = generateKey(); const b = generateKey();
  assert.ok(a instanceof Uint8Array && a.length === 32 && !a.equals(b));
  assert.equal(keyId(a).length, 16);
  const sealed = new Sealer().sealAPNs(content(), a);
  assert.equal(openPayload(sealed.body, new SingleKeySource(a, 'conv-1'), { clock: () => NOW }).content.mid, 'm-1');
});

test('grapheme clusters come from the port\'s own table: the provider vectors pass with Intl removed', () => {
  const vectors = new URL('../../../pushseal-v1-provider.json', import.meta.url).pathname;
  const file = process.env.PUSHSEAL_VECTORS ? `${process.env.PUSHSEAL_VECTORS}/pushseal-v1-provider.json` : vectors;
  const runner = new URL('../bin/pushseal-vectors.mjs', import.meta.url).href;
  const script = `delete globalThis.Intl; const { runFile } = await import(${JSON.stringify(runner)}); console.log(JSON.stringify(runFile(${JSON.stringify(file)})));`;
  const [passed, failed] = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n').pop());
  assert.equal(failed, 0);
  assert.ok(passed > 100);
});

test('grapheme clusters agree with Intl.Segmenter where the runtime has ICU 74+ (seeded random text)', (t) => {
  const icu = Number.parseInt(process.versions.icu ?? '0', 10);
  if (!(icu >= 74)) { t.skip(`ICU ${process.versions.icu ?? 'none'} predates GB9c`); return; }
  const seed = Number(process.env.PUSHSEAL_SEED ?? Date.now() % 1_000_000);
  console.log(`grapheme seed ${seed} (PUSHSEAL_SEED=${seed} repeats it)`);
  let state = seed >>> 0;
  const next = () => { state = (Math.imul(state, 1664525) + 1013904223) >>> 0; return state; };
  // Break classes of every rule: CR LF, controls, Hangul jamo and syllables, regional indicators,
  // emoji with ZWJ and skin tones, Indic consonants with virama (GB9c), prepend, spacing marks.
  const pool = ['\r', '\n', '\u0001', 'a', ' ', '\u1100', '\u1161', '\u11a8', '\uac00', '\uac01', '\u{1f1e9}', '\u{1f1ea}',
    '\u{1f468}', '\u200d', '\u{1f3fd}', '\u2764', '\ufe0f', '\u0915', '\u094d', '\u0937', '\u093f', '\u0600', '\u0903', '\u0301', 'é'];
  const segmenter = new Intl.Segmenter('und', { granularity: 'grapheme' });
  for (let n = 0; n < 2000; n++) {
    let text = '';
    for (let k = next() % 12; k > 0; k--) text += pool[next() % pool.length];
    const mine = [...graphemeClusters(text)];
    const icuClusters = [...segmenter.segment(text)].map((s) => s.segment);
    assert.deepEqual(mine, icuClusters, `seed ${seed}, text ${JSON.stringify(text)}`);
  }
});
