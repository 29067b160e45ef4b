// The store's own housekeeping under the `state` section: open the store in the background
// (layout, writability probe, meta stamp), write this node's manifest at start, on a job-set
// change and every 6 hours, and run a GC pass shortly after start and every 24 hours. A slow or
// dead store never blocks the daemon: opening is retried in the background. The durable
// scheduler features live in src/durable and write through the same store.
// Must not: gate or delay any scheduled fire.
import {
  createDeferred,
  describeError,
  settlesWithin,
  TaskSet,
  type Clock,
  type TimerHandle,
} from '../common/index.js';
import { type Logger } from '../logging/index.js';
import { GC_INTERVAL_MS, MANIFEST_INTERVAL_MS } from './gc-rules.js';
import { formatDuration } from './gc-plan.js';
import { runGcPass, type GcReport } from './gc-run.js';
import {
  buildManifest,
  pruneManifests,
  writeManifest,
  type Manifest,
  type ManifestJobInput,
} from './manifest.js';
import type { Registry } from 'prom-client';
import { createStateStore } from './create-store.js';
import { createStateInspector, type ConcurrencyHoldRow, type StateInspector } from './inspector.js';
import type { StateMetrics } from './metrics.js';
import type { StateStore } from './types.js';
import type { StateWriteQueue } from './write-queue.js';
import { probeLockFidelity } from './lock-probe.js';
import { SCHEDULING_READ_TIMEOUT_MS } from './with-timeout.js';

/** The slice of the resolved `state` section the service reads (config's ResolvedState fits). */
export interface StateServiceSettings {
  readonly path: string;
  readonly deploymentId: string | null;
  readonly topology: 'auto' | 'single-node' | 'shared';
  readonly gcGraceMs: number | null;
  /** Token-bucket cap on store operations; 0 / undefined = unlimited. */
  readonly maxOpsPerSecond?: number;
}

/** A job as the service sees it (config's ResolvedJob fits): its name, scopes, store options. */
/** What the manifest names: the loaded config's job set. */
export interface ManifestSource {
  readonly jobSetId: string;
  readonly jobs: readonly ManifestJobInput[];
  readonly dags?: readonly string[];
}

export interface StateServiceDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  /** Build (not open) the store for the settings. */
  readonly createStore: (settings: StateServiceSettings) => StateStore;
  /** The store's metric families: a failed manifest write and each GC pass are counted. */
  readonly metrics?: Pick<StateMetrics, 'droppedWrite' | 'observeOp'>;
}

export interface StateService extends AsyncDisposable {
  readonly store: StateStore;
  /** Resolves once the store is open (never rejects; false when closed before it opened). */
  readonly opened: Promise<boolean>;
  /**
   * How the open attempt running now ends (true: open; false: it failed, or the service
   * closed): a closing writer waits for an open under way, not for a retry minutes away.
   * Never rejects; settled already when no attempt is running.
   */
  readonly openAttempt: () => Promise<boolean>;
  /** A reloaded config: a changed job set is manifested right away. */
  updateJobs(source: ManifestSource): void;
  /** One GC pass now (null when GC is disabled or the store is not open). */
  runGcNow(): Promise<GcReport | null>;
  close(): Promise<void>;
}

/** First GC pass this long after the store opens, so a nightly restart still collects. */
export const FIRST_GC_DELAY_MS = 10 * 60_000;
/** Longest wait at close for in-flight housekeeping (a hung mount must not block shutdown). */
export const CLOSE_WAIT_MS = 5000;
/** Retry delay while the store cannot be opened. */
export const OPEN_RETRY_MS = 60_000;

