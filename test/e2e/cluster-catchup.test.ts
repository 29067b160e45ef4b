// E2E: missed-run catch-up under leader election (docs/durable-state.md "Missed-run catch-up").
// Three real daemons over mTLS gossip share one state directory (topology shared), each in a UTS
// namespace of its own. A `Leader` job with `onMissed: run-once` runs its first slot, then the
// whole cluster is down while two more slots pass. At the restart every node's gate is closed
// (no quorum yet, then the convergence hold): the catch-up must wait, not be dropped, and once a
// leader is elected run exactly once cluster-wide, with one open and one close checkpoint. The
// outage steps are shared with the lease backends' test (catchup-outage.ts).
import { test } from 'node:test';
import { makeTestCa } from '../../src/cluster/testing.js';
import { CatchupOutage } from './catchup-outage.js';
import {
  getJson,
  ProxiedMesh,
  waitFor,
  writeNodeConfig,
  type ClusterBody,
} from './cluster-harness.js';
import { canSetHostName, defer, useTempDir } from './harness.js';

const NAMES = ['a', 'b', 'c'] as const;

test(
  'after a full outage of a 3-node gossip cluster, a run-once catch-up runs once, on one node',
  {
    timeout: 150_000,
    skip: canSetHostName() ? false : 'needs unshare -u (root) to give each daemon a host name',
  },
  async (t) => {
    const dir = await useTempDir(t);
    const mesh = await ProxiedMesh.create(dir, NAMES, makeTestCa('catchup'));
    defer(t, () => mesh.close());
    // The first slot far enough ahead for the cluster to agree; two more while it is down.
    const outage = new CatchupOutage({
      t,
      dir,
      names: NAMES,
      witness: mesh.witness,
      onMissed: 'run-once',
      leadMs: 14_000,
      missedAfterMs: [10_000, 12_000],
    });
    for (const name of NAMES) {
      await writeNodeConfig(
        dir,
        name,
        mesh.config(name, { jobs: outage.jobs, sections: outage.sections }),
      );
    }
    const bases = await outage.startAll();
    await waitFor(async () => {
      const views = await Promise.all(bases.map((base) => getJson<ClusterBody>(base, '/cluster')));
      return views.every((view) => view.quorate && !view.conflict);
    }, 'the cluster quorate');
    await outage.firstRun();

    // The whole cluster goes down and misses two slots.
    await outage.stopAll();
    await outage.waitOutMissedSlots();

    // Every node restarts with its gate closed (no quorum yet, then the convergence hold); the
    // followers stay pending (their gate stays closed while the leader lives): one backfill.
    await outage.startAll();
    await outage.followersWaited(await outage.backfilled(60_000));
  },
);
