// Worker: fire lateness of plain scheduled jobs with the durable collaborator attached (argv:
// variant, runner, workDir, jobs, seconds, repetition). The real scheduler on systemClock: a
// `lone` job and `jobs` more, all `command: "true"` every second, launched by the real runner
// (`real`: 200 forks a second, which saturates a loaded 2-core machine) or by a FakeRunner whose
// runs end 20 ms after they start (`fake`: no forks, so what is left is the scheduler and the
// store's background work on the event loop). Variants:
//   stateless - no `state` section: no DurableState at all (the reference);
//   healthy   - a DurableState over the FsStateStore the daemon builds (metered, unthrottled), so
//               every run writes its in-flight and ledger records in the background;
//   hung      - the same store opened, then every operation hung (FaultyStateStore 'hang'): the
//               boot sequence's reads time out after 10 s and every write waits forever.
// Each scheduled decision is timestamped (sub-ms) by a pass-through cluster gate, as in the burst
// worker. Reports raw observations; groups/durable.ts aggregates them.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as PromClient from 'prom-client';
import type * as DurableModule from '../../src/durable/index.js';
import type * as RunnerModule from '../../src/runner/index.js';
import type * as StateModule from '../../src/state/index.js';
import {
  importDaemon,
  importFakes,
  importYacron2,
  intArg,
  repoRoot,
  reportSample,
  stringArg,
  wallNowMs,
} from '../lib/worker-io.js';

const variant = stringArg(0, 'variant');
const runnerKind = stringArg(1, 'runner');
const workDir = stringArg(2, 'workDir');
const jobCount = intArg(3, 'jobs');
const seconds = intArg(4, 'seconds');
const repetition = intArg(5, 'repetition');
if (!['stateless', 'healthy', 'hung'].includes(variant)) {
  throw new Error(`unknown variant ${variant}`);
}
if (!['real', 'fake'].includes(runnerKind)) throw new Error(`unknown runner ${runnerKind}`);
/** How long a FakeRunner run lasts (real time). */
const FAKE_RUN_MS = 20;
/** Fires before this many seconds have passed are warm-up (JIT, first spawns, store open). */
const WARM_UP_SECONDS = 2;

const dist = (relative: string): string =>
  pathToFileURL(path.join(repoRoot(), 'dist', relative)).href;
const {
  common,
  config: configModule,
  logging,
  runner: runnerModule,
  scheduler: schedulerModule,
} = await importYacron2();
const fakes = await importFakes();
const durableModule = (await import(dist('durable/index.js'))) as typeof DurableModule;
const stateModule = (await import(dist('state/index.js'))) as typeof StateModule;
const promClientPath = createRequire(path.join(repoRoot(), 'package.json')).resolve('prom-client');
const { Registry } = (await import(pathToFileURL(promClientPath).href)) as typeof PromClient;

// ---- the config ---------------------------------------------------------------------------------

const runDir = path.join(workDir, `durable-${variant}-${runnerKind}-${repetition}`);
const storeDir = path.join(runDir, 'store');
mkdirSync(runDir, { recursive: true });
const configPath = path.join(runDir, 'jobs.yaml');
const lines: string[] = [];
if (variant !== 'stateless') {
  lines.push('state:', `  path: ${JSON.stringify(storeDir)}`, '  topology: single-node');
}
lines.push('jobs:', '  - name: lone', '    command: "true"', '    schedule: "* * * * * * *"');
for (let index = 0; index < jobCount; index++) {
  lines.push(`  - name: job-${index}`, '    command: "true"', '    schedule: "* * * * * * *"');
}
writeFileSync(configPath, lines.join('\n') + '\n');
const config = await configModule.loadConfig(configPath);

// ---- the daemon's pieces --------------------------------------------------------------------------

const clock = common.systemClock;
const logger = logging.silentLogger();
function buildRunner(): RunnerModule.Runner {
  if (runnerKind === 'real') {
    return runnerModule.createRunner({
      clock,
      logger,
      stdout: process.stdout,
      stderr: process.stderr,
      baseEnv: process.env,
    });
  }
  const fake = new fakes.FakeRunner({ clock });
  fake.setDefault({ exitCode: 0, durationMs: FAKE_RUN_MS });
  return fake;
}
const runner = buildRunner();
const gateObservedAtMs: number[] = [];
const gateSlotMs: number[] = [];
// The scheduler's cluster seams as the daemon builds them without a cluster section (election
// off): every measured decision includes the real gate's cost.
const daemonCluster = (await importDaemon()).createLazyDaemonCluster({
  clock: clock,
  logger,
  config: () => config,
  scheduler: () => scheduler,
});
const scheduler = schedulerModule.createScheduler(
  {
    clock,
    logger,
    runner,
    gate: (request) => {
      if (request.scheduledAtMs !== null) {
        gateObservedAtMs.push(wallNowMs());
        gateSlotMs.push(request.scheduledAtMs);
      }
      return daemonCluster.seams.gate(request);
    },
    cluster: daemonCluster.seams.cluster,
    // The durable port: serves the collaborator built below (before the start-up pass).
    durable: { current: () => durable ?? null },
  },
  config,
);

