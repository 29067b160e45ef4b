// Group http: the control API under load with 1,000 jobs (worker: cases/http-load.ts, which
// runs cases/http-server.ts as a separate server process). Metrics: GET /jobs throughput and p99
// latency (autocannon, 10 connections) for a fresh job set and for one where every job has a
// 20-run history (5x the body), GET /metrics throughput, p99 and single-scrape latency, and SSE
// fan-out of GET /events to 100 clients while jobs print. Two fresh worker processes.
import { metricLine, unmeasured, type Target } from '../lib/metric.js';
import { max, median, percentile, round, roundAll } from '../lib/stats.js';
import type { Sample } from '../lib/workers.js';
import { MB, runFresh, type BenchContext, type BenchGroup } from './group.js';

const JOBS = 1000;
const PRINTERS = 10;
const LINES_PER_SECOND = 200;
const SSE_CLIENTS = 100;
const WINDOWS = 3;
const WINDOW_SECONDS = 4;

const JOBS_TARGET: Target = { op: '>=', value: 1000 };
const SCRAPE_TARGET: Target = { op: '<=', value: 50 };

const HISTORY_RUNS = 20;

const NAMES = {
  jobsRate: `http.jobs.${JOBS}-jobs.req-per-sec`,
  jobsP99: `http.jobs.${JOBS}-jobs.p99`,
  historyRate: `http.jobs.${JOBS}-jobs.${HISTORY_RUNS}-run-history.req-per-sec`,
  historyP99: `http.jobs.${JOBS}-jobs.${HISTORY_RUNS}-run-history.p99`,
  metricsRate: `http.metrics.${JOBS}-jobs.req-per-sec`,
  metricsP99: `http.metrics.${JOBS}-jobs.p99`,
  scrape: `http.metrics.${JOBS}-jobs.scrape`,
  sseLatency: `http.sse.${SSE_CLIENTS}-clients.delivery-p99`,
  sseRate: `http.sse.${SSE_CLIENTS}-clients.events-per-sec`,
} as const;

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

interface SseResult {
  readonly clients: number;
  readonly printers: number;
  readonly linesPerSecond: number;
  readonly seconds: number;
  readonly emitted: number;
  readonly delivered: number[];
  readonly cutOff: number;
  readonly latencySampleMs: number[];
  readonly serverRssBeforeBytes: number;
  readonly serverRssAfterBytes: number;
}

export const httpGroup: BenchGroup = {
  id: 'http',
  summary: `control API with ${JOBS} jobs: /jobs and /metrics throughput, scrape latency, SSE fan-out to ${SSE_CLIENTS} clients`,
  metricPrefixes: ['http.'],
  async run(context) {
    const fresh = await measure(context, 0, 'jobs');
    if (typeof fresh === 'string') {
      context.emit(unmeasured(NAMES.jobsRate, 'req/s', JOBS_TARGET, fresh));
      context.emit(unmeasured(NAMES.jobsP99, 'ms', null, fresh));
    } else {
      emitThroughput(context, fresh, 'jobsWindows', NAMES.jobsRate, NAMES.jobsP99, JOBS_TARGET);
    }
    const full = await measure(context, HISTORY_RUNS, 'jobs,metrics,sse');
    if (typeof full === 'string') {
      context.emit(unmeasured(NAMES.historyRate, 'req/s', JOBS_TARGET, full));
      context.emit(unmeasured(NAMES.historyP99, 'ms', null, full));
      context.emit(unmeasured(NAMES.metricsRate, 'req/s', null, full));
      context.emit(unmeasured(NAMES.metricsP99, 'ms', null, full));
      context.emit(unmeasured(NAMES.scrape, 'ms', SCRAPE_TARGET, full));
      context.emit(unmeasured(NAMES.sseLatency, 'ms', null, full));
      context.emit(unmeasured(NAMES.sseRate, 'events/s', null, full));
      return;
    }
    emitThroughput(context, full, 'jobsWindows', NAMES.historyRate, NAMES.historyP99, JOBS_TARGET);
    emitThroughput(context, full, 'metricsWindows', NAMES.metricsRate, NAMES.metricsP99, null);
    const scrapes = (full['scrapeMs'] as number[] | undefined) ?? [];
    context.emit(
      metricLine(NAMES.scrape, round(percentile(scrapes, 99), 2), 'ms', SCRAPE_TARGET, {
        jobs: JOBS,
        historyRuns: HISTORY_RUNS,
        statistic: `p99 over ${scrapes.length} sequential GET /metrics on one connection (request to last byte, after 10 warm-up scrapes)`,
        p50: round(percentile(scrapes, 50), 2),
        max: round(max(scrapes), 2),
      }),
    );
    emitSse(context, full['sse'] as SseResult);
  },
};

