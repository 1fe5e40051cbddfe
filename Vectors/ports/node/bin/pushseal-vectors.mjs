#!/usr/bin/env node
// The vector runner: node bin/pushseal-vectors.mjs FILE…  (or `pushseal-vectors-node`).
// Runs receiver vectors (pushseal_v1_test_schema), provider vectors
// (pushseal_v1_provider_test_schema), key bundle vectors (pushseal_v1_bundle_test_schema) and the
// RFC 9180 HPKE file (its base and auth vectors) through the package. Prints one `FAIL tcId N: …` line per
// mismatch and `N passed, N failed`; exits 1 on any failure, on a missing file or another schema,
// or when no case ran.

import { createCipheriv, createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { KEY_LOCKED, KEY_NOT_FOUND, OPAQUE, OpenError, Reason, Receiver, Sealer, SealError } from '../src/index.mjs';
import { encodeContent } from '../src/content.mjs';
import { parseJSON, toPlain } from '../src/strict-json.mjs';
import { b64urlDecode, b64urlEncode, keyId, messageKey, opaqueThreadId, openEnvelope, pad, sealEnvelope, unpad } from '../src/wire.mjs';
import { deviceKey, deviceKeyId, providerKeyId } from '../src/bundle.mjs';
import { publicKey } from '../src/hpke.mjs';
import { BUNDLE_SCHEMA, DEVICE_KEY_SCHEMA, hpkeCases, isHPKEFile, runBundleCase, runDeviceKeyCase, runHPKECase } from './key-vectors.mjs';

const RECEIVER_SCHEMA = 'pushseal_v1_test_schema';
const PROVIDER_SCHEMA = 'pushseal_v1_provider_test_schema';
const STORE_SCHEMA = 'pushseal_v1_store_test_schema';
const REASONS = Object.values(Reason);

function hexField(t, name, length = null, nullable = true) {
  const v = t[name];
  if (v === null || v === undefined) {
    if (nullable) return null;
    throw new Error(`${name} missing`);
  }
  if (typeof v !== 'string' || !/^(?:[0-9a-f]{2})*$/.test(v)) throw new Error(`${name} is not lowercase hex`);
  const b = Buffer.from(v, 'hex');
  if (length !== null && b.length !== length) throw new Error(`${name} must be ${length} bytes`);
  return b;
}
const same = (a, b) => (a === null ? b === null : b !== null && a.equals(b));

/** Mismatches of one receiver case (empty: it passes). */
export function runReceiverCase(t) {
  const errs = [];
  const key = hexField(t, 'key', 32, false);
  const kid = hexField(t, 'kid', 16, false);
  const { conversation, keyStore, previouslySeen, now, maxAge, maxFutureSkew, result, reason, duplicate } = t;
  if (keyStore !== 'available' && keyStore !== 'locked') throw new Error('keyStore must be available or locked');
  if ((result === 'valid') !== (reason === null) || !['valid', 'invalid'].includes(result)) throw new Error('result and reason disagree');
  if (reason !== null && !REASONS.includes(reason)) throw new Error(`unknown reason code ${reason}`);
  const sealKey = hexField(t, 'sealKey', 32);
  const salt = hexField(t, 'salt', 24);
  const mk = hexField(t, 'messageKey', 32);
  const contentHex = hexField(t, 'contentHex');
  const plaintextHex = hexField(t, 'plaintextHex');
  const { keyRetireBy, requiresFetch, truncated } = t;
  if (keyRetireBy !== null && typeof keyRetireBy !== 'bigint' && !Number.isSafeInteger(keyRetireBy)) throw new Error('keyRetireBy must be an integer or null');
  if (typeof requiresFetch !== 'boolean' || typeof truncated !== 'boolean') throw new Error('requiresFetch and truncated must be booleans');
  const handedKid = hexField(t, 'keySourceKid', 16);
  const derivedKid = keyId(key);
  if (!derivedKid.equals(kid)) errs.push('kid differs');
  const indexKid = handedKid ?? derivedKid;
  const source = {
    lookup: (want) => {
      if (!indexKid.equals(want)) return KEY_NOT_FOUND;
      return keyStore === 'locked' ? KEY_LOCKED : { key, conversation, retireBy: keyRetireBy };
    },
  };
  const { previousEnvelopeDiffers, conflict } = t;
  if (typeof previousEnvelopeDiffers !== 'boolean' || typeof conflict !== 'boolean') {
    throw new Error('previousEnvelopeDiffers and conflict must be booleans');
  }
  // The log holds (cid, mid) with this envelope, or with another one.
  const record = () => (!previouslySeen ? 'first' : previousEnvelopeDiffers ? 'conflict' : 'duplicate');
  const receiver = new Receiver(source, { maxAge, maxFutureSkew, clock: () => now, record });
  const want = result === 'valid' ? 'valid' : `invalid/${reason}`;
  for (const [label, text] of [['payload', t.payload], ['fcm', t.fcm ?? null]]) {
    if (text === null) continue;
    let opened = null;
    let got = 'valid';
    try { opened = receiver.open(Buffer.from(text, 'utf8')); } catch (e) {
      if (!(e instanceof OpenError)) throw e;
      got = `invalid/${e.reason}`;
    }
    if (got !== want) errs.push(`${label}: expected ${want}, got ${got}`);
    else if (opened) {
      if (opened.duplicate !== duplicate) errs.push(`${label}: expected duplicate=${duplicate}, got ${opened.duplicate}`);
      if (!same(contentHex, opened.contentBytes)) errs.push(`${label}: decrypted content differs from contentHex`);
      if (opened.conflict !== conflict) errs.push(`${label}: expected conflict=${conflict}, got ${opened.conflict}`);
      if (opened.requiresFetch !== requiresFetch || opened.truncated !== truncated) {
        errs.push(`${label}: expected requiresFetch=${requiresFetch} truncated=${truncated}, got ${opened.requiresFetch} ${opened.truncated}`);
      }
    }
  }
  if (mk && sealKey && salt && !messageKey(sealKey, salt).equals(mk)) errs.push('messageKey differs');
  if (t.resealable) {
    if (!sealKey || !salt || !plaintextHex || typeof t.wire !== 'string') errs.push('resealable case lacks sealKey/salt/plaintextHex/wire');
    else {
      try {
        if (b64urlEncode(sealEnvelope(sealKey, salt, plaintextHex)) !== t.wire) errs.push('reseal differs from wire');
      } catch (e) { errs.push(`reseal: ${e.message}`); }
    }
  }
  if (result === 'valid' && t.padBlock !== null && (!contentHex || !plaintextHex || !pad(contentHex, t.padBlock).equals(plaintextHex))) {
    errs.push(`pad(contentHex, ${t.padBlock}) != plaintextHex`);
  }
  if (typeof t.content === 'string' && contentHex && !Buffer.from(t.content, 'utf8').equals(contentHex)) errs.push('content string != contentHex');
  let envelope = typeof t.wire === 'string' ? b64urlDecode(t.wire) : null;
  if (envelope && envelope.length === 0) envelope = null;
  const expected = {
    envelopeHex: envelope,
    headerHex: envelope && envelope.length >= 41 ? envelope.subarray(0, 41) : null,
    tagHex: envelope && envelope.length >= 58 ? envelope.subarray(envelope.length - 16) : null,
  };
  for (const [name, value] of Object.entries(expected)) if (!same(hexField(t, name), value)) errs.push(`${name} differs`);
  if ((t.threadId ?? null) !== (sealKey ? opaqueThreadId(sealKey) : null)) errs.push('threadId differs');
  return errs;
}

// The option members of each transport. Any other member makes the case malformed, so a runner
// that does not know an option fails the case instead of sealing without it.
const OPTION_MEMBERS = {
  apns: ['placeholder', 'sound', 'threadId', 'plainThreadId', 'category', 'interruptionLevel', 'relevanceScore', 'keyBundle'],
  fcm: ['token', 'priority', 'ttl', 'keyBundle'],
};

function options(transport, o) {
  if (!Object.hasOwn(OPTION_MEMBERS, transport)) throw new Error(`unknown transport ${transport}`);
  const unknown = Object.keys(o).filter((name) => !OPTION_MEMBERS[transport].includes(name));
  if (unknown.length > 0) throw new Error(`unknown ${transport} option ${unknown.join(', ')}`);
  if (o.keyBundle !== undefined && typeof o.keyBundle !== 'string') throw new Error('keyBundle must be a string');
  if (transport === 'fcm') return { token: o.token, priority: o.priority, ttl: o.ttl, keyBundle: o.keyBundle };
  if (!['opaque', 'omitted', 'plain'].includes(o.threadId)) throw new Error('threadId must be opaque, omitted or plain');
  const p = o.placeholder;
  const placeholder = 'locKey' in p
    ? { locKey: p.locKey, locArgs: p.locArgs ?? [], titleLocKey: p.titleLocKey, titleLocArgs: p.titleLocArgs ?? [] }
    : { body: p.body, title: p.title };
  return {
    placeholder, sound: o.sound, category: o.category, interruptionLevel: o.interruptionLevel, relevanceScore: o.relevanceScore,
    threadId: { opaque: OPAQUE, omitted: null, plain: o.plainThreadId }[o.threadId], keyBundle: o.keyBundle,
  };
}

/** Mismatches of one provider case (empty: it passes). */
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const i64 = (n) => { const b = Buffer.alloc(8); b.writeBigInt64BE(BigInt(n)); return b; };
const hmac = (key, ...parts) => { const h = createHmac('sha256', key); for (const p of parts) h.update(p); return h.digest(); };
const utf8 = (s) => Buffer.from(s, 'utf8');

/** ChaCha20-Poly1305(row key, nonce = 12 zero bytes, aad = AD, secret): a sealed row after its format byte and salt (Docs/KEY-STORE.md §3.2, §3.6). */
function atRestSeal(rowKey, ad, secret) {
  const cipher = createCipheriv('chacha20-poly1305', rowKey, Buffer.alloc(12), { authTagLength: 16 });
  cipher.setAAD(ad, { plaintextLength: secret.length });
  return Buffer.concat([cipher.update(secret), cipher.final(), cipher.getAuthTag()]);
}

/** The secret of atRestSeal's output, or null when it does not authenticate. */
function atRestOpen(rowKey, ad, sealed) {
  if (sealed.length < 16) return null;
  const decipher = createDecipheriv('chacha20-poly1305', rowKey, Buffer.alloc(12), { authTagLength: 16 });
  decipher.setAAD(ad, { plaintextLength: sealed.length - 16 });
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  const secret = decipher.update(sealed.subarray(0, sealed.length - 16));
  try {
    decipher.final();
  } catch {
    secret.fill(0);
    return null;
  }
  return secret;
}

/** Mismatches of one key-store case (Docs/KEY-STORE.md §3; empty: it passes). */
export function runStoreCase(t) {
  const mk = hexField(t, 'masterKey', 32, false);
  const expand = (info) => hmac(mk, info, Buffer.from([0x01])); // HKDF-Expand(MK, info, 32)
  const check = (name, value) => (same(hexField(t, name), value) ? [] : [`${name} differs`]);
  if (t.kind === 'identity' || t.kind === 'providerKeyRecord') return runStoreIdentityCase(t, expand, check);
  switch (t.kind) {
    case 'item': {
      const key = hexField(t, 'key', 32, false);
      const salt = hexField(t, 'salt', 24, false);
      const cid = utf8(t.conversation);
      const ad = Buffer.concat([Buffer.from([0x02]), keyId(key), i64(t.epoch), i64(t.createdAt),
        t.notAfter === null ? Buffer.concat([Buffer.from([0]), i64(0)]) : Buffer.concat([Buffer.from([1]), i64(t.notAfter)]),
        u32(cid.length), cid,
        t.label === null ? Buffer.concat([Buffer.from([0]), u32(0)]) : Buffer.concat([Buffer.from([1]), u32(utf8(t.label).length), utf8(t.label)])]);
      const sealed = Buffer.concat([Buffer.from([0x02]), salt, atRestSeal(expand(Buffer.concat([utf8('pushseal v1 store item'), salt])), ad, key)]);
      return [...(keyId(key).equals(hexField(t, 'kid', 16, false)) ? [] : ['kid differs']), ...check('associatedDataHex', ad), ...check('sealedHex', sealed)];
    }
    case 'verifier': {
      const salt = hexField(t, 'salt', 24, false);
      return check('verifierHex', Buffer.concat([Buffer.from([0x01]), salt, expand(Buffer.concat([utf8('pushseal v1 store verifier'), salt]))]));
    }
    case 'delivery': {
      const lk = expand(utf8('pushseal v1 store delivery log'));
      const cid = utf8(t.conversation); const mid = utf8(t.messageId);
      const tag = hmac(lk, u32(cid.length), cid, u32(mid.length), mid);
      const envelopeTag = hmac(lk, Buffer.from([0x02]), hexField(t, 'envelopeHex', null, false));
      // Its mark in the duplicate-log file (Docs/KEY-STORE.md §2.1): a 128-byte slot whose last 8
      // bytes are SHA-256 of the first 120, at index = first 8 bytes of the tag mod the slot count.
      const sha8 = (b) => createHash('sha256').update(b).digest().subarray(0, 8);
      const logId = hmac(lk, utf8('pushseal v1 delivery log id'));
      const body = Buffer.concat([Buffer.from([1, 1]), Buffer.alloc(6), i64(t.seenAt), tag, envelopeTag, Buffer.alloc(40)]);
      const slot = Buffer.concat([body, sha8(body)]);
      const head = Buffer.concat([utf8('PSDL'), u32(1), i64(t.slotCount), i64(0), i64(0), i64(-(2n ** 63n)), logId, Buffer.alloc(48)]);
      const index = Number(tag.readBigUInt64BE(0) % BigInt(t.slotCount));
      return [...check('tagHex', tag), ...check('envelopeTagHex', envelopeTag), ...check('logIdHex', logId),
        ...(t.slotIndex === index ? [] : ['slotIndex differs']), ...check('slotHex', slot), ...check('checkHex', slot.subarray(120)),
        ...check('emptyLogHeaderHex', Buffer.concat([head, sha8(head)]))];
    }
    case 'epochRecord': {
      const rk = expand(utf8('pushseal v1 store epoch record'));
      const cid = utf8(t.conversation);
      return check('tagHex', hmac(rk, Buffer.from([0x01]), u32(cid.length), cid, i64(t.epoch), hexField(t, 'kid', 16, false),
        Buffer.from([t.removed === true ? 1 : 0])));
    }
    default: throw new Error(`unknown kind ${t.kind}`);
  }
}

const IDENTITY_TAGS = { device: 1, provider: 2, pinned: 3, registered: 4 };

/**
 * An identity row read back as the store reads it (Docs/KEY-STORE.md §3.6, §3.7): its secret (the
 * private key, or an empty buffer for a pinned key or a registered device), or null when the store
 * refuses the row (id not its public key's, malformed blob, no authentication, or a private key
 * that does not give the public key).
 */
function readIdentity(kind, id, pk, ad, sealed, expand) {
  const hasPrivateKey = kind === 'device' || kind === 'provider';
  if (!id.equals(kind === 'device' || kind === 'registered' ? deviceKeyId(pk) : providerKeyId(pk))) return null;
  if (sealed.length !== 1 + 24 + (hasPrivateKey ? 32 : 0) + 16 || sealed[0] !== 0x03) return null;
  const secret = atRestOpen(expand(Buffer.concat([utf8('pushseal v1 store identity'), sealed.subarray(1, 25)])), ad, sealed.subarray(25));
  if (secret === null || (hasPrivateKey && !publicKey(secret).equals(pk))) return null;
  return secret;
}

/** Mismatches of one `identity` or `providerKeyRecord` case (Docs/KEY-STORE.md §3.6, §3.7). */
function runStoreIdentityCase(t, expand, check) {
  if (t.result !== 'valid' && t.result !== 'invalid') throw new Error('result must be valid or invalid');
  if (t.kind === 'providerKeyRecord') {
    const rk = expand(utf8('pushseal v1 store epoch record'));
    const kid = hexField(t, 'kid', 16, false);
    const value = hexField(t, 'valueHex', null, false);
    const verifies = value.length === 48 && timingSafeEqual(value.subarray(16), hmac(rk, Buffer.from([0x03]), value.subarray(0, 16)));
    if (t.result === 'invalid') return verifies ? ['the record verifies but must not'] : [];
    return verifies ? check('valueHex', Buffer.concat([kid, hmac(rk, Buffer.from([0x03]), kid)])) : ['valueHex differs'];
  }
  const kind = t.identityKind;
  if (!Object.hasOwn(IDENTITY_TAGS, kind)) throw new Error(`unknown identityKind ${kind}`);
  const pk = hexField(t, 'publicKey', 32, false);
  const id = hexField(t, 'id', 16, false);
  const salt = hexField(t, 'salt', 24, false);
  const sk = hexField(t, 'privateKey', 32, kind === 'pinned' || kind === 'registered');
  const parts = [Buffer.from([0x03, IDENTITY_TAGS[kind]]), id, pk, i64(t.createdAt)];
  if (kind === 'registered') parts.push(t.revokedAt === null ? Buffer.from([0]) : Buffer.concat([Buffer.from([1]), i64(t.revokedAt)]));
  const ad = Buffer.concat(parts);
  const errs = check('associatedDataHex', ad);
  const sealed = hexField(t, 'sealedHex', null, false);
  const opened = readIdentity(kind, id, pk, ad, sealed, expand);
  if (t.result === 'invalid') return [...errs, ...(opened === null ? [] : ['the row opens but must not'])];
  if (opened === null) return [...errs, 'the row does not open'];
  if ((kind === 'device' || kind === 'provider') && !opened.equals(sk)) errs.push('the opened private key differs');
  const resealed = Buffer.concat([Buffer.from([0x03]), salt, atRestSeal(expand(Buffer.concat([utf8('pushseal v1 store identity'), salt])), ad, sk ?? Buffer.alloc(0))]);
  return [...errs, ...check('sealedHex', resealed)];
}

export function runProviderCase(t) {
  const errs = [];
  const key = hexField(t, 'key', 32, false);
  const salt = hexField(t, 'salt', 24, false);
  const conversationKey = hexField(t, 'conversationKey', 32); const device = hexField(t, 'deviceKeyId', 16);
  const perDevice = conversationKey !== null && conversationKey !== undefined && device !== null && device !== undefined;
  if (perDevice && !deviceKey(conversationKey, device).equals(key)) errs.push('key is not the device key of conversationKey and deviceKeyId');
  if (!keyId(key).equals(hexField(t, 'kid', 16, false))) errs.push('kid differs');
  if (t.threadId !== opaqueThreadId(key)) errs.push('threadId differs');
  let sealed;
  try {
    const sealer = new Sealer({ padBlock: t.padBlock });
    const opts = options(t.transport, t.options);
    if (perDevice) { // sealed per device, from K and the device key id
      sealed = t.transport === 'fcm' ? sealer.sealFCMForDevice(t.input, conversationKey, device, opts, { testSalt: salt })
        : sealer.sealAPNsForDevice(t.input, conversationKey, device, opts, { testSalt: salt });
    } else {
      sealed = t.transport === 'fcm' ? sealer.sealFCM(t.input, key, opts, { testSalt: salt }) : sealer.sealAPNs(t.input, key, opts, { testSalt: salt });
    }
  } catch (e) {
    if (!(e instanceof SealError)) throw e;
    if (t.result !== 'error' || t.error !== e.code) errs.push(`expected ${t.result} ${t.error ?? ''}, got error ${e.code}`);
    return errs;
  }
  if (t.result !== 'sealed') return [...errs, `expected error ${t.error}, got a payload`];
  if (sealed.text !== t.payload) errs.push('payload differs');
  if (sealed.path !== t.path) errs.push(`path: expected ${t.path}, got ${sealed.path}`);
  const envelope = b64urlDecode(sealed.wire);
  const plaintext = openEnvelope(key, envelope);
  const content = encodeContent(sealed.content);
  if (!plaintext || !content.equals(unpad(plaintext))) errs.push('sealed content does not open to the planned content');
  const expected = {
    wire: sealed.wire, contentHex: content.toString('hex'), plaintextHex: plaintext?.toString('hex'),
    envelopeHex: envelope.toString('hex'), headerHex: envelope.subarray(0, 41).toString('hex'),
    tagHex: envelope.subarray(envelope.length - 16).toString('hex'), messageKey: messageKey(key, salt).toString('hex'),
    content: content.toString('utf8'),
  };
  for (const [name, value] of Object.entries(expected)) if (t[name] !== value) errs.push(`${name} differs`);
  for (const [name, value] of Object.entries(sealed.sizes)) if (t.sizes?.[name] !== value) errs.push(`sizes.${name} differs`);
  return errs;
}

/** Runs one file, printing its FAIL lines; returns [passed, failed]. */
export function runFile(path) {
  let doc;
  try { doc = toPlain(parseJSON(readFileSync(path), { maxDepth: 64 })); } catch (e) {
    console.log(`FAIL file ${path}: ${e.code ? `cannot read: ${e.code}` : `not strict JSON: ${e.message}`}`);
    return [0, 1];
  }
  if (isHPKEFile(doc)) {
    const cases = hpkeCases(doc);
    return runCases(path, runHPKECase, cases, cases.length);
  }
  const runner = {
    [RECEIVER_SCHEMA]: runReceiverCase, [PROVIDER_SCHEMA]: runProviderCase, [STORE_SCHEMA]: runStoreCase, [BUNDLE_SCHEMA]: runBundleCase,
    [DEVICE_KEY_SCHEMA]: runDeviceKeyCase,
  }[doc?.schema];
  const versions = { [RECEIVER_SCHEMA]: 2, [PROVIDER_SCHEMA]: 1, [STORE_SCHEMA]: 1, [BUNDLE_SCHEMA]: 2, [DEVICE_KEY_SCHEMA]: 1 };
  if (!runner || doc.schemaVersion !== versions[doc.schema]) {
    console.log(`FAIL file ${path}: schema is not ${RECEIVER_SCHEMA} version 2, ${PROVIDER_SCHEMA} version 1, ${STORE_SCHEMA} version 1, ${BUNDLE_SCHEMA} version 2 or ${DEVICE_KEY_SCHEMA} version 1, nor the RFC 9180 file`);
    return [0, 1];
  }
  return runCases(path, runner, Array.isArray(doc.tests) ? doc.tests : [], doc.numberOfTests);
}

function runCases(path, runner, tests, expectedCount) {
  if (tests.length === 0) { console.log(`FAIL file ${path}: no test cases found`); return [0, 1]; }
  let passed = 0; let failed = 0;
  if (expectedCount !== tests.length) { console.log(`FAIL file ${path}: numberOfTests ${expectedCount} != ${tests.length} cases`); failed++; }
  for (const t of tests) {
    let errs;
    try { errs = runner(t); } catch (e) { errs = [`malformed case: ${e.message}`]; }
    if (errs.length) {
      failed++;
      for (const e of errs) console.log(`FAIL tcId ${t?.tcId ?? t?.mode ?? '?'}: ${e}`);
    } else passed++;
  }
  return [passed, failed];
}

/** Entry point: returns the exit status. */
export function main(argv) {
  if (argv.length === 0 || argv[0] === '-h' || argv[0] === '--help') {
    console.log('usage: pushseal-vectors-node FILE…   (receiver, provider, bundle or RFC 9180 vector files)');
    return argv.length === 0 ? 64 : 0;
  }
  let passed = 0; let failed = 0;
  for (const file of argv) {
    const [p, f] = runFile(file);
    passed += p; failed += f;
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

// Run as a program (also through npm's bin symlink, hence the real path), not when imported by the tests.
const invoked = process.argv[1] ? pathToFileURL(realpathSync(process.argv[1])).href : '';
if (import.meta.url === invoked) process.exitCode = main(process.argv.slice(2));
