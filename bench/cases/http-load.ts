// Worker of the http bench group: writes a config of N jobs (+ printer jobs), starts
// cases/http-server.js as a separate process (so the server has a core of its own, as a daemon
// would), then loads it from this process: autocannon on GET /jobs and GET /metrics (throughput
// and latency over several windows), single-connection /metrics scrapes, and SSE fan-out to M
// clients of GET /events while the printers emit lines. Reports raw observations.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { mixedJobTiming } from '../lib/config-file.js';
import { intArg, repoRoot, reportSample, stringArg } from '../lib/worker-io.js';

const jobCount = intArg(0, 'jobs');
const workDir = stringArg(1, 'workDir');
const printers = intArg(2, 'printers');
const linesPerSecond = intArg(3, 'linesPerSecond');
const sseClients = intArg(4, 'sseClients');
const windows = intArg(5, 'windows');
const windowSeconds = intArg(6, 'windowSeconds');
const historyRuns = intArg(7, 'historyRuns');
/** Which measurements: any of jobs, metrics, sse (comma-separated). */
const parts = new Set(stringArg(8, 'parts').split(','));
const CONNECTIONS = 10;

interface AutocannonResult {
  readonly requests: { readonly average: number; readonly total: number };
  readonly latency: {
    readonly p50: number;
    readonly p99: number;
    readonly max: number;
    readonly average: number;
  };
  readonly throughput: { readonly total: number };
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(path.join(repoRoot(), 'package.json'))('autocannon') as Autocannon;

// ---- the server process ---------------------------------------------------------------------

const configPath = path.join(workDir, `http-${jobCount}.yaml`);
const lines = [
  `# ${jobCount} generated jobs + ${printers} printers (bench/cases/http-load.ts)`,
  'jobs:',
];
for (let index = 0; index < jobCount; index++) {
  const { schedule, timezone } = mixedJobTiming(index);
  lines.push(
    `  - name: job-${index}`,
    `    command: echo job ${index}`,
    `    schedule: "${schedule}"`,
  );
  if (timezone !== null) lines.push(`    timezone: ${timezone}`);
}
for (let index = 0; index < printers; index++) {
  lines.push(
    `  - name: printer-${index}`,
    '    command: cat /dev/urandom',
    '    schedule: "0 0 1 1 *"',
    '    captureStdout: true',
  );
}
writeFileSync(configPath, `${lines.join('\n')}\n`);

const server = spawn(
  process.execPath,
  [
    path.join(import.meta.dirname, 'http-server.js'),
    configPath,
    String(printers),
    String(historyRuns),
  ],
  { stdio: ['pipe', 'pipe', 'inherit'], env: process.env },
);
const replies: string[] = [];
const waiting: ((line: string) => void)[] = [];
createInterface({ input: server.stdout }).on('line', (line) => {
  const waiter = waiting.shift();
  if (waiter) waiter(line);
  else replies.push(line);
});
function nextReply(): Promise<string> {
  const ready = replies.shift();
  if (ready !== undefined) return Promise.resolve(ready);
  return new Promise((resolve) => waiting.push(resolve));
}
async function command(text: string, prefix: string): Promise<string> {
  server.stdin.write(`${text}\n`);
  for (;;) {
    const reply = await nextReply();
    if (reply.startsWith(prefix)) return reply.slice(prefix.length);
  }
}

const setupStarted = performance.now();
let baseUrl = '';
for (;;) {
  const reply = await nextReply();
  if (reply.startsWith('READY ')) {
    baseUrl = reply.slice('READY '.length);
    break;
  }
}
const setupMs = performance.now() - setupStarted;

// ---- request throughput ---------------------------------------------------------------------

interface Window {
  readonly requestsPerSec: number;
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly bytesPerResponse: number;
  readonly non2xx: number;
  readonly errors: number;
}

async function load(urlPath: string, connections: number, seconds: number): Promise<Window> {
  const result = await autocannon({
    url: `${baseUrl}${urlPath}`,
    connections,
    duration: seconds,
    pipelining: 1,
  });
  return {
    requestsPerSec: result.requests.average,
    requests: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    bytesPerResponse:
      result.requests.total > 0 ? result.throughput.total / result.requests.total : 0,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function windowsOf(urlPath: string, connections: number): Promise<Window[]> {
  await load(urlPath, connections, 1); // warm-up: JIT, caches, connection setup
  const out: Window[] = [];
  for (let index = 0; index < windows; index++)
    out.push(await load(urlPath, connections, windowSeconds));
  return out;
}

const jobsWindows = parts.has('jobs') ? await windowsOf('/jobs', CONNECTIONS) : [];
const metricsWindows = parts.has('metrics') ? await windowsOf('/metrics', CONNECTIONS) : [];

/** One scrape at a time, timed from request to last byte, as a Prometheus server does it. */
function scrapeOnce(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(`${baseUrl}/metrics`, (response: IncomingMessage) => {
      response.on('data', () => undefined);
      response.on('end', () => resolve(performance.now() - started));
    });
    req.on('error', reject);
    req.end();
  });
}
const scrapeMs: number[] = [];
if (parts.has('metrics')) {
  for (let index = 0; index < 10; index++) await scrapeOnce(); // warm-up
  for (let index = 0; index < 100; index++) scrapeMs.push(await scrapeOnce());
}

// ---- SSE fan-out ------------------------------------------------------------------------------

interface SseClient {
  delivered: number;
  cutOff: boolean;
  readonly latenciesMs: number[];
  close(): void;
}

function openClient(): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const client: SseClient = {
      delivered: 0,
      cutOff: false,
      latenciesMs: [],
      close: () => undefined,
    };
    let responded = false;
    const req = request(`${baseUrl}/events`, (response: IncomingMessage) => {
      responded = true;
      let pending = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const now = performance.timeOrigin + performance.now();
        pending += chunk;
        let end = pending.indexOf('\n\n');
        while (end !== -1) {
          const block = pending.slice(0, end);
          pending = pending.slice(end + 2);
          if (block.startsWith('event: run:output')) {
            const sent = /t=([\d.]+)/.exec(block);
            if (sent?.[1]) {
              client.delivered++;
              client.latenciesMs.push(now - Number(sent[1]));
            }
          } else if (block.includes('slow-consumer')) {
            client.cutOff = true;
          }
          end = pending.indexOf('\n\n');
        }
      });
      client.close = () => req.destroy();
      resolve(client);
    });
    req.on('error', (error) => {
      if (!responded) reject(error);
    });
    req.end();
  });
}

