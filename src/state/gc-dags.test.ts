// The DAG rules of GC (docs/dags.md "Retention", docs/durable-state.md "Garbage collection")
// through the daemon's own housekeeping: startStateService on a FakeClock writes the manifests
// from the configured DAG names (a reload drops one DAG) and runs its passes. The removed DAG's
// terminal runs go once it has been in no manifest for a whole grace, then their XCom and blobs;
// its running run and a run whose advance lease is held stay; the configured DAG keeps
// everything. A dagadvance/ lease goes only once its expiry and its last write are both older
// than the grace.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { artifactStream, dagAdvanceLeaseName, dagRunNamespace, dagXcomScope } from './gc-rules.js';
import { MemoryStateStore } from './memory-store.js';
import { startStateService } from './service.js';
import type { StateStore } from './types.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const GRACE = 7 * DAY;
const T0 = Date.UTC(2026, 3, 1);

async function writeRun(
  store: StateStore,
  dag: string,
  runKey: string,
  state: 'running' | 'success' | 'failed',
  atMs: number,
): Promise<string> {
  const runId = `${dag}-${runKey}`.padEnd(32, '0');
  await store.updateDocument(dagRunNamespace(dag), runKey, () => ({
    kind: 'write',
    body: {
      dag,
      runKey,
      runId,
      logicalDate: null,
      kind: 'manual',
      state,
      createdAt: atMs / 1000,
      updatedAt: atMs / 1000,
      tasks: {},
      mapped: {},
    },
    result: null,
  }));
  // Each run's XCom: one value under its scope, its bytes a content-addressed blob.
  const bytes = new TextEncoder().encode(`xcom of ${dag}/${runKey}`);
  const sha256 = await store.putBlob(bytes);
  await store.append(artifactStream(dagXcomScope(dag, runId)), {
    name: 'extract/rows',
    sha256,
    size: bytes.length,
    at: atMs / 1000,
  });
  return sha256;
}

async function runKeys(store: StateStore, dag: string): Promise<string[]> {
  const docs = await store.listDocuments(dagRunNamespace(dag));
  return docs.map((doc) => doc.key).sort();
}

async function xcomStreams(store: StateStore): Promise<string[]> {
  return (await store.listStreams()).filter((name) => name.startsWith('artifacts/dagxcom/')).sort();
}

async function leaseNames(store: StateStore): Promise<string[]> {
  return (await store.listLeases('dagadvance/')).map((lease) => lease.name).sort();
}

void test("a removed DAG's terminal runs and XCom are collected after the grace; a configured DAG's stay", async () => {
  const clock = new FakeClock(T0);
  const store = new MemoryStateStore({ clock });
  const service = startStateService(
    { clock, logger: silentLogger(), host: 'node-a', createStore: () => store },
    { path: '/unused', deploymentId: null, topology: 'auto', gcGraceMs: GRACE },
    { jobSetId: 'v1:none', jobs: [], dags: ['kept', 'gone'] },
  );
  assert.equal(await service.opened, true);

  const goneBlob = await writeRun(store, 'gone', 'done', 'success', T0);
  await writeRun(store, 'gone', 'broken', 'failed', T0);
  await writeRun(store, 'gone', 'active', 'running', T0);
  await writeRun(store, 'gone', 'owned', 'success', T0);
  const keptBlob = await writeRun(store, 'kept', 'old', 'success', T0);
  // A node still advancing 'owned' (a long TTL: held through the whole test).
  await store.acquireLease(dagAdvanceLeaseName('gone', 'owned'), 'node-b#p', 30 * DAY);
  // A crashed node's lease: it expires 30 s after its only write.
  await store.acquireLease(dagAdvanceLeaseName('gone', 'done'), 'node-c#p', 30_000);
  // A lease released late: its expiry is 0 (long past) but its last write recent.
  const released = await store.acquireLease(dagAdvanceLeaseName('kept', 'old'), 'node-a#p', 30_000);
  assert.ok(released.acquired);

  // A reload drops 'gone': the next manifests name 'kept' only.
  await clock.advance(HOUR);
  service.updateJobs({ jobSetId: 'v1:none', jobs: [], dags: ['kept'] });

  // One day short of a whole grace without 'gone' in a manifest: nothing of it is collected.
  await clock.advance(GRACE - DAY - 2 * HOUR);
  await store.releaseLease(dagAdvanceLeaseName('kept', 'old'), 'node-a#p', released.fence);
  await clock.advance(HOUR);
  await service.runGcNow();
  assert.deepEqual(await runKeys(store, 'gone'), ['active', 'broken', 'done', 'owned']);
  assert.equal((await xcomStreams(store)).length, 5);
  assert.deepEqual(await leaseNames(store), [
    'dagadvance/gone/done',
    'dagadvance/gone/owned',
    'dagadvance/kept/old',
  ]);

  // Past the grace (the service's own daily passes run meanwhile), then two more passes: the
  // run documents go first, their XCom once no run document names its scope any more.
  await clock.advance(2 * DAY);
  await service.runGcNow();
  await service.runGcNow();
  assert.deepEqual(await runKeys(store, 'gone'), ['active', 'owned']);
  assert.deepEqual(await runKeys(store, 'kept'), ['old']);
  assert.deepEqual(await xcomStreams(store), [
    artifactStream(dagXcomScope('gone', 'gone-active'.padEnd(32, '0'))),
    artifactStream(dagXcomScope('gone', 'gone-owned'.padEnd(32, '0'))),
    artifactStream(dagXcomScope('kept', 'kept-old'.padEnd(32, '0'))),
  ]);
  assert.equal(await store.hasBlob(goneBlob), false);
  assert.equal(await store.hasBlob(keptBlob), true);
  // The crashed node's lease is reclaimed; the held one and the lately released one stay.
  assert.deepEqual(await leaseNames(store), ['dagadvance/gone/owned', 'dagadvance/kept/old']);

  // A grace after its release, the released lease goes too (the configured DAG's run stays).
  await clock.advance(GRACE);
  await service.runGcNow();
  assert.deepEqual(await leaseNames(store), ['dagadvance/gone/owned']);
  assert.deepEqual(await runKeys(store, 'kept'), ['old']);
  await service.close();
});
