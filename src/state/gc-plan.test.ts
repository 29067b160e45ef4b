// planGc() on synthetic inventories: every GC rule of the seed, each biased to keep.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  planGc,
  type ArtifactRefs,
  type DagRunDoc,
  type GcInventory,
  type GcPlan,
  type StreamAge,
} from './gc-plan.js';
import { classifyStream, parseDagRunNamespace, parseDagXcomScope } from './gc-rules.js';
import type { ManifestEntry } from './manifest.js';
import type { BlobInfo, LeaseState } from './types.js';

const DAY = 86_400_000;
const GRACE = 7 * DAY;
const NOW = Date.UTC(2026, 5, 1);

function manifest(
  host: string,
  ageMs: number,
  jobs: string[],
  extra: Partial<ManifestEntry> = {},
): ManifestEntry {
  return {
    host,
    writtenAtMs: NOW - ageMs,
    jobSetId: 'v1:x',
    jobs,
    scopes: ['global'],
    dags: [],
    ...extra,
  };
}

/** A history that spans the grace: an old manifest and a fresh one from `host`. */
function spanning(host: string, jobs: string[], extra: Partial<ManifestEntry> = {}) {
  return [manifest(host, GRACE + DAY, jobs, extra), manifest(host, DAY / 4, jobs, extra)];
}

function stream(name: string, ageMs: number | null): StreamAge {
  return { name, newestWrittenAtMs: ageMs === null ? null : NOW - ageMs };
}

function inventory(partial: Partial<GcInventory>): GcInventory {
  return {
    nowMs: NOW,
    manifests: spanning('node-a', ['live']),
    unreadableManifests: 0,
    streams: [],
    dagRuns: [],
    dagAdvanceLeases: [],
    artifactRefs: { ok: true, byStream: new Map() },
    blobs: [],
    ...partial,
  };
}

function ready(plan: GcPlan): Extract<GcPlan, { status: 'ready' }> {
  assert.equal(plan.status, 'ready', plan.status === 'deferred' ? plan.reason : '');
  return plan;
}

function removedNames(plan: GcPlan): string[] {
  const r = ready(plan);
  return [...r.actions, ...r.blobActions].map((action) => action.name).sort();
}

void test('nothing is collected until the manifest history spans the grace', () => {
  const plan = planGc(
    inventory({
      manifests: [manifest('node-a', GRACE - DAY, ['live']), manifest('node-a', 0, ['live'])],
      streams: [stream('runs/gone', 30 * DAY)],
    }),
    GRACE,
  );
  assert.equal(plan.status, 'deferred');
  assert.match(
    plan.status === 'deferred' ? plan.reason : '',
    /manifest history spans 6d, less than the 7d grace/,
  );
});

void test('a store without manifests defers', () => {
  const plan = planGc(inventory({ manifests: [] }), GRACE);
  assert.deepEqual(plan, { status: 'deferred', reason: 'no manifest has been recorded yet' });
});

void test('an unreadable manifest record defers the pass: its references are unknown', () => {
  const plan = planGc(inventory({ unreadableManifests: 1 }), GRACE);
  assert.equal(plan.status, 'deferred');
});

void test("a removed job's streams go once idle for the grace; every per-job family", () => {
  const families = ['runs', 'logs', 'catchup', 'retries', 'reboot', 'inflight', 'slots'];
  const plan = planGc(
    inventory({ streams: families.map((family) => stream(`${family}/gone`, GRACE + 1000)) }),
    GRACE,
  );
  assert.deepEqual(removedNames(plan), families.map((family) => `${family}/gone`).sort());
  assert.match(ready(plan).actions[0]?.reason ?? '', /job 'gone' is in no manifest of the last 7d/);
});

void test('a removed job whose streams are younger than the grace stays', () => {
  const plan = planGc(inventory({ streams: [stream('runs/gone', GRACE - 1000)] }), GRACE);
  assert.deepEqual(removedNames(plan), []);
  assert.equal(ready(plan).kept, 1);
});

void test('a job named by any recent manifest stays, however old its streams', () => {
  const plan = planGc(
    inventory({
      manifests: [
        ...spanning('node-a', ['live']),
        // A live peer with another job set names its own job.
        manifest('node-b', DAY, ['peer-job']),
      ],
      streams: [stream('runs/live', 100 * DAY), stream('runs/peer-job', 100 * DAY)],
    }),
    GRACE,
  );
  assert.deepEqual(removedNames(plan), []);
});

