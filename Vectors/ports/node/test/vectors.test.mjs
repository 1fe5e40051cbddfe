// Both vector files of the repository pass, and a changed expectation is caught.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runFile } from '../bin/pushseal-vectors.mjs';

const dir = process.env.PUSHSEAL_VECTORS ?? fileURLToPath(new URL('../../..', import.meta.url));
const receiver = join(dir, 'pushseal-v1.json');
const provider = join(dir, 'pushseal-v1-provider.json');

for (const file of [receiver, provider]) {
  test(`${file} passes`, () => {
    assert.deepEqual(runFile(file), [JSON.parse(readFileSync(file, 'utf8')).numberOfTests, 0]);
  });
}

test('a wrong payload byte is caught', () => {
  const doc = JSON.parse(readFileSync(provider, 'utf8'));
  const t = doc.tests.find((c) => c.path === 'truncated');
  t.payload = t.payload.replace('"mutable-content":1', '"mutable-content": 1');
  const path = join(mkdtempSync(join(tmpdir(), 'ps-')), 'p.json');
  writeFileSync(path, JSON.stringify(doc));
  assert.deepEqual(runFile(path)[1], 1);
});

for (const member of ['keyBundle', 'ttl', 'sound']) {
  test(`an option the runner does not know (${member}) fails its case`, () => {
    const doc = JSON.parse(readFileSync(provider, 'utf8'));
    const t = doc.tests.find((c) => member in c.options);
    t.options[`${member}X`] = t.options[member];
    delete t.options[member];
    const path = join(mkdtempSync(join(tmpdir(), 'ps-')), 'p.json');
    writeFileSync(path, JSON.stringify(doc));
    assert.deepEqual(runFile(path), [doc.numberOfTests - 1, 1]);
  });
}
