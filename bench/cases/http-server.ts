// Server process of the http bench group (spawned by cases/http-load.ts, never by run.ts): the
// real scheduler on systemClock with a FakeRunner, the real metrics families and the real web
// controller on 127.0.0.1:0, over a generated config of N jobs plus `printer-<i>` jobs that
// capture stdout. Every job can get finished runs first, so job views and metrics are full.
// Prints `READY <url>` on stdout, then obeys stdin lines:
//   emit <linesPerSecond> <seconds>  printers emit `seq=<n> t=<epoch ms>` lines; replies EMITTED
// <n>
//   stats                            replies STATS {"rssBytes":..,"heapUsedBytes":..}
//   quit                             closes the server and exits
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type * as HttpModule from '../../src/http/index.js';
import type * as MetricsModule from '../../src/metrics/index.js';
import type { ResolvedWeb } from '../../src/config/index.js';
import { importFakes, importYacron2, intArg, repoRoot, stringArg } from '../lib/worker-io.js';

const configPath = stringArg(0, 'configPath');
const printers = intArg(1, 'printers');
/**
 * Finished runs per job before the server opens (docs/http-api.md "GET /jobs and GET /jobs/{name}"
 * shows the last 20).
 */
const historyRuns = intArg(2, 'historyRuns');

async function importDist<T>(relative: string): Promise<T> {
  return (await import(pathToFileURL(path.join(repoRoot(), 'dist', relative)).href)) as T;
}

const { common, config: configModule, logging, scheduler: schedulerModule } = await importYacron2();
const http = await importDist<typeof HttpModule>('http/index.js');
const metricsModule = await importDist<typeof MetricsModule>('metrics/index.js');

const config = await configModule.loadConfig(configPath);
const clock = common.systemClock;
const logger = logging.silentLogger();
const runner = new (await importFakes()).FakeRunner({ clock });
runner.setDefault({ exitCode: 0, durationMs: 0 });
const scheduler = schedulerModule.createScheduler({ clock, logger, runner }, config);
const metrics = metricsModule.createMetrics({ clock, config, logger });
metrics.subscribe(scheduler);
metrics.onConfigReloaded(true, config);
scheduler.start();

// History: every job ran historyRuns times, one run in five failing.
const workers = config.jobs.filter((job) => !job.name.startsWith('printer-'));
for (let round = 0; round < historyRuns; round++) {
  for (const job of workers) runner.script(job.name, { exitCode: round % 5 === 4 ? 1 : 0 });
  await Promise.all(workers.map((job) => scheduler.startJob(job.name)));
}
await new Promise((resolve) => setTimeout(resolve, 200));

// Printers run until the bench ends; their output is emitted on command.
runner.setDefault('manual');
for (let index = 0; index < printers; index++) await scheduler.startJob(`printer-${index}`);
runner.setDefault({ exitCode: 0, durationMs: 0 });

const web: ResolvedWeb = {
  listen: [{ kind: 'tcp', url: 'http://127.0.0.1:0', host: '127.0.0.1', port: 0 }],
  headers: {},
  authToken: null,
  authTokenEnvVar: null,
  error: null,
  socketMode: null,
  allowedHosts: [],
  ui: true,
  metrics: {
    enabled: true,
    public: false,
    durationBuckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
  },
  nodeHistory: { enabled: true, intervalMs: 5000, points: 720 },
  digest: 'bench',
};
const server = new http.WebServer({
  view: scheduler,
  control: scheduler,
  clock,
  logger,
  jobSet: () => ({ jobSetId: config.jobSetId, jobs: config.jobs.length }),
  renderMetrics: (accept) => metrics.render(accept),
});
await server.apply(web);
const url = server.addresses[0];
if (url === undefined) throw new Error('the web server did not bind');
process.stdout.write(`READY ${url}\n`);

let seq = 0;
function emit(linesPerSecond: number, seconds: number): Promise<number> {
  const tickMs = 10;
  const perTick = (linesPerSecond * tickMs) / 1000;
  const runs = Array.from({ length: printers }, (_, index) => runner.last(`printer-${index}`));
  let owed = 0;
  let emitted = 0;
  const started = performance.now();
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - started;
      if (elapsed >= seconds * 1000) {
        clearInterval(timer);
        resolve(emitted);
        return;
      }
      owed += perTick;
      for (; owed >= 1; owed--) {
        const run = runs[seq % runs.length];
        run?.emitOutput('stdout', `seq=${seq} t=${performance.timeOrigin + performance.now()}\n`);
        seq++;
        emitted++;
      }
    }, tickMs);
  });
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, ...args] = line.trim().split(/\s+/);
  if (command === 'emit') {
    const emitted = await emit(Number(args[0]), Number(args[1]));
    process.stdout.write(`EMITTED ${emitted}\n`);
  } else if (command === 'stats') {
    const memory = process.memoryUsage();
    process.stdout.write(
      `STATS ${JSON.stringify({ rssBytes: memory.rss, heapUsedBytes: memory.heapUsed })}\n`,
    );
  } else if (command === 'quit') {
    break;
  }
}
await server.close();
for (const run of runner.running()) run.succeed();
await scheduler.shutdown(0);
process.exit(0);
