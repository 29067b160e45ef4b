// Worker: the filesystem state store's hot operations on a real directory (argv: storeDir,
// appends per round, rounds). Reports raw per-operation latencies (ms) and timed batches; the
// group aggregates. Uses the built dist/state (what ships) with the real clock.
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import type * as CommonModule from '../../src/common/index.js';
import type * as LoggingModule from '../../src/logging/index.js';
import type * as StateModule from '../../src/state/index.js';
import { intArg, repoRoot, reportSample, stringArg } from '../lib/worker-io.js';

const dist = (relative: string): string =>
  pathToFileURL(path.join(repoRoot(), 'dist', relative)).href;
const common = (await import(dist('common/index.js'))) as typeof CommonModule;
const logging = (await import(dist('logging/index.js'))) as typeof LoggingModule;
const state = (await import(dist('state/index.js'))) as typeof StateModule;
// Workers run from a temp dir: resolve packages from the checkout under test.
const promClientPath = createRequire(path.join(repoRoot(), 'package.json')).resolve('prom-client');
const { Registry } = (await import(pathToFileURL(promClientPath).href)) as typeof PromClient;

const storeDir = stringArg(0, 'storeDir');
const appendsPerRound = intArg(1, 'appendsPerRound');
const rounds = intArg(2, 'rounds');
const deps = { clock: common.systemClock, logger: logging.silentLogger() };

/** The store as the daemon builds it: metered (on a private Registry) and, here, unthrottled. */
function openStore(subdir: string, fsyncRecords = false): StateModule.StateStore {
  return state.createStateStore(
    { path: path.join(storeDir, subdir), topology: 'single-node', fsyncRecords },
    { ...deps, registry: new Registry() },
  ).store;
}

async function timed<T>(samples: number[], work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  samples.push(performance.now() - started);
  return result;
}

const RUN_RECORD = {
  name: 'backup',
  outcome: 'success',
  started_at: '2026-01-01T03:00:00.000Z',
  finished_at: '2026-01-01T03:00:04.250Z',
  duration: 4.25,
  exit_code: 0,
  fail_reason: null,
  host: 'bench-host',
};

// --- append: sequential (latency + throughput) and 8 in flight (throughput) ---------------------
const store = openStore('main');
await store.open();
for (let n = 0; n < 300; n++) await store.append('runs/warm-up', { ...RUN_RECORD, n });
const appendMs: number[] = [];
const sequentialRates: number[] = [];
const concurrentRates: number[] = [];
for (let round = 0; round < rounds; round++) {
  const stream = `runs/job-${round}`;
  const started = performance.now();
  for (let n = 0; n < appendsPerRound; n++) {
    await timed(appendMs, () => store.append(stream, { ...RUN_RECORD, n }));
  }
  sequentialRates.push(appendsPerRound / ((performance.now() - started) / 1000));
  const concurrentStarted = performance.now();
  const inFlight: Promise<unknown>[] = [];
  for (let n = 0; n < appendsPerRound; n++) {
    inFlight.push(store.append(`${stream}-concurrent`, { ...RUN_RECORD, n }));
    if (inFlight.length >= 8) await Promise.all(inFlight.splice(0));
  }
  await Promise.all(inFlight);
  concurrentRates.push(appendsPerRound / ((performance.now() - concurrentStarted) / 1000));
}
reportSample({ kind: 'append', appendMs, sequentialRates, concurrentRates });

// --- derive-max and list over 1,000 records -----------------------------------------------------
await store.prune('runs/job-0', 1000);
const deriveWarmMs: number[] = [];
const listNewestMs: number[] = [];
const listAllMs: number[] = [];
for (let n = 0; n < 30; n++) {
  await timed(deriveWarmMs, () => store.deriveMax('runs/job-0', 'finished_at'));
  await timed(listNewestMs, () => store.list('runs/job-0', { limit: 20 }));
  await timed(listAllMs, () => store.list('runs/job-0'));
}
// Cold: a fresh store instance (empty record cache), as at daemon start.
const deriveColdMs: number[] = [];
for (let n = 0; n < 5; n++) {
  const cold = openStore('main');
  await cold.open();
  await timed(deriveColdMs, () => cold.deriveMax('runs/job-0', 'finished_at'));
  await cold.close();
}
reportSample({ kind: 'read', deriveWarmMs, deriveColdMs, listNewestMs, listAllMs });

// --- leases and document CAS -------------------------------------------------------------------
const acquireMs: number[] = [];
const renewMs: number[] = [];
const casMs: number[] = [];
for (let n = 0; n < 500; n++) {
  const lease = await timed(acquireMs, () =>
    store.acquireLease(`slots/job-${n % 50}`, `holder-${n}`, 30_000),
  );
  if (lease.acquired)
    await timed(renewMs, () =>
      store.renewLease(`slots/job-${n % 50}`, `holder-${n}`, lease.fence, 30_000),
    );
  await store.releaseLease(`slots/job-${n % 50}`, `holder-${n}`, lease.fence);
  await timed(casMs, () =>
    store.updateDocument(`cursor/job-${n % 20}`, 'offset', () => ({
      kind: 'write',
      body: { name: 'offset', updatedAt: n / 1000, value: n },
      result: null,
    })),
  );
}
reportSample({ kind: 'coordination', acquireMs, renewMs, casMs });
await store.close();

// --- the fsync policy's price, for the docs: the same append with fsyncRecords ------------------
const durable = openStore('durable', true);
await durable.open();
const fsyncAppendMs: number[] = [];
for (let n = 0; n < Math.min(500, appendsPerRound); n++) {
  await timed(fsyncAppendMs, () => durable.append('runs/durable', { ...RUN_RECORD, n }));
}
await durable.close();
reportSample({ kind: 'fsync', fsyncAppendMs });
rmSync(storeDir, { recursive: true, force: true });
