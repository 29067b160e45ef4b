// Soak (not CI, not a bench group) of crash reconciliation, see
// docs/durable-state.md "In-flight records and crash reconciliation". One real daemon on one
// filesystem store directory runs a job ticking every second with `onMissed: run-all` catch-up, an
// Allow job whose runs overlap each other, a failing job with durable retries, a slow
// `concurrencyPolicy: Forbid` job and an `@reboot` job; every job appends
// `start|end <job> <pid> <epoch ms>` to one witness file. The soak SIGKILLs the daemon process
// --kills times at seeded random moments and restarts it after a seeded random downtime. A crash is
// the daemon process alone: its jobs are orphaned and run on, as under an OOM kill (they lead their
// own process groups; a whole-group kill would be a machine crash). At the end it waits for the
// orphans to end, starts the daemon once more, gives the boot sequence time to reconcile, stops it
// gracefully, and matches every witnessed run to the ledger: a run has a finished row (any real
// outcome, its `started_at` at or before the witnessed start), or an `unknown` row naming its
// start, or nothing (unreconciled: the property, 0).
//
//   npm run build && node --import tsx bench/crash-soak.ts [--kills 30] [--seed 1]
//
// Prints one JSON summary on stdout; progress (and each unreconciled run) on stderr. About 7 s per
// kill.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DaemonProcess,
  isReconciledRow,
  readLines,
  readStoreStream,
  shellQuote,
  type StoreRecord,
} from '../test/e2e/harness.js';
import { numberFlag, pause, progress, seededRandom } from './lib/soak.js';

const KILLS = numberFlag('kills', 30);
const SEED = numberFlag('seed', 1);
const random = seededRandom(SEED);
/** A launch's start instant is read before the job's own clock read: at most this much earlier. */
const MATCH_WINDOW_MS = 900;
/**
 * A run witnessed to start this close to a kill (either side: its witness line is written after
 * the spawn) may have been spawned with its open record still queued when the daemon died.
 */
const NEAR_KILL_MS = 100;

const JOBS = ['tick', 'overlap', 'flaky', 'slow', 'boot'] as const;
type Job = (typeof JOBS)[number];

const dir = mkdtempSync(join(tmpdir(), 'yacron2-crash-soak-'));
const store = join(dir, 'store');
const witness = join(dir, 'witness.txt');
const config = join(dir, 'yacron2.yaml');

/** A job's command: witness lines around `body`, every output away from the daemon's pipes. */
const command = (job: Job, body: string): string => {
  const mark = (edge: string): string =>
    `echo "${edge} ${job} $$ $(date +%s%3N)" >> ${shellQuote(witness)}`;
  return `{ ${mark('start')}; ${body}; status=$?; ${mark('end')}; exit $status; } >/dev/null 2>&1`;
};

writeFileSync(
  config,
  `defaults:
  captureStdout: false
  captureStderr: false
jobs:
  - name: tick
    command: ${JSON.stringify(command('tick', 'sleep 0.2'))}
    schedule: "* * * * * * *"
    onMissed: run-all
  - name: overlap
    command: ${JSON.stringify(command('overlap', 'sleep 2.5'))}
    schedule: "*/2 * * * * * *"
  - name: flaky
    command: ${JSON.stringify(command('flaky', 'sleep 0.3; false'))}
    schedule: "*/5 * * * * * *"
    onFailure:
      retry:
        maximumRetries: 2
        initialDelay: 1
        maximumDelay: 2
        backoffMultiplier: 2
  - name: slow
    command: ${JSON.stringify(command('slow', 'sleep 4'))}
    schedule: "*/3 * * * * * *"
    concurrencyPolicy: Forbid
  - name: boot
    command: ${JSON.stringify(command('boot', 'sleep 1.5'))}
    schedule: "@reboot"
state:
  path: ${shellQuote(store)}
  maxRunsPerJob: 0
  jobApi:
    enabled: false
`,
);

interface WitnessedRun {
  readonly job: Job;
  readonly pid: number;
  readonly startMs: number;
  endMs: number | null;
}

function witnessedRuns(): WitnessedRun[] {
  const runs: WitnessedRun[] = [];
  const live = new Map<string, WitnessedRun>();
  for (const line of readLines(witness)) {
    const [edge, job, pid, ms] = line.split(' ') as [string, Job, string, string];
    if (edge === 'start') {
      const run: WitnessedRun = { job, pid: Number(pid), startMs: Number(ms), endMs: null };
      runs.push(run);
      live.set(`${job} ${pid}`, run);
    } else {
      const run = live.get(`${job} ${pid}`);
      if (run !== undefined) run.endMs = Number(ms);
      live.delete(`${job} ${pid}`);
    }
  }
  return runs;
}

async function startDaemon(): Promise<DaemonProcess> {
  const daemon = new DaemonProcess(['-c', config]);
  await daemon.waitForLog(/^State store ready at /, 30_000);
  return daemon;
}

