// E2E: missed-run catch-up under leader election (docs/durable-state.md "Missed-run catch-up").
// Three real daemons over mTLS gossip share one state directory (topology shared), each in a UTS
// namespace of its own. A `Leader` job with `onMissed: run-once` runs its first slot, then the
// whole cluster is down while two more slots pass. At the restart every node's gate is closed
// (no quorum yet, then the convergence hold): the catch-up must wait, not be dropped, and once a
// leader is elected run exactly once cluster-wide, with one open and one close checkpoint.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeTestCa } from '../../src/cluster/testing.js';
import {
  getJson,
  NodeDaemons,
  ProxiedMesh,
  readWitness,
  waitFor,
  writeNodeConfig,
  type ClusterBody,
} from './cluster-harness.js';
import {
  canSetHostName,
  defer,
  readStoreStream,
  secondsSchedule,
  shellQuote,
  useTempDir,
  waitForInstant,
} from './harness.js';

const NAMES = ['a', 'b', 'c'] as const;
type Name = (typeof NAMES)[number];

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
    const store = join(dir, 'store');
    // The first slot far enough ahead for the cluster to agree; two more while it is down.
    const firstMs = Math.ceil((Date.now() + 14_000) / 1000) * 1000;
    const missed = [firstMs + 10_000, firstMs + 12_000];
    const jobs =
      `  - name: nightly\n` +
      `    command: echo "$(date +%s) $YC_NODE nightly" >> ${shellQuote(mesh.witness)}\n` +
      `    schedule: "${secondsSchedule([firstMs, ...missed])}"\n` +
      `    clusterPolicy: Leader\n` +
      `    onMissed: run-once\n` +
      `    captureStderr: false\n`;
    const sections = `state:\n  path: ${store}\n  topology: shared\n`;
    for (const name of NAMES) {
      await writeNodeConfig(dir, name, mesh.config(name, { jobs, sections }));
    }
    const nodes = new NodeDaemons<Name>(t, dir);
    const start = (name: Name): Promise<string> => nodes.start(name);
    const logsOf = (): string => nodes.logs();
    const daemons = nodes.daemons;
    const runs = (): number => readWitness(mesh.witness).filter((f) => f.job === 'nightly').length;

    const bases = await Promise.all(NAMES.map(start));
    await waitFor(async () => {
      const views = await Promise.all(bases.map((base) => getJson<ClusterBody>(base, '/cluster')));
      return views.every((view) => view.quorate && !view.conflict);
    }, 'the cluster quorate');
    assert.ok(Date.now() < firstMs, `the cluster agreed only after the first slot${logsOf()}`);
    await waitFor(
      () => Promise.resolve(readStoreStream(store, 'runs/nightly').length === 1),
      'the first run in the ledger',
      { timeoutMs: 30_000 },
    );
    assert.equal(runs(), 1);

    // The whole cluster goes down and misses two slots.
    await Promise.all([...daemons.values()].map((daemon) => daemon.stop()));
    await waitForInstant(missed.at(-1)! + 500);

    // Every node restarts with its gate closed (no quorum yet, then the convergence hold).
    await Promise.all(NAMES.map(start));
    await waitFor(() => Promise.resolve(runs() === 2), 'the backfill', {
      timeoutMs: 60_000,
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}${logsOf()}`);
    });
    const checkpoints = await waitFor(
      () => {
        const rows = readStoreStream(store, 'catchup/nightly');
        return Promise.resolve(rows.at(-1)?.['kind'] === 'close' ? rows : undefined);
      },
      'the closed checkpoint',
      { timeoutMs: 20_000 },
    );
    assert.deepEqual(
      checkpoints.map((row) => row['kind']),
      ['open', 'close'],
      'only the node that backfilled wrote checkpoints',
    );
    // The followers stay pending (their gate stays closed while the leader lives): one backfill.
    assert.equal(runs(), 2, `the backfill ran more than once${logsOf()}`);
    const backfiller = readWitness(mesh.witness).at(-1)!.node;
    const waited = [...daemons.entries()].filter(([, daemon]) =>
      daemon.logs().some((r) => /missed-run catch-up waits/.test(r.msg)),
    );
    assert.ok(waited.length > 0, `no node's catch-up waited for the gate${logsOf()}`);
    assert.ok(NAMES.includes(backfiller as Name));
  },
);
