#!/usr/bin/env node
// Open and seal from the command line (round trips with the `pushseal` tool).
//
//   pushseal-node open --key K --conversation CID [--now UNIX] [--max-age S] [--max-future-skew S] < payload.json
//   pushseal-node seal --key K [--salt S] [--pad-block N] [--apns | --fcm TOKEN] < content.json
//   pushseal-node --version
//
// Keys and salts are base64url without padding; --salt is for test vectors only. `open` prints
// {"outcome":"decrypted"|"fallback","reason":…,"duplicate":…,"content":…} and exits 3 on fallback.
// `seal` applies the size policy and prints the wire string, the APNs body (--apns: placeholder
// "New message", opaque thread-id) or the FCM v1 message (--fcm). Exit codes: 0, 1, 3, 64.

import { readFileSync } from 'node:fs';
import { OpenError, Receiver, SealError, Sealer, SingleKeySource, b64urlDecode, decodeContent, version } from '../src/index.mjs';
import { jsonString } from '../src/content.mjs';
import { JObj, parseJSON } from '../src/strict-json.mjs';

const PROG = 'pushseal-node';
class Usage extends Error {}

function options(argv, names, flags = []) {
  const opts = {};
  for (let i = 0; i < argv.length;) {
    const a = argv[i];
    if (flags.includes(a)) { opts[a] = true; i++; } else if (names.includes(a) && i + 1 < argv.length) { opts[a] = argv[i + 1]; i += 2; } else throw new Usage(`unexpected argument '${a}'`);
  }
  return opts;
}
function intOpt(opts, name, dflt) {
  if (!(name in opts)) return dflt;
  if (!/^-?[0-9]+$/.test(opts[name])) throw new Usage(`${name} needs an integer`);
  return Number(opts[name]);
}
function bytesOpt(opts, name, length) {
  if (!(name in opts)) throw new Usage(`${name} is required`);
  const b = b64urlDecode(opts[name]);
  if (!b || b.length !== length) throw new Usage(`${name} must be ${length} bytes in base64url without padding`);
  return b;
}
const stdin = () => { try { return readFileSync(0); } catch { return Buffer.alloc(0); } };

function placeholder(payload) {
  let title = null; let body = 'New message';
  try {
    const alert = parseJSON(payload, { recordDups: true }).get('aps').get('alert');
    if (typeof alert === 'string') body = alert;
    else if (alert instanceof JObj) {
      if (typeof alert.get('title') === 'string') title = alert.get('title');
      if (typeof alert.get('body') === 'string') body = alert.get('body');
    }
  } catch { /* keep the defaults */ }
  return `{${title !== null ? `"title":${jsonString(title)},` : ''}"body":${jsonString(body)}}`;
}

function open(argv) {
  const opts = options(argv, ['--key', '--conversation', '--now', '--max-age', '--max-future-skew']);
  const key = bytesOpt(opts, '--key', 32);
  if (!('--conversation' in opts)) throw new Usage('--conversation is required');
  const now = intOpt(opts, '--now', Math.floor(Date.now() / 1000));
  const receiver = new Receiver(new SingleKeySource(key, opts['--conversation']), {
    maxAge: intOpt(opts, '--max-age', 2678400), maxFutureSkew: intOpt(opts, '--max-future-skew', 600), clock: () => now });
  const payload = stdin();
  try {
    const opened = receiver.open(payload);
    console.log(`{"outcome":"decrypted","reason":null,"duplicate":${opened.duplicate},"content":${opened.contentBytes.toString('utf8')}}`);
    return 0;
  } catch (e) {
    if (!(e instanceof OpenError)) throw e;
    console.log(`{"outcome":"fallback","reason":"${e.reason}","duplicate":false,"content":${placeholder(payload)}}`);
    return 3;
  }
}

function seal(argv) {
  const opts = options(argv, ['--key', '--salt', '--pad-block', '--fcm'], ['--apns']);
  const key = bytesOpt(opts, '--key', 32);
  const testSalt = '--salt' in opts ? bytesOpt(opts, '--salt', 24) : undefined;
  let input = stdin();
  while (input.length && input[input.length - 1] === 0x0a) input = input.subarray(0, input.length - 1);
  let decoded;
  try { decoded = decodeContent(input, { maxBytes: Infinity }); } catch (e) { console.error(`${PROG}: error: invalid content: ${e.message}`); return 1; }
  if (decoded.unknown.length) console.error(`${PROG}: warning: dropping unknown members ${JSON.stringify(decoded.unknown)}`);
  try {
    const sealer = new Sealer({ padBlock: intOpt(opts, '--pad-block', 256) });
    const sealed = '--fcm' in opts
      ? sealer.sealFCM(decoded.content, key, { token: opts['--fcm'] }, { testSalt })
      : sealer.sealAPNs(decoded.content, key, {}, { testSalt });
    console.log(opts['--apns'] || '--fcm' in opts ? sealed.text : sealed.wire);
    return 0;
  } catch (e) {
    if (!(e instanceof SealError)) throw e;
    console.error(`${PROG}: error: ${e.message}`);
    return 1;
  }
}

function main(argv) {
  try {
    if (argv[0] === 'open') return open(argv.slice(1));
    if (argv[0] === 'seal') return seal(argv.slice(1));
    if (argv[0] === '--version') { console.log(version); return 0; }
    if (argv[0] === '-h' || argv[0] === '--help') {
      console.log('usage: pushseal-node open --key K --conversation CID [--now T] | seal --key K [--salt S] [--pad-block N] [--apns | --fcm TOKEN] | --version');
      return 0;
    }
    throw new Usage('expected open, seal or --version');
  } catch (e) {
    if (!(e instanceof Usage)) throw e;
    console.error(`${PROG}: error: ${e.message}`);
    console.error(`hint: ${PROG} --help`);
    return 64;
  }
}

process.exitCode = main(process.argv.slice(2));
