// The store the Python reference wrote (test/golden/store-reference/), opened by the
// FsStateStore: every stream, record, document, lease and blob reads back exactly as
// expected.json lists it, nothing is quarantined or rewritten, and the next writes continue
// the reference's state (lease fences, the record order).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { FsStateStore } from './fs-store.js';
import { readManifestHistory } from './manifest.js';
import { extractGoldenStore, type GoldenStore } from './test-golden.js';
import { recordingLogger } from '../logging/testing.js';

/** A little after the reference wrote the store (2026-12-01T14:30:57Z). */
const AFTER_MS = Date.UTC(2026, 11, 1, 15, 0, 0);

async function withGolden(
  body: (golden: GoldenStore, store: FsStateStore, clock: FakeClock) => Promise<void>,
): Promise<void> {
  const golden = await extractGoldenStore();
  const clock = new FakeClock(AFTER_MS);
  const logger = recordingLogger();
  const store = new FsStateStore(
    { path: golden.storePath, topology: 'single-node' },
    { clock, logger },
  );
  try {
    await store.open();
    await body(golden, store, clock);
    assert.deepEqual(
      await readdir(path.join(golden.root, 'quarantine')),
      [],
      'nothing quarantined',
    );
    assert.deepEqual(
      logger.at('warn').map((line) => line.message),
      [],
      'reading the reference store warns about nothing',
    );
  } finally {
    await store.close();
    await golden.dispose();
  }
}

void test('every stream and record of the reference store reads back, newest first, byte order', () =>
  withGolden(async ({ expected }, store) => {
    assert.deepEqual(await store.listStreams(), Object.keys(expected.records));
    for (const [stream, { records }] of Object.entries(expected.records)) {
      const listed = await store.list(stream);
      assert.deepEqual(
        listed.map((record) => ({ file: `${record.id}.json`, data: record.data })),
        records,
        stream,
      );
      for (const record of listed) {
        const seconds = Number(record.id.split('-')[0]);
        assert.equal(record.writtenAtMs, seconds * 1000, 'the write time is read from the name');
      }
    }
    const counts = (await store.describe()).counts;
    assert.equal(counts.streams, Object.keys(expected.records).length);
    assert.equal(
      counts.records,
      Object.values(expected.records).reduce((sum, { records }) => sum + records.length, 0),
    );
    assert.equal(counts.quarantined, 0);
    assert.deepEqual((await store.describe()).stampedSchemaVersions, ['v1']);
  }));

void test('every document reads back in its namespace with the reference body', () =>
  withGolden(async ({ expected }, store) => {
    const namespaces: string[] = [];
    for (const family of ['cursor', 'idem', 'kv'] as const) {
      for (const [scope, docs] of Object.entries(expected.documents[family])) {
        const ns = `${family}/${scope}`;
        namespaces.push(ns);
        const listed = await store.listDocuments(ns);
        assert.deepEqual(Object.fromEntries(listed.map((doc) => [doc.key, doc.body])), docs, ns);
        for (const [key, body] of Object.entries(docs)) {
          assert.deepEqual((await store.getDocument(ns, key))?.body, body);
        }
      }
    }
    assert.deepEqual(await store.listDocumentNamespaces(), namespaces.sort());
    assert.equal((await store.describe()).counts.docs, 5);
  }));

void test('the released lock lease keeps its holder and fence; the next acquire is fence + 1', () =>
  withGolden(async ({ expected }, store) => {
    const leases = Object.entries(expected.leases);
    assert.equal(leases.length, 1);
    const [name, { body }] = leases[0]!;
    assert.deepEqual(await store.listLeases(), [
      {
        name,
        holder: body.holder,
        fence: body.fence,
        expiresAtMs: 0,
        updatedAtMs: (await store.inspectLease(name))!.updatedAtMs,
      },
    ]);
    const next = await store.acquireLease(name, 'vm#0123456789ab#' + 'f'.repeat(32), 30_000);
    assert.equal(next.acquired, true);
    assert.equal(next.fence, expected.mustSee.lockFences[name]!.fence + 1);
    assert.equal(next.previousHolder, undefined, 'a released tenure has no holder to reconcile');
  }));

void test('the artifact blob reads back by its sha256 and the artifact record names it', () =>
  withGolden(async ({ expected, root }, store) => {
    const report = expected.mustSee.artifacts.writer!.report!;
    assert.deepEqual(
      (await store.listBlobs()).map((blob) => blob.sha256),
      expected.blobs.map((file) => path.basename(file, '.blob')),
    );
    const bytes = await store.getBlob(report.sha256);
    assert.equal(Buffer.from(bytes!).toString('utf8'), report.text);
    assert.equal(createHash('sha256').update(bytes!).digest('hex'), report.sha256);
    const [record] = await store.list('artifacts/writer');
    assert.equal(record?.data.sha256, report.sha256);
    // Identical bytes put again only touch the existing blob.
    assert.equal(await store.putBlob(bytes!), report.sha256);
    assert.deepEqual(await readdir(path.join(root, 'blobs', report.sha256.slice(0, 2))), [
      `${report.sha256}.blob`,
    ]);
  }));

void test('our appends sort after the reference records of a stream, and its files are untouched', () =>
  withGolden(async ({ expected, root }, store) => {
    const dir = path.join(root, 'records', expected.records['runs/ticker']!.dir);
    const before = await readdir(dir);
    const originals = await Promise.all(before.map((name) => readFile(path.join(dir, name))));
    const ours = await store.append('runs/ticker', { outcome: 'success' });
    const listed = await store.list('runs/ticker');
    assert.equal(listed[0]?.id, ours.id, 'newest by byte order of the names');
    assert.equal(listed.length, before.length + 1);
    for (const [index, name] of before.entries()) {
      assert.deepEqual(await readFile(path.join(dir, name)), originals[index]);
    }
    // GC's view: the stream's age is the time in its newest name.
    assert.equal(listed[0]?.writtenAtMs, AFTER_MS);
  }));

void test('the manifest of host vm reads back as the reference wrote it', () =>
  withGolden(async ({ expected }, store) => {
    const mustSee = (
      expected as unknown as {
        mustSee: { manifests: Record<string, Record<string, unknown>> };
      }
    ).mustSee.manifests;
    const history = await readManifestHistory(store);
    assert.equal(history.unreadable, 0);
    assert.deepEqual(
      Object.fromEntries(
        history.entries.map((entry) => [
          entry.host,
          { jobs: entry.jobs, scopes: entry.scopes, dags: entry.dags, jobSetId: entry.jobSetId },
        ]),
      ),
      mustSee,
    );
  }));
