// Group jobapi: the job-facing state endpoint's KV round trip (worker cases/jobapi-kv.ts): one
// POST /v1/kv/set then GET /v1/kv/get over real HTTP on loopback, keep-alive, sequential, against
// an FsStateStore in a temp dir (as the daemon builds it; documents are fsynced) and, as context,
// against the memory store (the HTTP and API cost alone); plus the same pair as direct calls on
// the filesystem store, the floor the store itself sets. Three fresh processes.
import * as path from 'node:path';
import { metricLine, unmeasured, type Target } from '../lib/metric.js';
import { max, median, percentile, round, roundAll } from '../lib/stats.js';
import type { Sample } from '../lib/workers.js';
import { runFresh, type BenchGroup } from './group.js';

/** Issue target: a KV set+get round trip p99 <= 1 ms (the Python reference takes ~11 ms). */
const ROUND_TRIP_P99: Target = { op: '<=', value: 1 };
const PROCESSES = 3;
const ROUND_TRIPS = 2000;
const WARM_UP = 200;

const NAMES = {
  fsP50: 'jobapi.kv.set-get.fs.p50',
  fsP99: 'jobapi.kv.set-get.fs.p99',
  storeOnlyP50: 'jobapi.kv.set-get.fs-store-only.p50',
  storeOnlyP99: 'jobapi.kv.set-get.fs-store-only.p99',
  memoryP50: 'jobapi.kv.set-get.memory.p50',
  memoryP99: 'jobapi.kv.set-get.memory.p99',
} as const;

function latencies(samples: readonly Sample[], key: string): number[] {
  return samples
    .filter((sample) => sample['kind'] === 'kv-round-trip')
    .flatMap((sample) => (sample[key] as number[] | undefined) ?? []);
}

export const jobapiGroup: BenchGroup = {
  id: 'jobapi',
  summary: 'job API: KV set+get round trip over loopback HTTP (FsStateStore, and memory store)',
  metricPrefixes: ['jobapi.'],
  async run(context) {
    const { runs, failures } = await runFresh(context, 'cases/jobapi-kv.js', PROCESSES, {
      args: (repetition) => [
        path.join(context.workDir, `jobapi-${repetition}`),
        String(ROUND_TRIPS),
        String(WARM_UP),
      ],
      timeoutMs: 180_000,
    });
    if (runs.length === 0) {
      const reason = failures[0] ?? 'no samples';
      for (const name of Object.values(NAMES)) {
        const target = name === NAMES.fsP99 ? ROUND_TRIP_P99 : null;
        context.emit(unmeasured(name, 'ms', target, reason));
      }
      return;
    }
    const emit = (name: string, key: string, p: number, target: Target | null, store: string) => {
      const perProcess = runs.map((samples) => percentile(latencies(samples, key), p));
      context.emit(
        metricLine(name, round(median(perProcess), 3), 'ms', target, {
          statistic: `median over ${runs.length} fresh processes of each process's p${p} of ${ROUND_TRIPS} sequential set+get round trips (after ${WARM_UP} warm-up), one keep-alive connection`,
          store,
          samples: roundAll(perProcess, 3),
          maxMs: round(max(runs.flatMap((samples) => latencies(samples, key))), 2),
        }),
      );
    };
    const fsStore = 'FsStateStore via createStateStore (metered, unthrottled, docs fsynced)';
    emit(NAMES.fsP50, 'fsMs', 50, null, fsStore);
    emit(NAMES.fsP99, 'fsMs', 99, ROUND_TRIP_P99, fsStore);
    const direct =
      'updateDocument + getDocument called directly on the same FsStateStore (no HTTP, no API)';
    emit(NAMES.storeOnlyP50, 'fsStoreOnlyMs', 50, null, direct);
    emit(NAMES.storeOnlyP99, 'fsStoreOnlyMs', 99, null, direct);
    emit(NAMES.memoryP50, 'memoryMs', 50, null, 'MemoryStateStore (HTTP + API cost only)');
    emit(NAMES.memoryP99, 'memoryMs', 99, null, 'MemoryStateStore (HTTP + API cost only)');
  },
};