/** One fresh worker (and server) process; its sample, or why there is none. */
async function measure(
  context: BenchContext,
  historyRuns: number,
  parts: string,
): Promise<Sample | string> {
  context.progress(`http: ${JOBS} jobs, ${historyRuns} finished runs each: ${parts}`);
  const { runs, failures } = await runFresh(context, 'cases/http-load.js', 1, {
    args: () =>
      [
        JOBS,
        context.workDir,
        PRINTERS,
        LINES_PER_SECOND,
        SSE_CLIENTS,
        WINDOWS,
        WINDOW_SECONDS,
        historyRuns,
        parts,
      ].map(String),
    timeoutMs: 300_000,
  });
  return runs.flat()[0] ?? failures[0] ?? 'the worker reported no sample';
}

function emitThroughput(
  context: BenchContext,
  sample: Sample,
  key: string,
  rateName: string,
  p99Name: string,
  rateTarget: Target | null,
): void {
  const windows = (sample[key] as Window[] | undefined) ?? [];
  const rates = windows.map((window) => window.requestsPerSec);
  const p99s = windows.map((window) => window.p99Ms);
  const common = {
    jobs: JOBS,
    historyRuns: sample['historyRuns'],
    connections: sample['connections'],
    windows: windows.length,
    windowSeconds: sample['windowSeconds'],
    bytesPerResponse: round(median(windows.map((window) => window.bytesPerResponse)), 0),
    non2xx: windows.reduce((sum, window) => sum + window.non2xx, 0),
    errors: windows.reduce((sum, window) => sum + window.errors, 0),
    serverSetupMs: round(sample['setupMs'] as number, 0),
  };
  context.emit(
    metricLine(rateName, round(median(rates), 0), 'req/s', rateTarget, {
      ...common,
      statistic: 'median over windows of autocannon requests.average (server in its own process)',
      samples: roundAll(rates, 0),
    }),
  );
  context.emit(
    metricLine(p99Name, round(median(p99s), 2), 'ms', null, {
      ...common,
      statistic: 'median over windows of autocannon latency p99',
      samples: roundAll(p99s, 2),
      p50: roundAll(
        windows.map((window) => window.p50Ms),
        2,
      ),
      max: roundAll(
        windows.map((window) => window.maxMs),
        2,
      ),
    }),
  );
}

function emitSse(context: BenchContext, sse: SseResult): void {
  const delivered = sse.delivered.reduce((sum, count) => sum + count, 0);
  const expected = sse.emitted * sse.clients;
  const common = {
    clients: sse.clients,
    printers: sse.printers,
    linesPerSecond: sse.linesPerSecond,
    seconds: sse.seconds,
    emittedLines: sse.emitted,
    deliveredEvents: delivered,
    expectedEvents: expected,
    minPerClient: Math.min(...sse.delivered),
    cutOffClients: sse.cutOff,
    serverRssMB: {
      before: round(sse.serverRssBeforeBytes / MB, 1),
      after: round(sse.serverRssAfterBytes / MB, 1),
    },
  };
  context.emit(
    metricLine(NAMES.sseLatency, round(percentile(sse.latencySampleMs, 99), 2), 'ms', null, {
      ...common,
      statistic: `p99 of emit-to-client-parse latency over a 1-in-10 sample of run:output events on ${sse.clients} GET /events clients (clients in one process)`,
      p50: round(percentile(sse.latencySampleMs, 50), 2),
      max: round(max(sse.latencySampleMs), 2),
    }),
  );
  context.emit(
    metricLine(NAMES.sseRate, round(delivered / sse.seconds, 0), 'events/s', null, {
      ...common,
      statistic: 'run:output events parsed by all clients together per second of emission',
    }),
  );
}
