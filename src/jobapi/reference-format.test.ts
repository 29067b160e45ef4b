// What we write is in the Python reference's grammar, checked by a second reader written from the
// format description (state/test-reference-reader.ts, sharing no code with the store). It first
// proves itself on every file of the golden store the reference wrote, then walks a store our
// daemon parts wrote (job API documents, artifacts and locks; records; leases; blobs). The
// durable record bodies are checked by durable/reference-records.test.ts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { dumpPythonJson, pyFloat } from '../common/index.js';
import {
  extractGoldenStore,
  field,
  filesUnder,
  keysOf,
  readReferenceJson,
  RECORD_NAME,
  specEncode,
  toValue,
  type Node,
} from '../state/testing.js';
import { withFixture } from './job-api-fixture.test.js';

void test('the independent reader accepts every golden file, and our serializer rewrites each byte for byte', async () => {
  const golden = await extractGoldenStore();
  try {
    const files = (await filesUnder(golden.root)).filter(
      (file) => file.endsWith('.json') || file.endsWith('.doc') || file.endsWith('.lease'),
    );
    const records = Object.values(golden.expected.records).flatMap((stream) => stream.records);
    assert.equal(files.length, records.length + 5 + 1, 'every record, document and lease');
    for (const file of files) {
      const text = await readFile(path.join(golden.root, file), 'utf8');
      assert.equal(dumpPythonJson(toValue(readReferenceJson(text))), text, file);
    }
    assert.equal(specEncode('runs/Report.Daily'), 'runs%2F%52eport%2E%44aily');
    assert.ok(
      (await readdir(path.join(golden.root, 'records'))).includes('runs%2F%52eport%2E%44aily'),
    );
  } finally {
    await golden.dispose();
  }
});

