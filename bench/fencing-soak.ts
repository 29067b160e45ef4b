// Fencing soak (not CI, not a bench group): three real daemons electing through a lease backend
// (a real etcd started here, or a shared lease directory), a Leader job every second appending
// `<scheduled second> <node> lead` to one witness file, while the soak SIGKILLs the lease holder
// (restarted a few seconds later), SIGSTOPs it (SIGCONT a few seconds later: it wakes believing
// nothing happened) and, on etcd, SIGSTOPs etcd itself. It then counts, per slot, how many nodes
// ran the firing — a double run (2+) is a fencing failure, a skip (0) is the price of one — and times each
// takeover: from the instant the holder was killed or stopped to the first "acquired
// scheduled-job leadership" line of another node (docs/clustering.md "Lease backends": the
// holder's local deadline is its last renewal + ttl − 1 s, so a stopped or cut-off holder stands
// down before any other node can acquire).
//
//   npm run build && node --import tsx bench/fencing-soak.ts [--backend etcd|filesystem]
//     [--firings 1000] [--ttl 3] [--seed 1]
//
// Prints one JSON summary on stdout; progress and the per-incident lines on stderr.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, type EtcdCluster } from '../src/leadership/testing.js';
import {
  getJson,
  readWitness,
  witnessPath,
  type ClusterBody,
} from '../test/e2e/cluster-harness.js';
import { DaemonProcess } from '../test/e2e/harness.js';
import { percentile } from './lib/stats.js';
import {
  chaosWindow,
  choiceFlag,
  nodesPerSecond,
  numberFlag,
  pause,
  progress,
  seededRandom,
} from './lib/soak.js';

const NAMES = ['a', 'b', 'c'] as const;
type Name = (typeof NAMES)[number];

const BACKEND = choiceFlag('backend', ['etcd', 'filesystem']);
const FIRINGS = numberFlag('firings', 1000);
const TTL = numberFlag('ttl', 3);
const SEED = numberFlag('seed', 1);
const random = seededRandom(SEED);
const between = (low: number, high: number): number => low + random() * (high - low);

type ChaosKind = 'kill-holder' | 'stop-holder' | 'stop-etcd';
interface ChaosEvent {
  readonly kind: ChaosKind;
  /** The node hit (the holder when it was hit), or null for etcd. */
  readonly node: Name | null;
  readonly atMs: number;
  /** When the fault ended: the SIGCONT, or the restarted daemon's start. */
  endMs: number;
}

const dir = mkdtempSync(join(tmpdir(), 'yacron2-fencing-'));
const witness = witnessPath(dir);
const etcd: EtcdCluster | null = BACKEND === 'etcd' ? await startEtcd(1) : null;

function configYaml(name: Name): string {
  const lease =
    etcd === null
      ? `  filesystem:\n    path: ${join(dir, 'election')}\n    topology: shared\n    ttl: ${TTL}\n`
      : `  etcd:\n    endpoints:\n${etcd.endpoints.map((url) => `      - ${url}\n`).join('')}` +
        `    electionName: soak/leader\n    ttl: ${TTL}\n`;
  // The witness line carries the scheduled slot (YACRON2_SCHEDULED_AT, from the job API of each
  // node's own store), not the wall second the process ran in: a node that fires two slots late
  // in one second (after a SIGCONT, or the slots that fell while it started) is not a double run.
  return (
    `jobs:\n` +
    `  - name: lead\n` +
    `    command: echo "$(date -d "$YACRON2_SCHEDULED_AT" +%s) $YC_NODE lead" >> ${witness}\n` +
    `    schedule: "* * * * * * *"\n` +
    `    clusterPolicy: Leader\n` +
    `    captureStderr: false\n` +
    `state:\n  path: ${join(dir, `state-${name}`)}\n` +
    `web:\n  listen:\n    - http://127.0.0.1:0\n` +
    `cluster:\n  backend: ${BACKEND}\n  nodeName: ${name}\n${lease}`
  );
}
for (const name of NAMES) writeFileSync(join(dir, `${name}.yaml`), configYaml(name));

/** Every daemon process started (restarts included): their logs are read at the end. */
const started: { name: Name; daemon: DaemonProcess }[] = [];
const daemons = new Map<Name, DaemonProcess>();
const bases = new Map<Name, string>();
const stopped = new Set<Name>();

async function start(name: Name): Promise<number> {
  const daemon = new DaemonProcess(['-c', join(dir, `${name}.yaml`)], {
    env: { ...process.env, YC_NODE: name },
  });
  started.push({ name, daemon });
  daemons.set(name, daemon);
  const line = await daemon.waitForLog(/^web: started listening on http:\/\/127\.0\.0\.1:\d+$/);
  bases.set(name, /http:\/\/\S+$/.exec(line.msg)![0]);
  return line.time;
}

/** The node that says it holds the lease (running, not stopped), if exactly one does. */
async function holder(): Promise<Name | null> {
  const holders: Name[] = [];
  for (const name of NAMES) {
    if (!daemons.get(name)?.running || stopped.has(name)) continue;
    try {
      const view = await getJson<ClusterBody>(bases.get(name)!, '/cluster');
      if (view.is_leader) holders.push(name);
    } catch {
      // not answering: not a holder we can see
    }
  }
  return holders.length === 1 ? holders[0]! : null;
}

const events: ChaosEvent[] = [];