export function startStateService(
  deps: StateServiceDeps,
  settings: StateServiceSettings,
  source: ManifestSource,
): StateService {
  const { clock, logger, host } = deps;
  const store = deps.createStore(settings);
  const tasks = new TaskSet((error) =>
    logger.error(`State store housekeeping failed: ${describeError(error)}`),
  );
  const timers = new Set<TimerHandle>();
  let closed = false;
  let isOpen = false;
  let current = source;
  let lastManifested: string | undefined;
  const opened = createDeferred<boolean>();
  let attempt: Promise<boolean> = Promise.resolve(false);

  function after(delayMs: number, work: () => Promise<void>): void {
    // Work finishing after close() must not re-arm: a pending timer would keep the process up.
    if (closed) return;
    const timer = clock.setTimer(() => {
      timers.delete(timer);
      if (!closed) tasks.run(work);
    }, delayMs);
    timers.add(timer);
  }

  async function open(): Promise<void> {
    const ended = createDeferred<boolean>();
    attempt = ended.promise;
    const ok = await openOnce();
    ended.resolve(ok);
    if (!ok) {
      if (!closed) after(OPEN_RETRY_MS, open);
      return;
    }
    isOpen = true;
    opened.resolve(true);
    await manifestNow();
    scheduleManifests();
    if (settings.gcGraceMs === null) {
      logger.info('State store: automatic GC is disabled (gcGraceSeconds <= 0)');
    } else {
      after(FIRST_GC_DELAY_MS, gcAndReschedule);
    }
  }

  /** One attempt to open and describe the store: true when it is open and not closing. */
  async function openOnce(): Promise<boolean> {
    try {
      await store.open();
      const description = await store.describe({ probeWrite: true });
      const where = description.root ?? settings.path;
      logger.info(
        `State store ready at ${where} (backend ${description.backend}, namespace ${description.namespace}, topology ${description.topology}, setting ${description.topologySetting})`,
      );
      if (description.writable === false) {
        logger.warn(`State store at ${where} is not writable: durable writes will be dropped`);
      }
      for (const warning of description.warnings) logger.warn(`State store: ${warning}`);
    } catch (error) {
      logger.error(
        `Cannot open the state store at ${settings.path}: ${describeError(error)}; retrying in ${formatDuration(OPEN_RETRY_MS)}`,
      );
      await store.close().catch(() => undefined);
      return false;
    }
    return !closed;
  }

  function scheduleManifests(): void {
    after(MANIFEST_INTERVAL_MS, async () => {
      await manifestNow();
      scheduleManifests();
    });
  }

  async function manifestNow(): Promise<void> {
    if (!isOpen || closed) return;
    const manifest: Manifest = buildManifest({ host, ...current });
    try {
      await writeManifest(store, manifest, clock.now());
      lastManifested = manifestKey(manifest);
      const retainMs = (settings.gcGraceMs ?? 7 * 86_400_000) + MANIFEST_INTERVAL_MS;
      await pruneManifests(store, host, clock.now(), retainMs);
    } catch (error) {
      deps.metrics?.droppedWrite('manifest');
      logger.warn(`Cannot write this node's state manifest: ${describeError(error)}`);
    }
  }

  async function gcAndReschedule(): Promise<void> {
    try {
      await runGcNow();
    } finally {
      after(GC_INTERVAL_MS, gcAndReschedule);
    }
  }

  async function runGcNow(): Promise<GcReport | null> {
    const graceMs = settings.gcGraceMs;
    if (graceMs === null || !isOpen || closed) return null;
    let report: GcReport;
    const startedMs = clock.monotonic();
    const observe = (failed: boolean): void =>
      deps.metrics?.observeOp('gc', (clock.monotonic() - startedMs) / 1000, failed);
    try {
      report = await runGcPass(store, { nowMs: clock.now(), graceMs });
    } catch (error) {
      observe(true);
      logger.warn(`State GC pass failed: ${describeError(error)}`);
      return null;
    }
    observe(report.errors.length > 0);
    logGcReport(logger, report);
    return report;
  }

  tasks.run(open);

  return {
    store,
    opened: opened.promise,
    openAttempt: () => attempt,
    updateJobs(next: ManifestSource): void {
      current = next;
      // A changed DAG list is news to GC too (DAGs are not in the job-set id).
      if (isOpen && manifestKey(buildManifest({ host, ...next })) !== lastManifested) {
        tasks.run(manifestNow);
      }
    },
    runGcNow,
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const timer of timers) timer.cancel();
      timers.clear();
      // A store hung on a dead mount must not hang the daemon's shutdown.
      await settlesWithin(tasks.close(), CLOSE_WAIT_MS, clock);
      opened.resolve(false);
      await store.close();
    },
    [Symbol.asyncDispose](): Promise<void> {
      return this.close();
    },
  };
}

function logGcReport(logger: Logger, report: GcReport): void {
  if (report.status === 'deferred') {
    logger.info(`State GC deferred: ${report.deferredReason ?? ''}`);
    return;
  }
  const blobs =
    report.blobSweepSkipped === null ? '' : `; blob sweep skipped: ${report.blobSweepSkipped}`;
  logger.info(`State GC removed ${report.removed.length}, kept ${report.kept}${blobs}`);
  for (const action of report.removed) {
    logger.info(`State GC removed ${action.target} ${action.name}: ${action.reason}`);
  }
  for (const error of report.errors) logger.warn(`State GC: ${error}`);
}

/** What a re-manifest is for: the job set and the DAG names. */
function manifestKey(manifest: Manifest): string {
  return `${manifest.jobSetId}\n${manifest.dags.join('\n')}`;
}

// ---------------------------------------------------------------------------------------------
// The daemon's side: one call at start, on every reload and (with a null state) to stop.

