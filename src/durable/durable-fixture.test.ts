// Test support (no tests here): a "daemon" = the real scheduler on a FakeClock and a FakeRunner
// with a DurableState serving its durable port before its start-up pass, exactly in the daemon's
// order (the durable collaborator swapped in, scheduler.start(), durable.start()), over a store the test keeps across
// "restarts". Every scheduler event, every landed append and every log line goes into one
// ordered journal, so tests assert orderings (record-before-run) as values, never by sleeping.
import { randomBytes } from 'node:crypto';
import {
  createDeferred,
  formatIsoUtc,
  Swappable,
  systemClock,
  type Deferred,
  type FakeClock,
} from '../common/index.js';
import type { ResolvedConfig, ResolvedJob, ResolvedState } from '../config/index.js';
import {
  createScheduler,
  type ClusterPort,
  type DurableCollaborator,
  type LeadershipGate,
  type Scheduler,
  type SchedulerEvents,
} from '../scheduler/index.js';
import { FakeRunner, type FakeResult } from '../scheduler/testing.js';
import { makeConfig } from '../config/testing.js';
import { recordingLogger, type RecordingLogger } from '../logging/testing.js';
import {
  MemoryStateStore,
  StateWriteQueue,
  type JsonObject,
  type StateMetrics,
  type StateStore,
} from '../state/index.js';
import { createDurableProcessState } from './attach.js';
import type { ResumeCluster } from './types.js';
import { sameBoot } from './boot-id.js';
import {
  DurableState,
  type BootInfo,
  type CounterSnapshots,
  type DurableProcessState,
} from './durable-state.js';

/** 2026-01-01T00:00:00Z: on every minute, hour and day boundary. */
export const T0 = Date.UTC(2026, 0, 1);
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const HOST = 'host-a';
export const BOOT_1: BootInfo = { bootId: 'boot-1', bootTimeMs: null };
export const BOOT_2: BootInfo = { bootId: 'boot-2', bootTimeMs: null };

/** The resolved `state` section with the seed's defaults. */
export function stateSettings(overrides: Partial<ResolvedState> = {}): ResolvedState {
  return {
    path: '/var/lib/yacron2',
    topology: 'single-node',
    deploymentId: null,
    maxRunsPerJob: 1000,
    onStoreUnavailable: 'degrade',
    gcGraceMs: 604_800_000,
    maxOpsPerSecond: 0,
    slotTtlMs: 30_000,
    jobApi: {
      enabled: false,
      listen: null,
      allowNonLoopbackBind: false,
      maxValueBytes: 1_048_576,
      maxArtifactBytes: 67_108_864,
      lockTtlMs: 30_000,
    },
    source: { file: 'test.yaml', line: 1 },
    ...overrides,
  };
}

/** A daemon process's once-per-process state with a known token (a fresh one: a new process). */
export function newProcess(token: string): DurableProcessState {
  return createDurableProcessState(token);
}

/** Fields a test pins of a retry record and of an in-flight record. */
export const RETRY_FIELDS = [
  'kind',
  'host',
  'attempt',
  'notBefore',
  'jobDigest',
  'reason',
] as const;
export const INFLIGHT_FIELDS = [
  'kind',
  'host',
  'proc',
  'pid',
  'startedAt',
  'jobDigest',
  'reason',
] as const;

/** Only `keys` of a record: records may carry more fields than a test pins. */
export function pick(
  record: Readonly<Record<string, unknown>> | undefined,
  keys: readonly string[],
): Record<string, unknown> | undefined {
  if (record === undefined) return undefined;
  return Object.fromEntries(keys.filter((key) => key in record).map((key) => [key, record[key]]));
}

