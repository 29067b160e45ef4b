// The worker side of the parent/worker protocol: a worker is a fresh `node` process running one
// transpiled bench/cases/*.ts file; it reports raw samples as marked lines on stdout (anything
// else a worker or its children print is passed through) and the parent aggregates them.
import type * as ClusterModule from '../../src/cluster/index.js';
import type * as CommonModule from '../../src/common/index.js';
import type * as ConfigModule from '../../src/config/index.js';
import type * as DaemonModule from '../../src/daemon/index.js';
import type * as LeadershipModule from '../../src/leadership/index.js';
import type * as LoggingModule from '../../src/logging/index.js';
import type * as ResourcesModule from '../../src/resources/index.js';
import type * as RunnerModule from '../../src/runner/index.js';
import type * as ScheduleModule from '../../src/schedule/index.js';
import type * as SchedulerModule from '../../src/scheduler/index.js';
import type * as LeadershipTesting from '../../src/leadership/testing.js';
import type * as SchedulerTesting from '../../src/scheduler/testing.js';
import type * as StateTesting from '../../src/state/testing.js';
import { pathToFileURL } from 'node:url';
import * as path from 'node:path';

/** Prefix of a sample line on a worker's stdout. */
export const SAMPLE_MARKER = '@@bench-sample ';

/** Report one sample object to the parent. */
export function reportSample(sample: Readonly<Record<string, unknown>>): void {
  process.stdout.write(`${SAMPLE_MARKER}${JSON.stringify(sample)}\n`);
}

/** The checkout under test (set by run.ts: workers run from a temp dir). */
export function repoRoot(): string {
  const root = process.env['YACRON2_BENCH_ROOT'];
  if (root === undefined || root === '') {
    throw new Error('YACRON2_BENCH_ROOT is not set; run workers through bench/run.ts');
  }
  return root;
}

/**
 * The built modules (dist/, what ships), typed by their sources. Workers measure the compiled
 * JavaScript in a plain `node` (no TypeScript loader: tsx alone adds ~35 MB RSS and a hooks
 * thread, which would distort memory and startup numbers).
 */
export interface Yacron2Modules {
  readonly cluster: typeof ClusterModule;
  readonly common: typeof CommonModule;
  readonly config: typeof ConfigModule;
  readonly leadership: typeof LeadershipModule;
  readonly logging: typeof LoggingModule;
  readonly resources: typeof ResourcesModule;
  readonly runner: typeof RunnerModule;
  readonly schedule: typeof ScheduleModule;
  readonly scheduler: typeof SchedulerModule;
}

/** The daemon door (it loads every layer): for workers that build what the daemon builds. */
export function importDaemon(): Promise<typeof DaemonModule> {
  return importDist<typeof DaemonModule>('daemon/index.js');
}

async function importDist<T>(relative: string): Promise<T> {
  const file = path.join(repoRoot(), 'dist', relative);
  return (await import(pathToFileURL(file).href)) as T;
}

export async function importYacron2(): Promise<Yacron2Modules> {
  const [cluster, common, config, leadership, logging, resources, runner, schedule, scheduler] =
    await Promise.all([
      importDist<typeof ClusterModule>('cluster/index.js'),
      importDist<typeof CommonModule>('common/index.js'),
      importDist<typeof ConfigModule>('config/index.js'),
      importDist<typeof LeadershipModule>('leadership/index.js'),
      importDist<typeof LoggingModule>('logging/index.js'),
      importDist<typeof ResourcesModule>('resources/index.js'),
      importDist<typeof RunnerModule>('runner/index.js'),
      importDist<typeof ScheduleModule>('schedule/index.js'),
      importDist<typeof SchedulerModule>('scheduler/index.js'),
    ]);
  return { cluster, common, config, leadership, logging, resources, runner, schedule, scheduler };
}

/**
 * The test fakes a bench drives, from their built files: they are on the test doors (testing.ts,
 * not built), never on the shipped ones, so each is imported from the one file that defines it.
 */
export interface Yacron2Fakes {
  readonly FakeRunner: typeof SchedulerTesting.FakeRunner;
  readonly StaticLeadershipSource: typeof LeadershipTesting.StaticLeadershipSource;
  readonly FaultyStateStore: typeof StateTesting.FaultyStateStore;
}

export async function importFakes(): Promise<Yacron2Fakes> {
  const [scheduler, leadership, state] = await Promise.all([
    importDist<Pick<typeof SchedulerTesting, 'FakeRunner'>>('scheduler/fake-runner.js'),
    importDist<Pick<typeof LeadershipTesting, 'StaticLeadershipSource'>>(
      'leadership/static-leadership.js',
    ),
    importDist<Pick<typeof StateTesting, 'FaultyStateStore'>>('state/faulty-store.js'),
  ]);
  return {
    FakeRunner: scheduler.FakeRunner,
    StaticLeadershipSource: leadership.StaticLeadershipSource,
    FaultyStateStore: state.FaultyStateStore,
  };
}

/** Integer command-line argument `index` of the worker (after the script path). */
export function intArg(index: number, name: string): number {
  const text = process.argv[2 + index];
  const value = Number(text);
  if (text === undefined || !Number.isInteger(value)) {
    throw new Error(`worker argument ${name} must be an integer, got ${String(text)}`);
  }
  return value;
}

/** String command-line argument `index` of the worker. */
export function stringArg(index: number, name: string): string {
  const text = process.argv[2 + index];
  if (text === undefined) throw new Error(`worker argument ${name} is missing`);
  return text;
}

/** Full GC until RSS settles (needs --expose-gc); finalizers get a turn between passes. */
export async function collectGarbage(): Promise<void> {
  if (typeof gc !== 'function') throw new Error('run the worker with --expose-gc');
  for (let pass = 0; pass < 4; pass++) {
    gc();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

// Read once: the performance.timeOrigin getter recomputes it on every call (~1 µs cold), which
// added up inside the 1,000 timed decisions of a burst.
const TIME_ORIGIN_MS = performance.timeOrigin;

/** High-resolution wall clock in epoch ms (sub-millisecond; Date.now is whole ms). */
export function wallNowMs(): number {
  return TIME_ORIGIN_MS + performance.now();
}
