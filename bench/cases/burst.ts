// Worker: one launch burst with the real scheduler, systemClock and the real runner, beside
// Node's raw spawn ceiling measured in this same process just before.
//  1. Raw ceiling: spawn N `true` children exactly as the runner does (same argv, env, stdio,
//     detached) in one synchronous loop; then the same in ~8 ms slices with a setImmediate yield
//     between slices (the scheduler's launch pattern), for diagnosis.
//  2. Burst: a config of N jobs that all fire in one upcoming second S, plus a lone job firing
//     every second; run the scheduler until every burst run finished.
//  3. The one-loop raw ceiling again, with the process at its post-burst size.
// It reports raw observations; run.ts turns them into metric lines.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { writeBurstConfig } from '../lib/config-file.js';
import {
  importDaemon,
  importYacron2,
  intArg,
  reportSample,
  stringArg,
  wallNowMs,
} from '../lib/worker-io.js';

const count = intArg(0, 'count');
const workDir = stringArg(1, 'workDir');
const repetition = intArg(2, 'repetition');
/** The burst second is at least this far after the config is written (load + start fit). */
const LEAD_MS = 2_500;
/** The scheduler's default launch slice budget, ms (scheduler/launch-queue.ts). */
const SLICE_BUDGET_MS = 8;

const {
  common,
  config: configModule,
  logging,
  runner: runnerModule,
  scheduler: schedulerModule,
} = await importYacron2();

// The argv and stdio the runner uses for `command: "true"` with the default capture settings
// (stdout inherited, stderr piped); checked against the loaded burst job below.
const RAW_ARGV = runnerModule.buildCommandArgv(
  { kind: 'shell', script: 'true' },
  runnerModule.DEFAULT_SHELL,
);

interface RawResult {
  readonly spawnMs: number;
  readonly failures: number;
}

/**
 * Spawn `total` children; `sliceBudgetMs` = ms of spawning between setImmediate yields
 * (Infinity: one loop).
 */
async function rawSpawnBurst(total: number, sliceBudgetMs: number): Promise<RawResult> {
  const [file, ...args] = RAW_ARGV;
  let open = total;
  let failures = 0;
  const closed = common.createDeferred();
  const onClose = (code: number | null): void => {
    if (code !== 0) failures += 1;
    open -= 1;
    if (open === 0) closed.resolve();
  };
  const started = performance.now();
  let sliceStarted = started;
  for (let spawned = 0; spawned < total; spawned++) {
    if (spawned > 0 && performance.now() - sliceStarted >= sliceBudgetMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStarted = performance.now();
    }
    const child = spawn(file!, args, {
      env: process.env,
      stdio: ['inherit', 'inherit', 'pipe'],
      detached: true,
    });
    child.stderr?.resume();
    child.on('error', () => undefined);
    child.on('close', onClose);
  }
  const spawnMs = performance.now() - started;
  await closed.promise;
  return { spawnMs, failures };
}

const rssMB = (): number => Math.round((process.memoryUsage().rss / 1024 / 1024) * 10) / 10;
const rssBeforeRawMB = rssMB();
const rawOneLoop = await rawSpawnBurst(count, Number.POSITIVE_INFINITY);
const rawSliced = await rawSpawnBurst(count, SLICE_BUDGET_MS);

// ---- the scheduler burst ------------------------------------------------------------------------

const configPath = path.join(workDir, `burst-${repetition}.yaml`);
const burstAtMs = Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000;
writeBurstConfig(configPath, count, burstAtMs);
const config = await configModule.loadConfig(configPath);
const burstJob = config.jobs.find((job) => job.name === 'burst-0');
if (burstJob === undefined) throw new Error('the burst config has no burst-0 job');
const sameArgv =
  JSON.stringify(runnerModule.buildCommandArgv(burstJob.command, burstJob.shell)) ===
    JSON.stringify(RAW_ARGV) &&
  !burstJob.captureStdout &&
  burstJob.captureStderr;
const marginMs = burstAtMs - Date.now();
if (marginMs < 300) {
  throw new Error(`loading the burst config left only ${marginMs} ms before the burst second`);
}