void test('a job named only by manifests older than the grace is unreferenced', () => {
  const plan = planGc(
    inventory({
      manifests: [...spanning('node-a', ['live']), manifest('node-b', GRACE + DAY, ['old-job'])],
      streams: [stream('runs/old-job', GRACE + DAY)],
    }),
    GRACE,
  );
  assert.deepEqual(removedNames(plan), ['runs/old-job']);
});

void test('a stream with no readable record (age unknown) stays', () => {
  const plan = planGc(inventory({ streams: [stream('runs/gone', null)] }), GRACE);
  assert.deepEqual(removedNames(plan), []);
});

void test('unrecognised streams and the meta stream are never touched', () => {
  const plan = planGc(
    inventory({
      streams: [
        stream('meta', 400 * DAY),
        stream('election/leader', 400 * DAY),
        stream('runs', 400 * DAY),
        stream('mystery/thing', 400 * DAY),
      ],
    }),
    GRACE,
  );
  assert.deepEqual(removedNames(plan), []);
  assert.equal(ready(plan).kept, 0, 'unrecognised streams are not even candidates');
});

void test('counter and manifest streams of hosts no recent manifest names are collected', () => {
  const plan = planGc(
    inventory({
      manifests: [...spanning('node-a', ['live']), manifest('gone-host', GRACE + DAY, [])],
      streams: [
        stream('counters/node-a', 30 * DAY),
        stream('manifests/node-a', DAY / 4),
        stream('counters/gone-host', GRACE + DAY),
        stream('manifests/gone-host', GRACE + DAY),
      ],
    }),
    GRACE,
  );
  assert.deepEqual(removedNames(plan), ['counters/gone-host', 'manifests/gone-host']);
});

void test('artifact streams are unmanaged while any recent manifest predates scopes/dags', () => {
  const plan = planGc(
    inventory({
      manifests: [
        ...spanning('node-a', ['live']),
        manifest('old-build', DAY, ['live'], { scopes: null, dags: null }),
      ],
      streams: [stream('artifacts/gone', 30 * DAY)],
    }),
    GRACE,
  );
  assert.deepEqual(removedNames(plan), []);
});

void test('artifact scopes: job names, advertised scopes and live dag runs are referenced', () => {
  const runs: DagRunDoc[] = [dagRun('etl', 'k1', 'run-1', 'success', DAY)];
  const plan = planGc(
    inventory({
      manifests: spanning('node-a', ['live'], { scopes: ['global', 'shared'], dags: ['etl'] }),
      dagRuns: runs,
      streams: [
        stream('artifacts/live', 30 * DAY),
        stream('artifacts/global', 30 * DAY),
        stream('artifacts/shared', 30 * DAY),
        stream('artifacts/dagxcom/etl/run-1', 30 * DAY),
        stream('artifacts/dagxcom/etl/pruned-run', 30 * DAY),
        stream('artifacts/gone', 30 * DAY),
        stream('artifacts/fresh-gone', DAY),
      ],
    }),
    GRACE,
  );
  assert.deepEqual(removedNames(plan), ['artifacts/dagxcom/etl/pruned-run', 'artifacts/gone']);
});

void test('without the dag run list, every XCom scope stays', () => {
  const plan = planGc(
    inventory({
      dagRuns: null,
      streams: [stream('artifacts/dagxcom/etl/r', 30 * DAY), stream('artifacts/gone', 30 * DAY)],
    }),
    GRACE,
  );
  assert.deepEqual(removedNames(plan), ['artifacts/gone']);
});

function dagRun(
  dag: string,
  runKey: string,
  runId: string,
  state: string,
  ageMs: number,
): DagRunDoc {
  return {
    ns: `dagrun/${dag}`,
    dag,
    runKey,
    runId,
    state,
    updatedAtMs: NOW - ageMs,
  };
}

function lease(name: string, expiredAgoMs: number, writtenAgoMs: number, holder = 'h'): LeaseState {
  return {
    name,
    holder,
    fence: 3,
    expiresAtMs: NOW - expiredAgoMs,
    updatedAtMs: NOW - writtenAgoMs,
  };
}

