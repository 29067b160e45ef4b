// GC passes over a MemoryStateStore on a FakeClock: nodes write manifests every 6 hours, time
// moves in steps, and the pass collects only what the seed's rules prove is garbage.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeClock } from '../common/index.js';
import { runGcPass } from './gc-run.js';
import { MANIFEST_INTERVAL_MS } from './gc-rules.js';
import { buildManifest, pruneManifests, writeManifest } from './manifest.js';
import { MemoryStateStore } from './memory-store.js';
import type { StateStore } from './types.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const GRACE = 7 * DAY;

interface Node {
  readonly host: string;
  jobs: string[];
  alive: boolean;
}

class Fleet {
  readonly clock = new FakeClock(Date.UTC(2026, 2, 1));
  readonly store: StateStore = new MemoryStateStore({ clock: this.clock });
  readonly nodes: Node[] = [];

  async start(): Promise<void> {
    await this.store.open();
  }

  async join(host: string, jobs: string[]): Promise<Node> {
    const node = { host, jobs, alive: true };
    this.nodes.push(node);
    await this.#manifest(node);
    return node;
  }

  /** Let `ms` pass, every live node writing a manifest each 6 hours. */
  async pass(ms: number): Promise<void> {
    let left = ms;
    while (left > 0) {
      const step = Math.min(left, MANIFEST_INTERVAL_MS);
      await this.clock.advance(step);
      left -= step;
      if (step === MANIFEST_INTERVAL_MS) {
        for (const node of this.nodes) if (node.alive) await this.#manifest(node);
      }
    }
  }

  gc(dryRun = false) {
    return runGcPass(this.store, { nowMs: this.clock.now(), graceMs: GRACE, dryRun });
  }

  async #manifest(node: Node): Promise<void> {
    const manifest = buildManifest({
      host: node.host,
      jobSetId: `v1:${node.jobs.join(',')}`,
      jobs: node.jobs.map((name) => ({ name, stateAllowedScopes: [] })),
    });
    await writeManifest(this.store, manifest, this.clock.now());
  }
}

async function streams(store: StateStore): Promise<string[]> {
  return (await store.listStreams()).filter(
    (name) => !name.startsWith('manifests/') && name !== 'meta',
  );
}

void test('nothing is collected during the first grace window of a fresh store', async () => {
  const fleet = new Fleet();
  await fleet.start();
  await fleet.store.append('runs/orphan', { outcome: 'success' });
  await fleet.join('node-a', ['live']);
  for (let day = 0; day < 7; day++) {
    const report = await fleet.gc();
    assert.equal(report.status, 'deferred', `day ${day}`);
    assert.match(report.deferredReason ?? '', /less than the 7d grace/);
    await fleet.pass(DAY);
  }
  assert.deepEqual(await streams(fleet.store), ['runs/orphan']);
  await fleet.pass(1000);
  const report = await fleet.gc();
  assert.equal(report.status, 'done');
  assert.deepEqual(
    report.removed.map((action) => action.name),
    ['runs/orphan'],
  );
});

void test("a removed job's streams go after the grace; a live peer's and unrecognised streams stay", async () => {
  const fleet = new Fleet();
  await fleet.start();
  const a = await fleet.join('node-a', ['live', 'doomed']);
  await fleet.join('node-b', ['peer-only']);
  for (const stream of ['runs/doomed', 'logs/doomed', 'retries/doomed', 'runs/live']) {
    await fleet.store.append(stream, { n: 1 });
  }
  await fleet.store.append('runs/peer-only', { n: 1 });
  await fleet.store.append('mystery/thing', { n: 1 });
  await fleet.store.append('meta', { schemes: ['v1'] });
  await fleet.store.append('counters/node-a', { n: 1 });

  await fleet.pass(2 * DAY);
  a.jobs = ['live']; // doomed removed from node-a's config
  await fleet.pass(GRACE - DAY);
  // doomed was last named 6 days ago: still referenced.
  let report = await fleet.gc();
  assert.equal(report.status, 'done');
  assert.deepEqual(report.removed, []);

  await fleet.pass(2 * DAY);
  report = await fleet.gc();
  assert.deepEqual(report.removed.map((action) => action.name).sort(), [
    'logs/doomed',
    'retries/doomed',
    'runs/doomed',
  ]);
  assert.deepEqual(await streams(fleet.store), [
    'counters/node-a',
    'mystery/thing',
    'runs/live',
    'runs/peer-only',
  ]);
});