/** Let every pending promise chain run to completion (no clock time passes). */
export async function flush(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Move the FakeClock forward by `ms`, letting the async work each timer starts finish before the
 * next timer fires (FakeClock.advance alone drains only a few microtask turns between timers).
 */
export async function tick(clock: FakeClock, ms: number): Promise<void> {
  const target = clock.monotonic() + ms;
  await flush();
  for (;;) {
    const next = clock.nextTimerDelayMs();
    if (next === undefined || clock.monotonic() + next > target) break;
    await clock.advance(next);
    await flush();
  }
  await clock.advance(target - clock.monotonic());
  await flush();
}

/**
 * Let the event loop (and a real store's file I/O) run until `done` holds. Bounded by wall time,
 * not by a count of loop turns: a loaded machine finishes the same I/O in more turns.
 */
export async function until(
  done: () => boolean | Promise<boolean>,
  what: string,
  boundMs = 60_000,
): Promise<void> {
  const deadline = systemClock.monotonic() + boundMs;
  while (!(await done())) {
    if (systemClock.monotonic() > deadline) throw new Error(`${what} did not happen`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The stream's records' data, oldest first. */
export async function streamData(store: StateStore, stream: string): Promise<JsonObject[]> {
  return (await store.list(stream)).map((record) => record.data).reverse();
}

type ObservedOp = 'append' | 'list' | 'deriveMax' | 'prune' | 'listStreams';
const OBSERVED: ReadonlySet<string> = new Set([
  'append',
  'list',
  'deriveMax',
  'prune',
  'listStreams',
]);

interface Hold {
  readonly op: ObservedOp;
  readonly stream: string;
  readonly gate: Deferred<void>;
}

/**
 * A store wrapper that journals each append as it lands and can hold chosen operations (by op and
 * stream prefix) until the test releases them: "the rehydration read is slow" without a timer.
 */
export class ObservedStore {
  readonly store: StateStore;
  readonly #journal: string[];
  #holds: Hold[] = [];

  constructor(inner: StateStore, journal: string[]) {
    this.#journal = journal;
    this.store = new Proxy(inner, {
      get: (target, property, receiver) => {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        const method = value as (...args: unknown[]) => unknown;
        if (typeof property !== 'string' || !OBSERVED.has(property)) return method.bind(target);
        return async (...args: unknown[]) => {
          const stream = typeof args[0] === 'string' ? args[0] : '';
          for (const hold of this.#holds) {
            if (hold.op === property && stream.startsWith(hold.stream)) await hold.gate.promise;
          }
          const result = await method.apply(target, args);
          if (property === 'append')
            this.#journal.push(`append ${stream} ${describeRecord(args[1])}`);
          return result;
        };
      },
    });
  }

  /** Hold `op` on streams starting with `stream` until the returned release is called. */
  hold(op: ObservedOp, stream: string): () => void {
    const hold: Hold = { op, stream, gate: createDeferred<void>() };
    this.#holds.push(hold);
    return () => {
      this.#holds = this.#holds.filter((other) => other !== hold);
      hold.gate.resolve();
    };
  }
}

function describeRecord(data: unknown): string {
  if (typeof data !== 'object' || data === null) return '';
  const record = data as Record<string, unknown>;
  const parts = [record['kind'], record['reason'], record['outcome']];
  return parts.filter((part): part is string => typeof part === 'string').join(' ');
}

export interface DaemonOptions {
  readonly clock: FakeClock;
  readonly store: StateStore;
  readonly jobs: readonly ResolvedJob[];
  readonly host?: string;
  /** Default: a fresh process (new token). Pass the same object for a state-section reload. */
  readonly process?: DurableProcessState;
  readonly settings?: Partial<ResolvedState>;
  /** The OS boot identity this "daemon" sees; null = a platform without one. */
  readonly boot?: BootInfo | null;
  readonly pidAlive?: (pid: number) => boolean;
  readonly counters?: CounterSnapshots;
  readonly metrics?: StateMetrics;
  /** Default: already open. */
  readonly storeOpened?: Promise<boolean>;
  /** How the open attempt under way ends (default: none under way). */
  readonly storeOpenAttempt?: () => Promise<boolean>;
  readonly redact?: (text: string) => string;
  /** The job API's staged secret values per run id. */
  readonly secretValues?: (runId: string) => Promise<readonly string[]> | undefined;
  /** Shared ordered journal (appends, run:started, fire:skipped); default a fresh one. */
  readonly journal?: string[];
  /** Re-use a scheduler (a state-section reload keeps the scheduler). */
  readonly scheduler?: DaemonScheduler;
  /** What unscripted runs do, set before the start-up pass (default: run until completed). */
  readonly runs?: FakeResult | 'manual';
  /** The cluster's gate and port for a fresh scheduler (default: none, no election). */
  readonly seams?: ClusterSeams;
  /** Cross-node retry resume: the store is shared and this is the cluster it asks. */
  readonly resume?: { readonly shared: boolean; readonly cluster: ResumeCluster };
}

/** What a clustered daemon's scheduler is built with (leadership's schedulerSeams()). */
export interface ClusterSeams {
  readonly gate: LeadershipGate;
  readonly cluster: ClusterPort;
}

export interface DaemonScheduler {
  readonly scheduler: Scheduler;
  /** The scheduler's durable port, as the daemon owns it: swap the backend serving it. */
  readonly servingDurable: Swappable<DurableCollaborator>;
  readonly runner: FakeRunner;
  /** The one recording logger of the scheduler and the durable side. */
  readonly logger: RecordingLogger;
  readonly events: { readonly name: keyof SchedulerEvents; readonly payload: unknown }[];
}

export interface Daemon extends DaemonScheduler {
  readonly clock: FakeClock;
  readonly durable: DurableState;
  readonly writes: StateWriteQueue;
  readonly process: DurableProcessState;
  readonly journal: string[];
  readonly config: ResolvedConfig;
  of<K extends keyof SchedulerEvents>(name: K): SchedulerEvents[K][];
  logged(text: string): string[];
  /** Graceful shutdown: the scheduler (grace 0), then the durable collaborator's close. */
  stop(): Promise<void>;
}

const JOURNALED: readonly (keyof SchedulerEvents)[] = [
  'run:started',
  'run:finished',
  'fire:skipped',
  'retry:scheduled',
];

function journalEntry(name: keyof SchedulerEvents, payload: unknown): string {
  const event = payload as {
    job?: { name: string };
    jobName?: string;
    trigger?: string;
    reason?: string;
  };
  const job = event.job?.name ?? event.jobName ?? '';
  return [name, job, event.trigger ?? event.reason ?? ''].join(' ').trim();
}

/** Build a scheduler with a FakeRunner whose events land in the journal. */
export function createDaemonScheduler(
  clock: FakeClock,
  config: ResolvedConfig,
  journal: string[],
  seams?: ClusterSeams,
): DaemonScheduler {
  const runner = new FakeRunner({ clock });
  const logger = recordingLogger();
  const servingDurable = new Swappable<DurableCollaborator>();
  const scheduler = createScheduler(
    {
      clock,
      logger,
      runner,
      yieldToLoop: () => clock.sleep(0),
      durable: servingDurable,
      ...seams,
    },
    config,
  );
  const events: { name: keyof SchedulerEvents; payload: unknown }[] = [];
  const names: readonly (keyof SchedulerEvents)[] = [
    ...JOURNALED,
    'retry:discarded',
    'report:permanently-failed',
    'schedule:late',
  ];
  for (const name of names) {
    scheduler.events.on(name, (payload: unknown) => {
      events.push({ name, payload });
      if (JOURNALED.includes(name)) journal.push(journalEntry(name, payload));
    });
  }
  return { scheduler, servingDurable, runner, logger, events };
}

/**
 * Start a daemon over `store`: the scheduler (or the given one), a DurableState attached before
 * the start-up pass, then durable.start(). The boot sequence runs in the background: await
 * flush() (or tick()) before asserting on it.
 */
export function startDaemon(options: DaemonOptions): Daemon {
  const { clock, store } = options;
  const journal = options.journal ?? [];
  const config = makeConfig(options.jobs);
  const settings = stateSettings(options.settings);
  const fresh = options.scheduler === undefined;
  const base = options.scheduler ?? createDaemonScheduler(clock, config, journal, options.seams);
  if (options.runs !== undefined) base.runner.setDefault(options.runs);
  const { logger } = base;
  const writes = new StateWriteQueue({
    logger,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  });
  const process = options.process ?? newProcess(randomBytes(6).toString('hex'));
  const schedulerStartedAtMs = clock.now();
  const boot = options.boot === undefined ? BOOT_1 : options.boot;
  const durable = new DurableState(
    {
      clock,
      logger,
      host: options.host ?? HOST,
      store,
      writes,
      storeOpened: options.storeOpened ?? Promise.resolve(true),
      ...(options.storeOpenAttempt === undefined
        ? {}
        : { storeOpenAttempt: options.storeOpenAttempt }),
      scheduler: base.scheduler,
      process,
      schedulerStartedAtMs,
      readBoot: () => Promise.resolve(boot),
      sameBoot,
      pidAlive: options.pidAlive ?? (() => false),
      ...(options.counters === undefined ? {} : { counters: options.counters }),
      redact: options.redact ?? ((text) => text.replaceAll('hunter2', '[REDACTED]')),
      ...(options.secretValues === undefined ? {} : { secretValues: options.secretValues }),
      ...(options.resume === undefined
        ? {}
        : { sharedStore: () => options.resume?.shared, cluster: options.resume.cluster }),
    },
    settings,
    config,
  );
  base.servingDurable.swap(durable);
  if (fresh) base.scheduler.start();
  else base.scheduler.applyConfig(config);
  durable.start();
  const daemon: Daemon = {
    ...base,
    clock,
    durable,
    writes,
    process,
    journal,
    config,
    of<K extends keyof SchedulerEvents>(name: K): SchedulerEvents[K][] {
      return base.events
        .filter((event) => event.name === name)
        .map((event) => event.payload) as SchedulerEvents[K][];
    },
    logged(text: string): string[] {
      return logger.messages().filter((message) => message.includes(text));
    },
    async stop(): Promise<void> {
      let settled = false;
      const done = (async () => {
        await base.scheduler.shutdown(0);
        await durable.close();
      })().then(() => {
        settled = true;
      });
      for (let step = 0; step < 1000 && !settled; step++) await tick(clock, SECOND);
      if (!settled) throw new Error('the daemon did not stop');
      await done;
    },
  };
  return daemon;
}

/** A MemoryStateStore on `clock`, opened. */
export async function openMemoryStore(clock: FakeClock): Promise<MemoryStateStore> {
  const store = new MemoryStateStore({ clock });
  await store.open();
  return store;
}

/** A ledger row as another node (or an earlier process, or the reference) wrote it. */
export function ledgerRow(
  outcome: 'success' | 'failure' | 'cancelled' | 'unknown',
  finishedAtMs: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const iso = formatIsoUtc(finishedAtMs);
  return {
    outcome,
    exit_code: outcome === 'success' ? 0 : outcome === 'failure' ? 1 : null,
    started_at: outcome === 'unknown' ? null : iso,
    finished_at: iso,
    duration: outcome === 'unknown' ? null : 0,
    fail_reason: outcome === 'failure' ? 'failsWhen=nonzeroReturn and retcode=1' : null,
    resources: null,
    ...extra,
  };
}