void test('documents, artifacts, locks, records and blobs we write are in the reference grammar', () =>
  withFixture('fs', async ({ startRun, dir, inner, clock, api }) => {
    const run = startRun({ name: 'etl' });
    const longKey = 'k'.repeat(140);
    for (const [key, value] of [
      ['Config.Main', { retries: 3, ratio: 0.5, tags: ['a', 'ü'] }],
      [longKey, 'long'],
      ['aux', null],
    ] as const) {
      assert.equal((await run.post('/v1/kv/set', { key, value })).status, 200);
    }
    await run.post('/v1/cursor/advance', { name: 'offset', value: 1200 });
    await run.post('/v1/idempotency/claim', { key: 'invoice-2026-12-01' });
    await run.post('/v1/idempotency/claim', { key: 'window', ttl: 30 });
    const report = await run.request('/v1/artifact/put?name=report', {
      method: 'POST',
      body: 'id,total\n1,10\n',
    });
    const lock = (await run.post('/v1/lock/acquire', { name: 'nightly' })).json();
    await run.post('/v1/lock/release', { token: lock.token });
    await clock.advance(1);
    const first = await inner.append('runs/Report.Daily', {
      outcome: 'success',
      duration: pyFloat(2),
    });
    await inner.append('runs/nightly report', { outcome: 'failure', exit_code: 3 });
    const longStream = `runs/${'x'.repeat(200)}`;
    await inner.append(longStream, { outcome: 'success' });
    await api.close();

    const root = path.join(dir!, 'default');
    const files = await filesUnder(root);
    const text = (file: string): Promise<string> => readFile(path.join(root, file), 'utf8');

    // Documents: docs/<enc(ns)>/<enc(key)>.doc in the envelope, a one-NUL .lock beside each.
    const docs = files.filter((file) => file.startsWith('docs/') && !file.endsWith('/'));
    assert.deepEqual(
      docs.sort(),
      [
        'docs/cursor%2Fetl/offset.doc',
        'docs/cursor%2Fetl/offset.lock',
        'docs/idem%2Fetl/invoice-2026-12-01.doc',
        'docs/idem%2Fetl/invoice-2026-12-01.lock',
        'docs/idem%2Fetl/window.doc',
        'docs/idem%2Fetl/window.lock',
        `docs/kv%2Fetl/${specEncode('Config.Main')}.doc`,
        `docs/kv%2Fetl/${specEncode('Config.Main')}.lock`,
        'docs/kv%2Fetl/%61ux.doc',
        'docs/kv%2Fetl/%61ux.lock',
        `docs/kv%2Fetl/${specEncode(longKey)}.doc`,
        `docs/kv%2Fetl/${specEncode(longKey)}.lock`,
      ].sort(),
    );
    assert.equal(specEncode(longKey), `${'k'.repeat(96)}%.86e9c82008dafb50760e667fedafd675`);
    assert.equal(specEncode('Config.Main'), '%43onfig%2E%4Dain');
    for (const lockFile of docs.filter((file) => file.endsWith('.lock'))) {
      assert.deepEqual(await readFile(path.join(root, lockFile)), Buffer.from([0]), lockFile);
    }
    const body = async (file: string): Promise<Node> => {
      const envelope = readReferenceJson(await text(file));
      assert.deepEqual(keysOf(envelope), ['data', 'schemaVersion'], file);
      assert.deepEqual(field(envelope, 'schemaVersion'), { kind: 'string', value: 'v1' });
      return field(envelope, 'data');
    };
    const kv = await body(`docs/kv%2Fetl/${specEncode('Config.Main')}.doc`);
    assert.deepEqual(keysOf(kv), ['key', 'updatedAt', 'value']);
    assert.equal(field(kv, 'updatedAt').kind, 'float');
    assert.deepEqual(toValue(field(kv, 'key')), 'Config.Main');
    assert.equal(
      await text(`docs/kv%2Fetl/${specEncode('Config.Main')}.doc`),
      `{"data":{"key":"Config.Main","updatedAt":${(field(kv, 'updatedAt') as { raw: string }).raw},"value":{"ratio":0.5,"retries":3,"tags":["a","\\u00fc"]}},"schemaVersion":"v1"}`,
    );
    assert.deepEqual(
      toValue(field(await body(`docs/kv%2Fetl/${specEncode(longKey)}.doc`), 'key')),
      longKey,
    );
    const cursor = await body('docs/cursor%2Fetl/offset.doc');
    assert.deepEqual(keysOf(cursor), ['name', 'updatedAt', 'value']);
    assert.deepEqual(field(cursor, 'value'), { kind: 'int', raw: '1200' });
    const claim = await body('docs/idem%2Fetl/invoice-2026-12-01.doc');
    assert.deepEqual(keysOf(claim), ['claimedAt', 'key']);
    assert.equal(field(claim, 'claimedAt').kind, 'float');
    const windowed = await body('docs/idem%2Fetl/window.doc');
    assert.deepEqual(keysOf(windowed), ['claimedAt', 'expiresAt', 'key']);
    assert.equal(
      Number((field(windowed, 'expiresAt') as { raw: string }).raw) -
        Number((field(windowed, 'claimedAt') as { raw: string }).raw),
      30,
    );

    // The lock: a bare lease, released in place (expiresAt 0.0, holder and fence kept).
    const leaseFile = `leases/${specEncode('lock/etl/nightly#0')}.lease`;
    assert.equal(leaseFile, 'leases/lock%2Fetl%2Fnightly%230.lease');
    const lease = readReferenceJson(await text(leaseFile));
    assert.deepEqual(keysOf(lease), ['expiresAt', 'fence', 'holder', 'name']);
    assert.deepEqual(field(lease, 'expiresAt'), { kind: 'float', raw: '0.0' });
    assert.deepEqual(field(lease, 'fence'), { kind: 'int', raw: '1' });
    assert.match(
      (field(lease, 'holder') as { value: string }).value,
      /^test-host#[0-9a-f]{12}#[0-9a-f]{32}$/,
    );
    assert.deepEqual(
      await readFile(path.join(root, leaseFile.replace(/\.lease$/, '.lock'))),
      Buffer.from([0]),
    );

    // The artifact: a blob under its shard, and the reference's record naming it.
    const sha256 = report.json().sha256 as string;
    assert.equal(sha256, createHash('sha256').update('id,total\n1,10\n').digest('hex'));
    assert.equal(await text(`blobs/${sha256.slice(0, 2)}/${sha256}.blob`), 'id,total\n1,10\n');
    const [artifactName] = await readdir(path.join(root, 'records', 'artifacts%2Fetl'));
    const artifact = await body(`records/artifacts%2Fetl/${artifactName!}`);
    assert.deepEqual(keysOf(artifact), ['at', 'name', 'sha256', 'size']);
    assert.equal(field(artifact, 'at').kind, 'float');
    assert.deepEqual(field(artifact, 'size'), { kind: 'int', raw: '14' });

    // Records: enc(stream) directories, `<time>-<instance>-<seq>.json`, the sequence shared
    // with every temp file of the instance, byte order = write order.
    const streams = (await readdir(path.join(root, 'records'))).sort();
    assert.deepEqual(
      streams,
      [
        'artifacts%2Fetl',
        'meta',
        specEncode(longStream),
        'runs%2F%52eport%2E%44aily',
        'runs%2Fnightly%20report',
      ].sort(),
    );
    assert.equal(await text(`records/${specEncode(longStream)}/stream-name.txt`), longStream);
    const names: { name: string; stream: string }[] = [];
    for (const stream of streams) {
      for (const name of await readdir(path.join(root, 'records', stream))) {
        if (name === 'stream-name.txt') continue;
        assert.match(name, RECORD_NAME, `${stream}/${name}`);
        names.push({ name, stream });
        await body(`records/${stream}/${name}`);
      }
    }
    const instances = new Set(names.map(({ name }) => RECORD_NAME.exec(name)![2]));
    assert.equal(instances.size, 1, 'one backend object, one instance');
    const bySeq = [...names].sort((a, b) => a.name.slice(21).localeCompare(b.name.slice(21)));
    assert.deepEqual(
      bySeq.map(({ name }) => name.slice(0, 20)),
      [...bySeq.map(({ name }) => name.slice(0, 20))].sort(),
      'sequence order is time order',
    );
    const seqs = bySeq.map(({ name }) => Number(RECORD_NAME.exec(name)![3]));
    assert.equal(seqs[0], 1, 'the meta stamp takes number 1');
    for (let i = 1; i < seqs.length; i++) {
      assert.ok(seqs[i]! >= seqs[i - 1]! + 2, 'every record write also numbers its temp file');
    }
    const daily = `records/runs%2F%52eport%2E%44aily/${first.id}.json`;
    assert.equal(
      await text(daily),
      '{"data":{"duration":2.0,"outcome":"success"},"schemaVersion":"v1"}',
    );
    assert.equal(
      first.id.slice(0, 20),
      `${String(Math.floor(clock.now() / 1000)).padStart(13, '0')}.${String((clock.now() % 1000) * 1000).padStart(6, '0')}`,
    );
    assert.equal(
      await text(`records/meta/${(await readdir(path.join(root, 'records', 'meta')))[0]!}`),
      '{"data":{"storeVersion":"v1"},"schemaVersion":"v1"}',
    );

    // Nothing left in tmp/ or quarantine/; files 0600, the store's directories 0700.
    assert.deepEqual(await readdir(path.join(root, 'tmp')), []);
    assert.deepEqual(await readdir(path.join(root, 'quarantine')), []);
    for (const file of files) {
      const mode = (await stat(path.join(root, file))).mode & 0o777;
      assert.equal(mode, file.endsWith('/') ? 0o700 : 0o600, file);
    }
  }));
