// The fault-injection harness (docs/clustering.md "Measured guarantees"): N real daemons of this
// build on 127.0.0.1 electing through one backend, every inter-node and node→store link through
// a TcpProxy, while a seeded injector cuts, blackholes and delays links, SIGSTOPs, SIGKILLs and
// SIGTERMs nodes (restarting them, optionally under a libfaketime clock offset) and stalls the
// store; then a full outage and restart for the catch-up jobs. Prints one JSON summary on stdout
// (progress on stderr): faults by kind, Leader slots, doubles inside/outside the documented
// windows, skips, lost retries, catch-up and takeover p50/p99.
//
//   npm run build && node --import tsx bench/faults/run.ts --backend gossip|gossip-spread|etcd|
//     filesystem|kubernetes [--nodes 3|5] [--faults 1000] [--seed 1] [--duration-s 900]
//     [--gap-ms 1000] [--skew-ms 0] [--outage-s 12] [--reference-nodes 0] [--keep 1]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWitness } from '../../test/e2e/cluster-harness.js';
import { choiceFlag, numberFlag, pause, progress, seededRandom } from '../lib/soak.js';
import { checkCatchup, checkClusterSlot, checkSlots } from './check.js';
import { BACKENDS, createCluster, LEASE_TTL_S } from './cluster.js';
import { FAULT_KINDS, Injector, LeaderTail } from './faults.js';
import { Nodes } from './nodes.js';
import { SLOT_RUN_S, SPARSE_EVERY_S } from './workload.js';

const BACKEND = choiceFlag('backend', BACKENDS);
const NODE_COUNT = numberFlag('nodes', 3);
const MAX_FAULTS = numberFlag('faults', 1000);
const SEED = numberFlag('seed', 1);
const DURATION_S = numberFlag('duration-s', 900);
const GAP_MS = numberFlag('gap-ms', 1000);
const SKEW_MS = numberFlag('skew-ms', 0);
const OUTAGE_S = numberFlag('outage-s', 12);
const REFERENCE_NODES = numberFlag('reference-nodes', 0);
/**
 * --keep 1: leave the run's directory for a post-mortem: configs, witness, store, `faults.json`
 * (every fault with its start and end) and `logs/<node>-<start>.log` (each process's output).
 */
const KEEP = numberFlag('keep', 0) === 1;

const names = ['a', 'b', 'c', 'd', 'e'].slice(0, NODE_COUNT);
if (NODE_COUNT !== 3 && NODE_COUNT !== 5) throw new Error('--nodes must be 3 or 5');

// Python reference nodes (docs/clustering.md "Interoperating with Python nodes"): the seam is
// YACRON2_REFERENCE_CMD, a command line taking `-c <config>`. Absent: say so and stop.
const referenceCommand = process.env.YACRON2_REFERENCE_CMD?.split(' ').filter(Boolean) ?? null;
if (REFERENCE_NODES > 0 && referenceCommand === null) {
  const reason = 'YACRON2_REFERENCE_CMD is not set: no Python reference node to run';
  progress(`skipped: ${reason}`);
  process.stdout.write(`${JSON.stringify({ backend: BACKEND, skipped: reason })}\n`);
  process.exit(0);
}

const random = seededRandom(SEED);
// Clock offsets come from their own stream, so --skew-ms does not change the fault sequence.
const clockRandom = seededRandom(SEED + 7919);
const dir = mkdtempSync(join(tmpdir(), 'yacron2-faults-'));
const cluster = await createCluster(BACKEND, dir, names);
const nodes = new Nodes({
  dir,
  offsetMs: () => (SKEW_MS === 0 ? 0 : Math.round((clockRandom() * 2 - 1) * SKEW_MS)),
  reference: new Set(names.slice(0, REFERENCE_NODES)),
  referenceCommand,
});
const start = async (name: string): Promise<void> => {
  await nodes.start(name);
  const offsetMs = nodes.started.at(-1)!.offsetMs;
  if (offsetMs !== 0) injector.record('clock', name, `${offsetMs} ms`);
};
const injector = new Injector(cluster, nodes, { random, gapMs: GAP_MS, restart: start });

