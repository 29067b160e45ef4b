// E2E: missed-run catch-up after a full outage of a 3-node cluster that elects through a lease
// backend (docs/durable-state.md "Missed-run catch-up", docs/clustering.md "Lease backends"): a
// shared lease directory, or a real etcd (Debian's `etcd` on random loopback ports, one per
// test). The nodes share one state store, each in a UTS namespace of its own. A `Leader` job with
// `onMissed: run-all` runs its first slot, then every node goes down while two more slots pass:
// - gracefully: the holder gives its lease up, so a node elected at the restart backfills;
// - with the holder SIGKILLed: its lease is still live at the restart, so every node's gate is
//   closed until it expires; the backfill must wait for that, never be dropped.
// Either way each missed slot runs exactly once, on one node, and the checkpoint is closed. The
// outage steps are shared with the gossip test (catchup-outage.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startEtcd } from '../../src/leadership/testing.js';
import { CatchupOutage } from './catchup-outage.js';
import {
  getJson,
  leaseNodeYaml,
  waitFor,
  witnessPath,
  type ClusterBody,
  type LeaseStore,
} from './cluster-harness.js';
import { canSetHostName, defer, useTempDir, writeConfig, type TeardownContext } from './harness.js';

const NAMES = ['a', 'b', 'c'] as const;
/** Long enough that a SIGKILLed holder's lease outlives the downtime (a period is ttl / 3). */
const TTL_S = 12;
const SKIP = canSetHostName() ? false : 'needs unshare -u (root) to give each daemon a host name';

type Fate = 'stopped' | 'killed';

for (const backend of ['filesystem', 'etcd'] as const) {
  for (const fate of ['stopped', 'killed'] as const) {
    test(
      `${backend} lease: after a full outage (holder ${fate}), each missed slot is backfilled once, on one node`,
      { timeout: 150_000, skip: SKIP },
      (t) => fullOutage(t, backend, fate),
    );
  }
}

async function fullOutage(
  t: TestContext,
  backend: LeaseStore['backend'],
  fate: Fate,
): Promise<void> {
  const dir = await useTempDir(t);
  const { store, leaseExpiryMs } = await leaseStore(t, dir, backend);
  const outage = new CatchupOutage({
    t,
    dir,
    names: NAMES,
    witness: witnessPath(dir),
    onMissed: 'run-all',
    leadMs: 10_000,
    missedAfterMs: [3_000, 4_000],
  });
  for (const name of NAMES) {
    await writeConfig(
      dir,
      leaseNodeYaml(name, store, outage.jobs, outage.sections),
      `${name}.yaml`,
    );
  }
  const bases = await outage.startAll();
  // Ready: every node has read the lease, and one holds it (the leadership log lines wait for a
  // scheduler pass, which this job's sparse schedule does not give before its first slot).
  await waitFor(async () => {
    const views = await Promise.all(bases.map((base) => getJson<ClusterBody>(base, '/cluster')));
    return views.every((view) => view.quorate) && views.some((view) => view.is_leader);
  }, 'a lease holder');
  const holder = await outage.firstRun();
  assert.ok(NAMES.some((name) => name === holder));

  // Every node goes down; the holder gives its lease up or is SIGKILLed (its lease stays live).
  if (fate === 'killed') await outage.nodes.get(holder as (typeof NAMES)[number]).kill();
  await outage.stopAll();
  await outage.waitOutMissedSlots();

  const restartMs = Date.now();
  const expiryMs = fate === 'killed' ? await leaseExpiryMs() : null;
  await outage.startAll();
  const backfills = await outage.backfilled(60_000);
  const waited = await outage.followersWaited(backfills);
  t.diagnostic(
    `restart +${restartMs - outage.missed.at(-1)!} ms after the last missed slot; ` +
      (expiryMs === null ? '' : `the old lease expired ${expiryMs - restartMs} ms after it; `) +
      `backfills at second ${backfills.map((f) => f.second - Math.floor(restartMs / 1000)).join(', ')} after it, on ${backfills[0]!.node}; waited: ${waited.join(', ')}`,
  );
  if (expiryMs !== null) {
    assert.ok(expiryMs > restartMs + 1000, 'the SIGKILLed holder still held its lease at restart');
    assert.equal(waited.length, NAMES.length, 'every gate was closed while that lease lived');
    assert.ok(
      backfills[0]!.second >= Math.floor(expiryMs / 1000),
      `the backfill ran at ${backfills[0]!.second}, before the lease expired at ${expiryMs / 1000}`,
    );
  }
}

/** The lease store of one test, and how to read when the current holder's lease expires. */
async function leaseStore(
  t: TeardownContext,
  dir: string,
  backend: LeaseStore['backend'],
): Promise<{ store: LeaseStore; leaseExpiryMs: () => Promise<number> }> {
  if (backend === 'filesystem') {
    const path = join(dir, 'election');
    return {
      store: { backend, path, ttl: TTL_S },
      // The reference's lease file; a follower takes over 1 s after `expiresAt` at the earliest.
      leaseExpiryMs: () => {
        const file = join(path, 'default', 'leases', 'cluster%2Fleader.lease');
        const lease = JSON.parse(readFileSync(file, 'utf8')) as { expiresAt: number };
        return Promise.resolve(lease.expiresAt * 1000);
      },
    };
  }
  const etcd = await startEtcd(1);
  defer(t, () => etcd.stop());
  const endpoint = etcd.endpoints[0]!;
  return {
    store: { backend, endpoints: etcd.endpoints, ttl: TTL_S },
    // The election key's lease, as etcd counts it: its remaining TTL (whole seconds, rounded
    // down) from before the question was asked is a lower bound of its expiry.
    leaseExpiryMs: async () => {
      const askedMs = Date.now();
      const key = await etcdPost(endpoint, '/v3/kv/range', {
        key: Buffer.from('yacron2/leader').toString('base64'),
      });
      const kvs = (key.kvs ?? []) as { lease?: string }[];
      const lease = kvs[0]?.lease;
      assert.ok(lease !== undefined, `no election key in etcd: ${JSON.stringify(key)}`);
      const alive = await etcdPost(endpoint, '/v3/lease/timetolive', { ID: lease });
      const ttl = Number(alive.TTL);
      assert.ok(ttl > 0, `the holder's lease is gone: ${JSON.stringify(alive)}`);
      return askedMs + ttl * 1000;
    },
  };
}

async function etcdPost(
  endpoint: string,
  path: string,
  body: object,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${endpoint}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  });
  assert.equal(response.status, 200, `${path}: HTTP ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}
