// Worker (run with --expose-gc, one fresh process per sample): load a generated config of N jobs,
// build the scheduler's fire schedule (createScheduler + start), then RSS after GC, right away
// and once settled. A FakeClock
// frozen at the real current time means nothing ever fires, so FakeRunner is never called and
// the heap of next fires is all that runs.
import {
  collectGarbage,
  importFakes,
  importYacron2,
  intArg,
  reportSample,
  stringArg,
} from '../lib/worker-io.js';

const configPath = stringArg(0, 'configPath');
const expectedJobs = intArg(1, 'expectedJobs');
const warmBuilds = intArg(2, 'warmBuilds');

const { common, config: configModule, logging, scheduler: schedulerModule } = await importYacron2();
await collectGarbage();
const baselineRssBytes = process.memoryUsage().rss;

let started = performance.now();
const config = await configModule.loadConfig(configPath);
const loadMs = performance.now() - started;
if (config.jobs.length !== expectedJobs) {
  throw new Error(`expected ${expectedJobs} jobs, loadConfig returned ${config.jobs.length}`);
}

const clock = new common.FakeClock(Date.now());
const deps = {
  clock,
  logger: logging.silentLogger(),
  runner: new (await importFakes()).FakeRunner({ clock }),
};
started = performance.now();
const scheduler = schedulerModule.createScheduler(deps, config);
scheduler.start();
const buildMs = performance.now() - started;

await collectGarbage();
const immediate = process.memoryUsage();
// V8 keeps the heap pages the load grew into for a few seconds after GC (its memory reducer
// returns them once allocation goes quiet), so the steady-state figure is taken once RSS stops
// moving: at least SETTLE_MIN_MS, then two polls within 1 MB of each other, at most SETTLE_MAX_MS.
const SETTLE_MIN_MS = 5_000;
const SETTLE_MAX_MS = 12_000;
const settleStarted = performance.now();
let memory = immediate;
let previousRss = Number.NaN;
while (performance.now() - settleStarted < SETTLE_MAX_MS) {
  await new Promise<void>((resolve) => setTimeout(resolve, 1_000));
  await collectGarbage();
  memory = process.memoryUsage();
  const stable = Math.abs(memory.rss - previousRss) < 1024 * 1024;
  if (stable && performance.now() - settleStarted >= SETTLE_MIN_MS) break;
  previousRss = memory.rss;
}
const settleMs = performance.now() - settleStarted;
const firstJob = config.jobs[0];
const seeded = firstJob === undefined ? null : scheduler.getNextFireAtMs(firstJob.name);

// Warm rebuilds (same process, zone offsets cached, JIT warm) for comparison with the cold one.
const warmBuildMs: number[] = [];
for (let build = 0; build < warmBuilds; build++) {
  const warmStarted = performance.now();
  const rebuilt = schedulerModule.createScheduler(deps, config);
  rebuilt.start();
  warmBuildMs.push(performance.now() - warmStarted);
  await rebuilt.shutdown(0);
}
await scheduler.shutdown(0);

reportSample({
  jobs: config.jobs.length,
  loadMs,
  buildMs,
  warmBuildMs,
  rssBytes: memory.rss,
  settleMs,
  immediateRssBytes: immediate.rss,
  immediateHeapTotalBytes: immediate.heapTotal,
  heapUsedBytes: memory.heapUsed,
  heapTotalBytes: memory.heapTotal,
  externalBytes: memory.external,
  baselineRssBytes,
  peakRssBytes: process.resourceUsage().maxRSS * 1024,
  firesRecorded: deps.runner.runs.length,
  firstJobSeeded: seeded !== null,
});