try {
  if (!nodes.hostnames) progress('warning: no unshare -u: the nodes share one host name');
  await Promise.all(names.map(start));
  const tail = new LeaderTail(cluster.witness);
  for (let tries = 0; tries < 600 && tail.latest() === null; tries++) await pause(100);
  if (tail.latest() === null) throw new Error('no Leader firing within 60 s of the start');
  const firstSecond = Math.floor(Date.now() / 1000) + 2;
  progress(`faults (${BACKEND}, ${NODE_COUNT} nodes, seed ${SEED}): up to ${MAX_FAULTS} faults`);
  await injector.run(Date.now() + DURATION_S * 1000, MAX_FAULTS);
  await pause(8_000); // a quiet tail: the last fault's takeover lands in the window
  const lastSecond = Math.floor(Date.now() / 1000) - 1;
  await pause(1_500);

  // ---- the full outage: every node stopped, then all restarted (catch-up, @reboot) ----
  // --outage-s 0 skips it (the CI run).
  const downFromMs = Date.now();
  let before = 0;
  let firstUpMs = downFromMs;
  let allUpMs = downFromMs;
  if (OUTAGE_S > 0) {
    progress('full outage: stopping every node');
    await nodes.termAll();
    await pause(Math.max(0, downFromMs + OUTAGE_S * 1000 - Date.now()));
    before = readWitness(cluster.witness).length;
    const upAt = await Promise.all(
      names.map(async (name) => {
        await start(name);
        return Date.now();
      }),
    );
    firstUpMs = Math.min(...upAt);
    allUpMs = Date.now();
    // The election, the catch-up gate and the catch-up runs. On gossip the gate is closed at
    // start (no quorum, then the convergence hold) and a refused catch-up is asked again at the
    // next housekeeping pass (the reload interval, 60 s by default): wait past one.
    await pause(BACKEND.startsWith('gossip') ? 70_000 : 30_000);
  }
  await nodes.termAll();
  const firings = readWitness(cluster.witness);

  const slots = checkSlots({
    firings,
    faults: injector.faults,
    firstSecond,
    lastSecond,
    sparseEveryS: SPARSE_EVERY_S,
    skewMs: SKEW_MS,
  });
  const raw = readFileSync(cluster.witness, 'utf8').split('\n');
  const catchup =
    OUTAGE_S > 0
      ? checkCatchup(
          raw.filter((line) => line.trim() !== '').slice(before),
          downFromMs,
          firstUpMs,
          allUpMs,
          SPARSE_EVERY_S,
        )
      : null;
  for (const double of slots.leader.doubles.list) {
    progress(
      `DOUBLE (${double.class}) slot ${new Date(double.second * 1000).toISOString()} ` +
        `[${double.nodes.join(',')}] near: ${double.near.join('; ') || 'no fault'}`,
    );
  }
  // The raw witness lines of a doubled catch-up job slot (the 4th field: the second it ran in).
  for (const double of slots.sparseDoubles) {
    const lines = raw.filter(
      (line) => line.startsWith(`${double.second} `) && line.includes(` ${double.job} `),
    );
    progress(
      `DOUBLE ${double.job} slot ${double.second}: ${lines.join(' | ')}; near: ${double.near.join('; ')}`,
    );
  }
  const clusterSlot = checkClusterSlot(
    raw,
    injector.faults,
    firstSecond,
    lastSecond,
    SLOT_RUN_S * 1000,
    SPARSE_EVERY_S,
  );
  for (const overlap of clusterSlot.overlaps) {
    progress(
      `OVERLAP cluster slot [${overlap.nodes.join(',')}] slots ${overlap.slots.join(',')} ` +
        `${overlap.overlapMs} ms; near: ${overlap.near.join('; ') || 'no fault'}`,
    );
  }
  const byKind: Record<string, number> = {};
  for (const kind of FAULT_KINDS) {
    const count = injector.faults.filter((fault) => fault.kind === kind).length;
    if (count > 0) byKind[kind] = count;
  }
  const lease = !BACKEND.startsWith('gossip');
  const { doubles } = slots.leader;
  const pass = lease
    ? doubles.list.length === 0 && slots.sparseLeaderDoubles === 0
    : doubles.outside === 0 && doubles.pause === 0;
  process.stdout.write(
    `${JSON.stringify({
      backend: BACKEND,
      nodes: NODE_COUNT,
      seed: SEED,
      ...(lease ? { leaseTtlSeconds: LEASE_TTL_S } : { intervalSeconds: 1 }),
      skewMs: SKEW_MS,
      faults: injector.injected,
      clockOffsetStarts: injector.faults.length - injector.injected,
      faultsByKind: byKind,
      ...slots,
      clusterSlot: { ...clusterSlot, overlaps: clusterSlot.overlaps.length },
      bootRuns: firings.filter((firing) => firing.job === 'boot').length,
      starts: nodes.started.length,
      catchup,
      pass,
      loadAvg1m: loadavg()[0],
    })}\n`,
  );
} finally {
  await nodes.killAll();
  await cluster.close();
  if (KEEP) {
    writeFileSync(join(dir, 'faults.json'), `${JSON.stringify(injector.faults, null, 1)}\n`);
    mkdirSync(join(dir, 'logs'));
    nodes.started.forEach(({ name, daemon }, index) => {
      writeFileSync(join(dir, 'logs', `${name}-${index}.log`), `${daemon.lines.join('\n')}\n`);
    });
    progress(`kept ${dir}`);
  } else rmSync(dir, { recursive: true, force: true });
}