void test("a removed dag's terminal runs go after the grace; active, owned, fresh runs stay", () => {
  const old = GRACE + DAY;
  const plan = planGc(
    inventory({
      manifests: spanning('node-a', ['live'], { dags: ['kept-dag'] }),
      dagRuns: [
        dagRun('gone', 'done', 'r1', 'success', old),
        dagRun('gone', 'bad', 'r2', 'failed', old),
        dagRun('gone', 'active', 'r3', 'running', old),
        dagRun('gone', 'owned', 'r4', 'success', old),
        dagRun('gone', 'recent', 'r5', 'success', DAY),
        dagRun('kept-dag', 'old', 'r6', 'success', old),
      ],
      dagAdvanceLeases: [lease('dagadvance/gone/owned', -60_000, 0)],
    }),
    GRACE,
  );
  assert.deepEqual(removedNames(plan), ['dagrun/gone/bad', 'dagrun/gone/done']);
  const doc = ready(plan).actions.find((action) => action.name === 'dagrun/gone/done');
  assert.deepEqual(
    doc?.doc,
    { ns: 'dagrun/gone', key: 'done', updatedAtMs: NOW - old },
    'deleted only if unchanged since the scan',
  );
});

void test('dag runs are unmanaged while a recent manifest predates the dags field', () => {
  const plan = planGc(
    inventory({
      manifests: [
        ...spanning('node-a', ['live']),
        manifest('old-build', DAY, ['live'], { dags: null }),
      ],
      dagRuns: [dagRun('gone', 'done', 'r1', 'success', GRACE + DAY)],
    }),
    GRACE,
  );
  assert.deepEqual(removedNames(plan), []);
});

void test('only dead per-run advance leases are reclaimed: expiry AND last write past the grace', () => {
  const old = GRACE + DAY;
  const plan = planGc(
    inventory({
      dagAdvanceLeases: [
        lease('dagadvance/etl/dead', old, old),
        lease('dagadvance/etl/recently-written', old, DAY),
        lease('dagadvance/etl/recently-expired', DAY, old),
      ],
    }),
    GRACE,
  );
  assert.deepEqual(removedNames(plan), ['dagadvance/etl/dead']);
  assert.equal(ready(plan).actions[0]?.target, 'lease');
});

function blob(sha256: string, ageMs: number): BlobInfo {
  return { sha256, sizeBytes: 1, modifiedAtMs: NOW - ageMs };
}

void test('blobs no surviving artifact record references, older than the grace, are swept', () => {
  const old = GRACE + DAY;
  const byStream = new Map([
    ['artifacts/live', ['aa']],
    ['artifacts/gone', ['bb']],
  ]);
  const plan = planGc(
    inventory({
      streams: [stream('artifacts/live', old), stream('artifacts/gone', old)],
      artifactRefs: { ok: true, byStream },
      blobs: [blob('aa', old), blob('bb', old), blob('cc', old), blob('dd', DAY)],
    }),
    GRACE,
  );
  const r = ready(plan);
  assert.deepEqual(
    r.actions.map((action) => action.name),
    ['artifacts/gone'],
  );
  // bb was referenced only by the stream this pass removes; dd is too young (age guard).
  assert.deepEqual(r.blobActions.map((action) => action.name).sort(), ['bb', 'cc']);
  assert.equal(r.blobSweepSkipped, null);
});

void test('the blob sweep stands down when any artifact record cannot be read', () => {
  const refs: ArtifactRefs = { ok: false, reason: 'an artifact stream cannot be listed' };
  const plan = planGc(inventory({ artifactRefs: refs, blobs: [blob('cc', 30 * DAY)] }), GRACE);
  assert.deepEqual(ready(plan).blobActions, []);
  assert.equal(ready(plan).blobSweepSkipped, 'an artifact stream cannot be listed');
});

void test('the pass sweeps temps older than a day and quarantine/lock litter older than the grace', () => {
  assert.deepEqual(ready(planGc(inventory({}), GRACE)).sweep, {
    tempOlderThanMs: DAY,
    quarantineOlderThanMs: GRACE,
    orphanLocksIdleMs: GRACE,
  });
});

void test('stream names classify by family; owners keep their slashes', () => {
  assert.deepEqual(classifyStream('runs/a/b'), { kind: 'job', family: 'runs', job: 'a/b' });
  assert.deepEqual(classifyStream('counters/h1'), { kind: 'host', family: 'counters', host: 'h1' });
  assert.deepEqual(classifyStream('artifacts/dagxcom/d/r'), {
    kind: 'artifact',
    scope: 'dagxcom/d/r',
  });
  assert.deepEqual(classifyStream('meta'), { kind: 'meta' });
  assert.deepEqual(classifyStream('runs/'), { kind: 'unrecognised' });
  assert.deepEqual(classifyStream('leader/x'), { kind: 'unrecognised' });
  assert.equal(parseDagRunNamespace('dagrun/a/b'), 'a/b');
  assert.equal(parseDagRunNamespace('kv/x'), undefined);
  assert.deepEqual(parseDagXcomScope('dagxcom/etl/r1'), { dag: 'etl', runId: 'r1' });
});
