// Soak (not CI, not a bench group): cluster concurrency slots (docs/durable-state.md "Cluster
// concurrency slots"). Three real daemons share one filesystem store directory and run a
// `concurrencyScope: cluster`, Forbid job every second that takes ~1.5 s and appends
// `start|end <node> <pid>` lines to one witness file, for --firings seconds. With --kills N the
// soak SIGKILLs the daemon whose run is live N times at random moments (the job itself finishes:
// a daemon crash does not kill its children) and restarts it a few seconds later, so the slot
// lapses and is taken over. It then counts, from the witness, runs started and finished, the
// most runs ever live at once and every start that found another run live (an overlap), and from
// the daemons' logs and the store the cross-node skips, takeovers and reconciled ledger rows.
//
//   npm run build && node --import tsx bench/slots-soak.ts [--firings 200] [--kills 3] [--seed 1]
//
// Prints one JSON summary on stdout; progress on stderr.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DaemonProcess,
  isReconciledRow,
  readLines,
  readStoreStream,
  shellQuote,
} from '../test/e2e/harness.js';
import { numberFlag, pause, progress, seededRandom } from './lib/soak.js';

const NODES = ['node-a', 'node-b', 'node-c'] as const;
type Node = (typeof NODES)[number];

const FIRINGS = numberFlag('firings', 200);
const KILLS = numberFlag('kills', 3);
/** Replayable with --seed. */
const random = seededRandom(numberFlag('seed', 1));

const dir = mkdtempSync(join(tmpdir(), 'yacron2-slots-soak-'));
const store = join(dir, 'store');
const witness = join(dir, 'witness.txt');
const config = join(dir, 'yacron2.yaml');
writeFileSync(
  config,
  `jobs:
  - name: report
    command: |
      echo "start $NODE $$" >> ${shellQuote(witness)}
      sleep 1.5
      echo "end $NODE $$" >> ${shellQuote(witness)}
    schedule: "* * * * * * *"
    concurrencyPolicy: Forbid
    concurrencyScope: cluster
    captureStdout: false
    captureStderr: false
state:
  path: ${shellQuote(store)}
  slotTtlSeconds: 5
  jobApi:
    enabled: false
`,
);

const daemons = new Map<Node, DaemonProcess>();
/** Every daemon ever started (restarts included), for the log counts. */
const everyDaemon: DaemonProcess[] = [];
async function start(node: Node): Promise<void> {
  const daemon = new DaemonProcess(['-c', config], { env: { ...process.env, NODE: node } });
  daemons.set(node, daemon);
  everyDaemon.push(daemon);
  await daemon.waitForLog(/^State store ready at /, 30_000);
}

/** The node whose run is live per the witness (its last start has no end yet), if any. */
function liveNode(): Node | undefined {
  const live = new Map<string, Node>();
  for (const line of readLines(witness)) {
    const [edge, node, pid] = line.split(' ') as [string, Node, string];
    if (edge === 'start') live.set(pid, node);
    else live.delete(pid);
  }
  return [...live.values()].at(-1);
}

try {
  await Promise.all(NODES.map((node) => start(node)));
  const startedAt = performance.now();
  const killAt = Array.from(
    { length: KILLS },
    () => 10_000 + random() * (FIRINGS - 30) * 1000,
  ).sort((a, b) => a - b);
  let kills = 0;
  while (performance.now() - startedAt < FIRINGS * 1000) {
    const elapsed = performance.now() - startedAt;
    if (kills < killAt.length && elapsed >= killAt[kills]!) {
      const victim = liveNode();
      if (victim !== undefined && daemons.get(victim)?.running) {
        kills += 1;
        progress(`t=${(elapsed / 1000).toFixed(1)}s: SIGKILL ${victim} (holder)`);
        await daemons.get(victim)!.stop('SIGKILL');
        await pause(8000); // longer than the TTL: the takeover, not the restart, reconciles
        await start(victim);
        progress(`t=${((performance.now() - startedAt) / 1000).toFixed(1)}s: restarted ${victim}`);
        continue;
      }
    }
    await pause(200);
    if (Math.floor(elapsed / 20_000) !== Math.floor((elapsed + 200) / 20_000)) {
      progress(`t=${(elapsed / 1000).toFixed(0)}s: ${readLines(witness).length} witness lines`);
    }
  }
  for (const daemon of daemons.values()) await daemon.stop();

  const live = new Set<string>();
  let maxLive = 0;
  let overlaps = 0;
  const startsByNode: Record<string, number> = {};
  let starts = 0;
  let ends = 0;
  for (const line of readLines(witness)) {
    const [edge, node, pid] = line.split(' ') as [string, string, string];
    if (edge === 'start') {
      if (live.size > 0) overlaps += 1;
      live.add(pid);
      starts += 1;
      startsByNode[node] = (startsByNode[node] ?? 0) + 1;
    } else {
      live.delete(pid);
      ends += 1;
    }
    maxLive = Math.max(maxLive, live.size);
  }
  const count = (pattern: RegExp): number =>
    everyDaemon.reduce((sum, d) => sum + d.lines.filter((line) => pattern.test(line)).length, 0);
  const summary = {
    firings: FIRINGS,
    kills,
    runsStarted: starts,
    runsFinished: ends,
    startsByNode,
    maxConcurrent: maxLive,
    overlaps,
    crossNodeSkips: count(/skipped: its cluster concurrency slot is held by/),
    localForbidSkips: count(/still running and concurrencyPolicy is Forbid/),
    degraded: count(/running with node-local enforcement only/),
    takeovers: count(/took over its cluster concurrency slot from/),
    reconciledRows: readStoreStream(store, 'runs/report').filter(isReconciledRow).length,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
} finally {
  for (const daemon of daemons.values()) if (daemon.running) await daemon.kill();
  rmSync(dir, { recursive: true, force: true });
}