/** What the daemon passes: the resolved config's state section and job set. */
export interface StateConfigView {
  readonly state: StateServiceSettings | null;
  readonly jobSetId: string;
  readonly jobs: readonly ManifestJobInput[];
  /** The configured DAGs: the manifest names them, so GC leaves their runs alone. */
  readonly dags?: readonly { readonly name: string }[];
}

export interface DaemonStateDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  /** The daemon's Prometheus registry, for the store's own families. */
  readonly registry?: Registry;
  /** The cluster concurrency slots this node holds now (GET /state `node.slots`). */
  readonly slots?: () => readonly ConcurrencyHoldRow[];
}

export interface DaemonStateHandle {
  readonly service: StateService;
  /** Fire-and-forget durable writes over the service's store. */
  readonly writes: StateWriteQueue;
  /** The resolved topology once the store is open. */
  readonly topology: () => 'single-node' | 'shared';
  /** The settings the service was started with, to tell a changed section on reload. */
  readonly settingsKey: string;
  /** The state inspector over this store (GET /state…). */
  readonly inspector: StateInspector;
  /**
   * Whether flock(2) excludes across processes under the store (lock-probe.ts): probed once per
   * store generation, on first use; rejects with the reason when it does not.
   */
  readonly probeLocks: () => Promise<void>;
  close(): Promise<void>;
}

/**
 * Start, update, restart or stop the state service for `config`: a changed `state` section
 * reopens the store, a removed one closes it, an unchanged one just re-manifests the job set.
 */
export async function applyDaemonStateSection(
  handle: DaemonStateHandle | undefined,
  config: StateConfigView,
  deps: DaemonStateDeps,
): Promise<DaemonStateHandle | undefined> {
  const source: ManifestSource = {
    jobSetId: config.jobSetId,
    jobs: config.jobs,
    dags: (config.dags ?? []).map((dag) => dag.name),
  };
  if (config.state === null) {
    if (handle !== undefined) {
      deps.logger.info('The state section was removed: closing the state store');
      await handle.close();
    }
    return undefined;
  }
  const settingsKey = settingsKeyOf(config.state);
  if (handle !== undefined && handle.settingsKey === settingsKey) {
    handle.service.updateJobs(source);
    return handle;
  }
  if (handle !== undefined) {
    deps.logger.info('The state section changed: reopening the state store');
    await handle.close();
  }
  const bundle = createFsStore(config.state, deps);
  const service = startStateService(
    {
      clock: deps.clock,
      logger: deps.logger,
      host: deps.host,
      createStore: () => bundle.store,
      ...(bundle.metrics === undefined ? {} : { metrics: bundle.metrics }),
    },
    config.state,
    source,
  );
  const close = async (): Promise<void> => {
    // Accepted writes land first (bounded: a hung mount must not hang shutdown), then the store.
    await settlesWithin(bundle.writes.close(), CLOSE_WAIT_MS, deps.clock);
    await service.close();
  };
  const state = config.state;
  const inspector = createStateInspector({
    store: bundle.store,
    clock: deps.clock,
    logger: deps.logger,
    host: deps.host,
    view: () => ({
      backend: 'filesystem',
      path: state.path,
      namespace: state.deploymentId ?? 'default',
      topology: bundle.fs.topology,
    }),
    ...(bundle.metrics === undefined ? {} : { metrics: bundle.metrics }),
    ...(deps.slots === undefined ? {} : { slots: deps.slots }),
    writes: bundle.writes,
  });
  let probed: Promise<void> | undefined;
  return {
    service,
    writes: bundle.writes,
    topology: () => bundle.fs.topology,
    settingsKey,
    inspector,
    probeLocks: () =>
      (probed ??= probeLockFidelity(
        bundle.fs.root,
        bundle.fs.instance,
        SCHEDULING_READ_TIMEOUT_MS,
        deps.clock,
      )),
    close,
  };
}

/** The metered, rate-limited filesystem store (yacron2_state_* on the daemon's registry). */
function createFsStore(settings: StateServiceSettings, deps: DaemonStateDeps) {
  return createStateStore(
    {
      path: settings.path,
      deploymentId: settings.deploymentId,
      topology: settings.topology,
      maxOpsPerSecond: settings.maxOpsPerSecond ?? 0,
    },
    {
      clock: deps.clock,
      logger: deps.logger,
      ...(deps.registry === undefined ? {} : { registry: deps.registry }),
    },
  );
}

/** Everything but where the section was written (moving it in the file changes nothing). */
function settingsKeyOf(state: StateServiceSettings): string {
  const { source: _source, ...rest } = state as StateServiceSettings & { source?: unknown };
  return JSON.stringify(rest);
}