const registry = new Registry();
let durable: DurableModule.DurableState | undefined;
let bundle: StateModule.StateStoreBundle | undefined;
let faulty: InstanceType<typeof fakes.FaultyStateStore> | undefined;
if (config.state !== null) {
  bundle = stateModule.createStateStore(
    { path: config.state.path, topology: 'single-node' },
    { clock, logger, registry },
  );
  // Opened healthy, so the hung variant is a mount that stopped answering after start-up.
  await bundle.store.open();
  let store: StateModule.StateStore = bundle.store;
  if (variant === 'hung') {
    faulty = new fakes.FaultyStateStore(bundle.store);
    faulty.setFault('hang');
    store = faulty;
  }
  durable = durableModule.createDurableState(
    {
      clock,
      logger,
      host: 'bench-host',
      env: process.env,
      scheduler,
      process: durableModule.createDurableProcessState('0123456789ab'),
      schedulerStartedAtMs: clock.now(),
    },
    { store, writes: bundle.writes, opened: Promise.resolve(true) },
    config.state,
    config,
  );
}

interface Start {
  readonly job: string;
  readonly scheduledAtMs: number;
  readonly decisionLatenessMs: number | null;
  readonly startedAtMs: number;
}
const starts: Start[] = [];
scheduler.events.on('run:started', (event) => {
  if (event.scheduledAtMs === null) return;
  starts.push({
    job: event.job.name,
    scheduledAtMs: event.scheduledAtMs,
    decisionLatenessMs: event.decisionLatenessMs,
    startedAtMs: event.startedAtMs,
  });
});
const outcomes: Record<string, number> = {};
scheduler.events.on('run:finished', (event) => {
  outcomes[event.outcome.kind] = (outcomes[event.outcome.kind] ?? 0) + 1;
});

// ---- run ------------------------------------------------------------------------------------------

const startedAtMs = Date.now();
scheduler.start();
durable?.start();
// Measure the slots strictly inside (warm-up, end]: each of them fired with the store in the
// variant's state for the whole second before.
const fromMs = Math.ceil(startedAtMs / 1000) * 1000 + WARM_UP_SECONDS * 1000;
const untilMs = fromMs + seconds * 1000;
await new Promise<void>((resolve) => setTimeout(resolve, untilMs - Date.now() + 600));
const pendingWrites = bundle?.writes.pending ?? 0;
const heldCalls = faulty?.held ?? 0;
const rssMB = Math.round((process.memoryUsage().rss / 1024 / 1024) * 10) / 10;
await scheduler.shutdown(5_000);
const closeStarted = performance.now();
await durable?.close();
const durableCloseMs = performance.now() - closeStarted;
faulty?.release();
faulty?.setFault('none');
if (bundle !== undefined) {
  await bundle.writes.close();
  await bundle.store.close();
}
rmSync(runDir, { recursive: true, force: true });

const inWindow = (slotMs: number): boolean => slotMs > fromMs && slotMs <= untilMs;
const dropped = registry.getSingleMetric('yacron2_state_dropped_writes_total');
const droppedValues = dropped === undefined ? [] : (await dropped.get()).values;
reportSample({
  variant,
  runner: runnerKind,
  repetition,
  jobs: jobCount + 1,
  seconds,
  gateDecisionLatenessMs: gateSlotMs
    .map((slotMs, index) => ({ slotMs, at: gateObservedAtMs[index] as number }))
    .filter(({ slotMs }) => inWindow(slotMs))
    .map(({ slotMs, at }) => at - slotMs),
  decisionLatenessMs: starts
    .filter((start) => inWindow(start.scheduledAtMs))
    .map((start) => start.decisionLatenessMs),
  startLatenessMs: starts
    .filter((start) => inWindow(start.scheduledAtMs))
    .map((start) => start.startedAtMs - start.scheduledAtMs),
  loneStartLatenessMs: starts
    .filter((start) => start.job === 'lone' && inWindow(start.scheduledAtMs))
    .map((start) => start.startedAtMs - start.scheduledAtMs),
  slots: seconds,
  outcomes,
  pendingWrites,
  heldCalls,
  droppedWrites: droppedValues.reduce((sum, value) => sum + value.value, 0),
  durableCloseMs,
  rssMB,
});