/** The row's launch instant: `started_at`, or for a reconciled row the start it names. */
function rowStartMs(row: StoreRecord): number | null {
  const value = isReconciledRow(row) ? (row.interruptedAt ?? row.finished_at) : row.started_at;
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Match each witnessed run (oldest first) to the newest unmatched row of its job that started at
 * or before it, within MATCH_WINDOW_MS (runs of one job start at least a second apart, except a
 * retry beside a scheduled fire, which the one-to-one matching keeps apart).
 */
function matchRows(runs: readonly WitnessedRun[], rows: readonly StoreRecord[]) {
  const free = rows
    .map((row) => ({ row, startMs: rowStartMs(row), used: false }))
    .filter((entry) => entry.startMs !== null)
    .sort((a, b) => a.startMs! - b.startMs!);
  const matched = new Map<WitnessedRun, StoreRecord>();
  for (const run of [...runs].sort((a, b) => a.startMs - b.startMs)) {
    const entry = free.findLast(
      (candidate) =>
        !candidate.used &&
        candidate.startMs! <= run.startMs &&
        run.startMs - candidate.startMs! <= MATCH_WINDOW_MS,
    );
    if (entry === undefined) continue;
    entry.used = true;
    matched.set(run, entry.row);
  }
  return { matched, unmatchedRows: free.filter((entry) => !entry.used).map((entry) => entry.row) };
}

const kills: number[] = [];
const everyDaemon: DaemonProcess[] = [];
const began = performance.now();
let daemon: DaemonProcess | undefined;
try {
  daemon = await startDaemon();
  everyDaemon.push(daemon);
  for (;;) {
    await pause(1_500 + random() * 3_500);
    kills.push(Date.now());
    await daemon.stop('SIGKILL');
    progress(`kill ${kills.length}/${KILLS} at ${new Date(kills.at(-1)!).toISOString()}`);
    if (kills.length >= KILLS) break;
    await pause(300 + random() * 2_200);
    daemon = await startDaemon();
    everyDaemon.push(daemon);
  }
  // The orphans end on their own (the slow job within ~5 s) before the final start.
  const orphansDeadline = Date.now() + 15_000;
  while (witnessedRuns().some((run) => run.endMs === null) && Date.now() < orphansDeadline) {
    await pause(200);
  }
  daemon = await startDaemon();
  everyDaemon.push(daemon);
  // The boot sequence (reconciliation first) runs right after the store opened.
  await pause(5_000);
  await daemon.stop('SIGTERM');

  const runs = witnessedRuns();
  const byJob = new Map<Job, { runs: WitnessedRun[]; rows: StoreRecord[] }>();
  for (const job of JOBS) {
    byJob.set(job, {
      runs: runs.filter((run) => run.job === job),
      rows: readStoreStream(store, `runs/${job}`),
    });
  }
  const nearKill = (run: WitnessedRun): boolean =>
    kills.some((killMs) => Math.abs(killMs - run.startMs) < NEAR_KILL_MS);
  const liveAtKill = (run: WitnessedRun): boolean =>
    kills.some((killMs) => run.startMs <= killMs && (run.endMs === null || run.endMs >= killMs));
  let interrupted = 0;
  let reconciled = 0;
  let unreconciled = 0;
  let unreconciledNearKill = 0;
  let unreconciledLiveAtKill = 0;
  let spuriousUnknownRows = 0;
  let unmatchedFinishedRows = 0;
  const perJob: Record<string, { started: number; interrupted: number; unreconciled: number }> = {};
  for (const [job, { runs: jobRuns, rows }] of byJob) {
    const { matched, unmatchedRows } = matchRows(jobRuns, rows);
    const stats = { started: jobRuns.length, interrupted: 0, unreconciled: 0 };
    for (const run of jobRuns) {
      const row = matched.get(run);
      if (row !== undefined && !isReconciledRow(row)) continue;
      interrupted += 1;
      stats.interrupted += 1;
      if (row !== undefined) {
        reconciled += 1;
        continue;
      }
      const near = nearKill(run);
      // A run spawned in the last moment before a kill may have died with its open record still
      // queued: reported apart, still counted as unreconciled.
      unreconciled += 1;
      stats.unreconciled += 1;
      if (near) unreconciledNearKill += 1;
      if (liveAtKill(run)) unreconciledLiveAtKill += 1;
      const killMs = kills.reduce((best, ms) =>
        Math.abs(ms - run.startMs) < Math.abs(best - run.startMs) ? ms : best,
      );
      progress(
        `unreconciled: ${job} pid ${run.pid} started ${new Date(run.startMs).toISOString()}` +
          ` ended ${run.endMs === null ? 'never' : new Date(run.endMs).toISOString()}` +
          `, the nearest kill ${killMs - run.startMs} ms after its witnessed start` +
          `${near ? ' (near a kill)' : ''}`,
      );
    }
    for (const row of unmatchedRows) {
      if (isReconciledRow(row)) spuriousUnknownRows += 1;
      else unmatchedFinishedRows += 1;
    }
    perJob[job] = stats;
  }
  const summary = {
    seed: SEED,
    kills: kills.length,
    runsStarted: runs.length,
    interrupted,
    reconciled,
    unreconciled,
    unreconciledNearKill,
    unreconciledOther: unreconciled - unreconciledNearKill,
    unreconciledLiveAtKill,
    spuriousUnknownRows,
    unmatchedFinishedRows,
    perJob,
    durationS: Math.round((performance.now() - began) / 1000),
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
} finally {
  for (const each of everyDaemon) if (each.running) await each.kill();
  if (process.env.CRASH_SOAK_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
  else progress(`kept ${dir}`);
}