const logger = logging.silentLogger();
const runner = runnerModule.createRunner({
  clock: common.systemClock,
  logger,
  stdout: process.stdout,
  stderr: process.stderr,
  baseEnv: process.env,
});
// The cluster gate seam is consulted synchronously inside each scheduled launch decision, so a
// pass-through gate timestamps every decision itself, sub-ms (the run:started payload carries the
// decision's own clock read, whole ms).
// Two flat arrays, not a Map: the gate runs inside the timed pass and should cost next to nothing.
const gateJobs: string[] = [];
const gateObservedAtMs: number[] = [];
// The scheduler's cluster seams as the daemon builds them without a cluster section (election
// off): every measured decision includes the real gate's cost.
const daemonCluster = (await importDaemon()).createLazyDaemonCluster({
  clock: common.systemClock,
  logger,
  config: () => config,
  scheduler: () => scheduler,
});
const scheduler = schedulerModule.createScheduler(
  {
    clock: common.systemClock,
    logger,
    runner,
    gate: (request) => {
      if (request.scheduledAtMs === burstAtMs) {
        gateObservedAtMs.push(wallNowMs());
        gateJobs.push(request.job.name);
      }
      return daemonCluster.seams.gate(request);
    },
    cluster: daemonCluster.seams.cluster,
  },
  config,
);

interface StartObservation {
  readonly job: string;
  readonly scheduledAtMs: number | null;
  readonly decisionLatenessMs: number | null;
  readonly launchDelayMs: number;
  readonly startedAtMs: number;
  /** High-resolution wall time when run:started was delivered (just after the fork). */
  readonly observedAtMs: number;
  readonly pid: number | null;
}

const starts: StartObservation[] = [];
const wakes: { nowMs: number; dueJobs: number; launches: number; observedAtMs: number }[] = [];
const outcomes: Record<string, number> = {};
let skipped = 0;
let burstFinished = 0;
const finished = common.createDeferred();

scheduler.events.on('run:started', (event) =>
  starts.push({
    job: event.job.name,
    scheduledAtMs: event.scheduledAtMs,
    decisionLatenessMs: event.decisionLatenessMs,
    launchDelayMs: event.launchDelayMs,
    startedAtMs: event.startedAtMs,
    observedAtMs: wallNowMs(),
    pid: event.pid,
  }),
);
scheduler.events.on('loop:woke', (event) =>
  wakes.push({
    nowMs: event.nowMs,
    dueJobs: event.dueJobs,
    launches: event.launches,
    observedAtMs: wallNowMs(),
  }),
);
scheduler.events.on('fire:skipped', () => (skipped += 1));
scheduler.events.on('run:finished', (event) => {
  if (event.job.name === 'lone') return;
  outcomes[event.outcome.kind] = (outcomes[event.outcome.kind] ?? 0) + 1;
  burstFinished += 1;
  if (burstFinished === count) finished.resolve();
});

const rssAtBurstMB = rssMB();
scheduler.start();
const deadline = new Promise<'timeout'>((resolve) =>
  setTimeout(() => resolve('timeout'), burstAtMs - Date.now() + 60_000).unref(),
);
const ended = await Promise.race([finished.promise.then(() => 'finished' as const), deadline]);
// One more second so the lone job's fires decided during the burst have started too.
await new Promise<void>((resolve) => setTimeout(resolve, 1_200));
await scheduler.shutdown(10_000);
// The ceiling again, now that the process is as big as it was during the burst: fork() time grows
// with the parent's memory, so this is the like-for-like reference for the scheduler's rate.
const rawAfter = await rawSpawnBurst(count, Number.POSITIVE_INFINITY);
const rssAfterMB = rssMB();

const burstStarts = starts.filter((start) => start.job !== 'lone');
const burstWake = wakes.find((wake) => wake.nowMs >= burstAtMs && wake.dueJobs >= count);
reportSample({
  repetition,
  count,
  ended,
  sameArgv,
  marginMs,
  burstAtMs,
  raw: { oneLoop: rawOneLoop, sliced: rawSliced, after: rawAfter, sliceBudgetMs: SLICE_BUDGET_MS },
  rssMB: { beforeRaw: rssBeforeRawMB, atBurst: rssAtBurstMB, after: rssAfterMB },
  burstWake: burstWake ?? null,
  gateDecisionLatenessMs: gateObservedAtMs
    .filter((_, index) => gateJobs[index] !== 'lone')
    .map((observedAtMs) => observedAtMs - burstAtMs),
  burstStarts: burstStarts.map((start) => ({
    decisionLatenessMs: start.decisionLatenessMs,
    launchDelayMs: start.launchDelayMs,
    startedAtMs: start.startedAtMs,
    observedAtMs: start.observedAtMs,
    pid: start.pid,
  })),
  loneStarts: starts
    .filter((start) => start.job === 'lone')
    .map((start) => ({
      scheduledAtMs: start.scheduledAtMs,
      decisionLatenessMs: start.decisionLatenessMs,
      launchDelayMs: start.launchDelayMs,
      startedAtMs: start.startedAtMs,
    })),
  outcomes,
  skipped,
});
