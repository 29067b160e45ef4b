// Group state: the filesystem state store's hot paths (worker cases/state-store.ts): append
// latency and throughput, derive-max and list over 1,000 records, lease acquire/renew and a
// document read-modify-write. Each process writes a fresh store under the bench work dir.
import * as path from 'node:path';
import { metricLine, unmeasured, type Target } from '../lib/metric.js';
import { max, median, percentile, round, roundAll } from '../lib/stats.js';
import { runFresh, type BenchGroup } from './group.js';
import type { Sample } from '../lib/workers.js';

/** Issue targets (the Python reference takes ~6 ms per append). */
const APPEND_P50: Target = { op: '<=', value: 0.5 };
const APPEND_P99: Target = { op: '<=', value: 5 };
const APPEND_RATE: Target = { op: '>=', value: 2000 };
const PROCESSES = 3;
const APPENDS_PER_ROUND = 1000;
const ROUNDS = 3;

function numbers(samples: readonly Sample[], kind: string, key: string): number[] {
  return samples
    .filter((sample) => sample['kind'] === kind)
    .flatMap((sample) => (sample[key] as number[] | undefined) ?? []);
}

/** Per process: the statistic of its samples; the metric is the median over processes. */
function acrossProcesses(
  runs: readonly Sample[][],
  kind: string,
  key: string,
  statistic: (values: number[]) => number,
): number[] {
  return runs.map((samples) => statistic(numbers(samples, kind, key))).filter(Number.isFinite);
}

export const stateGroup: BenchGroup = {
  id: 'state',
  summary:
    'durable state store: append p50/p99 and rate, derive-max/list over 1,000 records, lease acquire/renew, doc update',
  metricPrefixes: ['state.'],
  async run(context) {
    const { runs, failures } = await runFresh(context, 'cases/state-store.js', PROCESSES, {
      args: (repetition) => [
        path.join(context.workDir, `state-store-${repetition}`),
        String(APPENDS_PER_ROUND),
        String(ROUNDS),
      ],
      timeoutMs: 180_000,
    });
    if (runs.length === 0) {
      const reason = failures[0] ?? 'no samples';
      context.emit(unmeasured('state.append.p50', 'ms', APPEND_P50, reason));
      context.emit(unmeasured('state.append.p99', 'ms', APPEND_P99, reason));
      context.emit(unmeasured('state.append.throughput', 'appends/s', APPEND_RATE, reason));
      return;
    }
    const how = `median over ${runs.length} fresh processes of each process's`;
    const latency = (
      name: string,
      kind: string,
      key: string,
      p: number,
      target: Target | null,
      what: string,
    ): void => {
      const perProcess = acrossProcesses(runs, kind, key, (values) => percentile(values, p));
      const all = runs.map((samples) => numbers(samples, kind, key).length);
      context.emit(
        metricLine(name, round(median(perProcess), 3), 'ms', target, {
          statistic: `${how} p${p} ${what}`,
          operationsPerProcess: all,
          samples: roundAll(perProcess, 3),
          maxMs: round(max(runs.flatMap((samples) => numbers(samples, kind, key))), 2),
        }),
      );
    };
    const rate = (name: string, key: string, target: Target | null, what: string): void => {
      const perProcess = acrossProcesses(runs, 'append', key, median);
      context.emit(
        metricLine(name, round(median(perProcess), 0), 'appends/s', target, {
          statistic: `${how} median of ${ROUNDS} rounds of ${APPENDS_PER_ROUND} ${what}`,
          samples: roundAll(perProcess, 0),
        }),
      );
    };
    latency(
      'state.append.p50',
      'append',
      'appendMs',
      50,
      APPEND_P50,
      'append latency (awaited one at a time)',
    );
    latency(
      'state.append.p99',
      'append',
      'appendMs',
      99,
      APPEND_P99,
      'append latency (awaited one at a time)',
    );
    rate(
      'state.append.throughput',
      'sequentialRates',
      APPEND_RATE,
      'appends awaited one at a time',
    );
    rate('state.append.throughput.8-in-flight', 'concurrentRates', null, 'appends, 8 in flight');
    latency(
      'state.append.fsync.p50',
      'fsync',
      'fsyncAppendMs',
      50,
      null,
      'append latency with fsyncRecords: true (not the default)',
    );
    latency(
      'state.derive-max.1000-records',
      'read',
      'deriveWarmMs',
      50,
      null,
      'deriveMax over 1,000 records (record cache warm)',
    );
    latency(
      'state.derive-max.1000-records.cold',
      'read',
      'deriveColdMs',
      50,
      null,
      'deriveMax over 1,000 records by a fresh store (cache cold)',
    );
    latency(
      'state.list.newest-20',
      'read',
      'listNewestMs',
      50,
      null,
      'list(limit 20) of a 1,000-record stream',
    );
    latency(
      'state.list.all-1000',
      'read',
      'listAllMs',
      50,
      null,
      'list() of a 1,000-record stream',
    );
    latency(
      'state.lease.acquire',
      'coordination',
      'acquireMs',
      50,
      null,
      'fresh lease acquire (flock + read + fsynced write)',
    );
    latency(
      'state.lease.renew',
      'coordination',
      'renewMs',
      50,
      null,
      'lease renew (flock + read + fsynced write)',
    );
    latency(
      'state.doc.cas',
      'coordination',
      'casMs',
      50,
      null,
      'updateDocument read-modify-write (flock + strict read + fsynced write; was getDoc + putDoc CAS)',
    );
  },
};