async function measureSse(): Promise<Record<string, unknown>> {
  const statsBefore = JSON.parse(await command('stats', 'STATS ')) as { rssBytes: number };
  const clients = await Promise.all(Array.from({ length: sseClients }, () => openClient()));
  const emitSeconds = windowSeconds;
  const emitted = Number(await command(`emit ${linesPerSecond} ${emitSeconds}`, 'EMITTED '));
  // Let the tail of the stream arrive.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const statsAfter = JSON.parse(await command('stats', 'STATS ')) as { rssBytes: number };
  for (const client of clients) client.close();

  // Latencies are sampled (every client sees the same lines) to keep the sample small.
  const latencySample: number[] = [];
  for (const client of clients) {
    for (let index = 0; index < client.latenciesMs.length; index += 10) {
      latencySample.push(client.latenciesMs[index] ?? Number.NaN);
    }
  }
  return {
    clients: sseClients,
    printers,
    linesPerSecond,
    seconds: emitSeconds,
    emitted,
    delivered: clients.map((client) => client.delivered),
    cutOff: clients.filter((client) => client.cutOff).length,
    latencySampleMs: latencySample,
    serverRssBeforeBytes: statsBefore.rssBytes,
    serverRssAfterBytes: statsAfter.rssBytes,
  };
}
const sse = parts.has('sse') ? await measureSse() : null;

reportSample({
  jobs: jobCount,
  historyRuns,
  setupMs,
  connections: CONNECTIONS,
  windowSeconds,
  jobsWindows,
  metricsWindows,
  scrapeMs,
  sse,
});

server.stdin.write('quit\n');
await new Promise((resolve) => server.once('exit', resolve));