async function chaosStep(): Promise<void> {
  const roll = random();
  if (etcd !== null && roll < 0.2) {
    const event: ChaosEvent = { kind: 'stop-etcd', node: null, atMs: Date.now(), endMs: 0 };
    events.push(event);
    etcd.members[0]!.pause();
    progress('SIGSTOP etcd');
    await pause(between(2_000, 6_000));
    etcd.members[0]!.resume();
    event.endMs = Date.now();
    progress('SIGCONT etcd');
    return;
  }
  const target = await holder();
  if (target === null) return; // mid-takeover: let it settle
  const daemon = daemons.get(target)!;
  if (roll < 0.6) {
    const event: ChaosEvent = { kind: 'kill-holder', node: target, atMs: Date.now(), endMs: 0 };
    events.push(event);
    await daemon.kill();
    progress(`SIGKILL ${target} (holder)`);
    await pause(between(2_000, 5_000));
    event.endMs = await start(target);
    progress(`restarted ${target}`);
  } else {
    const event: ChaosEvent = { kind: 'stop-holder', node: target, atMs: Date.now(), endMs: 0 };
    events.push(event);
    stopped.add(target);
    daemon.child.kill('SIGSTOP');
    progress(`SIGSTOP ${target} (holder)`);
    await pause(between(2_000, 8_000));
    daemon.child.kill('SIGCONT');
    stopped.delete(target);
    event.endMs = Date.now();
    progress(`SIGCONT ${target}`);
  }
}

try {
  for (const name of NAMES) await start(name);
  for (let tries = 0; tries < 100 && (await holder()) === null; tries++) await pause(100);
  progress(`fencing soak (${BACKEND}, ttl ${TTL}): counting ${FIRINGS} Leader firings`);
  const { firstSecond, lastSecond } = await chaosWindow(FIRINGS, 15, random, chaosStep);
  for (const daemon of daemons.values()) await daemon.stop('SIGTERM');

  // ---- the count ----
  const perSecond = nodesPerSecond(readWitness(witness), 'lead', firstSecond, lastSecond);
  const doubles: { second: number; nodes: string[] }[] = [];
  let skips = 0;
  for (let second = firstSecond; second <= lastSecond; second++) {
    const nodes = perSecond.get(second) ?? [];
    if (nodes.length === 0) skips += 1;
    if (nodes.length > 1) doubles.push({ second, nodes: nodes.sort() });
  }
  for (const double of doubles) {
    progress(
      `DOUBLE RUN at ${new Date(double.second * 1000).toISOString()} [${double.nodes.join(',')}]`,
    );
  }

  // ---- takeovers: fault → first acquisition by another node ----
  const acquisitions = started.flatMap(({ name, daemon }) =>
    daemon
      .logs()
      .filter((record) => /acquired scheduled-job leadership/.test(record.msg))
      .map((record) => ({ name, atMs: record.time })),
  );
  // A takeover belongs to its fault only if it happened before the next fault; a holder stopped
  // for less than its lease's remaining time wakes still holding it (no takeover: "kept").
  const takeovers: { kind: ChaosKind; node: Name | null; ms: number | null }[] = events.map(
    (event, index) => {
      const untilMs = events[index + 1]?.atMs ?? Infinity;
      const after = acquisitions
        .filter(
          (acquired) =>
            acquired.atMs > event.atMs && acquired.atMs < untilMs && acquired.name !== event.node,
        )
        .map((acquired) => acquired.atMs - event.atMs);
      return { kind: event.kind, node: event.node, ms: after.length ? Math.min(...after) : null };
    },
  );
  // Why a takeover was slow: the elector's failed rounds (a store call past its timeout — on etcd
  // half the round deadline, 500 ms at ttl 3 — a loaded host or a paused etcd), per message.
  const roundFailures: Record<string, number> = {};
  for (const { daemon } of started) {
    for (const record of daemon.logs()) {
      const failed = /^cluster: (.+?) failed: (.{0,60})/.exec(record.msg);
      if (failed === null) continue;
      const key = `${failed[1]}: ${failed[2]}`;
      roundFailures[key] = (roundFailures[key] ?? 0) + 1;
    }
  }
  const holderTakeovers = takeovers
    .filter((takeover) => takeover.kind !== 'stop-etcd' && takeover.ms !== null)
    .map((takeover) => takeover.ms!);
  const stat = (samples: number[], p: number): number | null =>
    samples.length === 0 ? null : Math.round(percentile(samples, p));
  process.stdout.write(
    `${JSON.stringify({
      backend: BACKEND,
      ttlSeconds: TTL,
      firings: FIRINGS,
      seed: SEED,
      faults: {
        killHolder: events.filter((event) => event.kind === 'kill-holder').length,
        stopHolder: events.filter((event) => event.kind === 'stop-holder').length,
        stopEtcd: events.filter((event) => event.kind === 'stop-etcd').length,
      },
      ranOnce: FIRINGS - skips - doubles.length,
      skips,
      doubleRuns: doubles.length,
      doubles,
      takeoverMs: {
        samples: holderTakeovers.length,
        p50: stat(holderTakeovers, 50),
        p99: stat(holderTakeovers, 99),
        max: stat(holderTakeovers, 100),
        kept: takeovers.filter((takeover) => takeover.kind !== 'stop-etcd' && takeover.ms === null)
          .length,
      },
      takeovers,
      roundFailures,
      loadAvg1m: (await import('node:os')).loadavg()[0],
    })}\n`,
  );
} finally {
  for (const name of stopped) daemons.get(name)?.child.kill('SIGCONT');
  for (const daemon of daemons.values()) await daemon.kill();
  await etcd?.stop();
  rmSync(dir, { recursive: true, force: true });
}