void test('a node that is merely down keeps its jobs for the grace, then its streams age out', async () => {
  const fleet = new Fleet();
  await fleet.start();
  await fleet.join('node-a', ['a-job']);
  const b = await fleet.join('node-b', ['b-job']);
  await fleet.store.append('runs/b-job', { n: 1 });
  await fleet.store.append('counters/node-b', { n: 1 });
  await fleet.pass(GRACE + DAY);
  b.alive = false;
  await fleet.pass(GRACE - DAY);
  assert.deepEqual((await fleet.gc()).removed, [], 'down for less than the grace');
  await fleet.pass(2 * DAY);
  const removed = (await fleet.gc()).removed.map((action) => action.name).sort();
  assert.deepEqual(removed, ['counters/node-b', 'manifests/node-b', 'runs/b-job']);
});

void test('a job re-added before the pass runs is not collected (re-check before delete)', async () => {
  const fleet = new Fleet();
  await fleet.start();
  await fleet.join('node-a', ['live']);
  await fleet.store.append('runs/gone', { n: 1 });
  await fleet.pass(GRACE + DAY);
  const dry = await fleet.gc(true);
  assert.equal(dry.status, 'dry-run');
  assert.deepEqual(
    dry.removed.map((action) => action.name),
    ['runs/gone'],
  );
  assert.deepEqual(await streams(fleet.store), ['runs/gone'], 'a dry run deletes nothing');
  await fleet.store.append('runs/gone', { n: 2 });
  const report = await fleet.gc();
  assert.deepEqual(report.removed, [], 'its newest record is fresh again');
});

void test('dag runs, advance leases, XCom and blobs over a real store', async () => {
  const fleet = new Fleet();
  await fleet.start();
  const { store } = fleet;
  await fleet.join('node-a', ['live']);
  const kept = await store.putBlob(new TextEncoder().encode('kept'));
  const orphan = await store.putBlob(new TextEncoder().encode('orphan'));
  const xcom = await store.putBlob(new TextEncoder().encode('xcom'));
  await store.append('artifacts/live', { name: 'report', sha256: kept, size: 4 });
  await store.append('artifacts/dagxcom/etl/run-1', { name: 't/k', sha256: xcom, size: 4 });
  await store.updateDocument('dagrun/etl', '2026-03-01T00:00:00Z', () => ({
    kind: 'write',
    body: { dag: 'etl', runKey: '2026-03-01T00:00:00Z', runId: 'run-1', state: 'success' },
    result: null,
  }));
  await store.acquireLease('dagadvance/etl/2026-03-01T00:00:00Z', 'node-a', 30_000);
  await store.acquireLease('slots/live', 'node-a', 30_000);
  await fleet.pass(GRACE + 2 * DAY);
  const first = await fleet.gc();
  assert.equal(first.status, 'done');
  // The run document is removed first; its XCom stays referenced while the document exists.
  assert.deepEqual(first.removed.map((action) => `${action.target} ${action.name}`).sort(), [
    'blob ' + orphan,
    'doc dagrun/etl/2026-03-01T00:00:00Z',
    'lease dagadvance/etl/2026-03-01T00:00:00Z',
  ]);
  const second = await fleet.gc();
  assert.deepEqual(second.removed.map((action) => `${action.target} ${action.name}`).sort(), [
    'blob ' + xcom,
    'stream artifacts/dagxcom/etl/run-1',
  ]);
  assert.equal(second.blobSweepSkipped, null);
  assert.ok(await store.hasBlob(kept));
  assert.ok(await store.inspectLease('slots/live'), 'named leases are never deleted');
});

void test("pruneManifests keeps the reference's newest 512, or the window plus one older record when that is more", async () => {
  const fleet = new Fleet();
  await fleet.start();
  await fleet.join('node-a', ['x']);
  await fleet.pass(10 * DAY);
  assert.equal((await fleet.store.list('manifests/node-a')).length, 41);
  assert.equal(await pruneManifests(fleet.store, 'node-a', fleet.clock.now(), GRACE), 0);
  // 520 six-hourly manifests: the newest 512 span 128 days, more than a 7-day grace.
  await fleet.pass(120 * DAY);
  const before = (await fleet.store.list('manifests/node-a')).length;
  assert.equal(before, 521);
  assert.equal(await pruneManifests(fleet.store, 'node-a', fleet.clock.now(), GRACE), 9);
  assert.equal((await fleet.store.list('manifests/node-a')).length, 512);
  // A grace longer than 512 manifests span: the window plus the record that proves the span.
  await fleet.pass(10 * DAY);
  assert.equal((await fleet.store.list('manifests/node-a')).length, 552);
  const grace = 130 * DAY;
  assert.equal(await pruneManifests(fleet.store, 'node-a', fleet.clock.now(), grace), 30);
  const kept = await fleet.store.list('manifests/node-a');
  assert.equal(
    kept.length,
    522,
    '521 inside the 130-day window, plus the one that proves the span',
  );
  assert.ok((kept.at(-1)?.writtenAtMs ?? 0) < fleet.clock.now() - grace);
});
