// Builds the durable collaborator for the daemon: the real boot-identity source, the pid probe
// and the redactor around DurableState. Loaded only when a config has a `state` section. The
// daemon serves the result to the scheduler through a Swappable (the scheduler's
// DurablePort, docs/architecture.md "Seams"); nothing here touches the scheduler's wiring.
import { readFileSync } from 'node:fs';
import type { Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type { ResolvedConfig, ResolvedState } from '../config/index.js';
import type { DurableHost } from '../scheduler/index.js';
import type { ResumeCluster } from './types.js';
import type { StateStore, StateWriteQueue } from '../state/index.js';
import { readBootIdentity, sameBoot } from './boot-id.js';
import { DurableState, type CounterSnapshots, type DurableProcessState } from './durable-state.js';
import { redactSecrets } from './redact.js';

export interface AttachDurableDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  readonly env: NodeJS.ProcessEnv;
  readonly scheduler: DurableHost;
  readonly counters?: CounterSnapshots;
  readonly process: DurableProcessState;
  readonly schedulerStartedAtMs: number;
  readonly secretValues?: (runId: string) => Promise<readonly string[]> | undefined;
  /** The daemon's cluster, for cross-node retry resume. */
  readonly cluster?: ResumeCluster;
}

export interface DurableBackend {
  readonly store: StateStore;
  readonly writes: StateWriteQueue;
  readonly opened: Promise<boolean>;
  /** How the open attempt under way ends (true: open); absent: no attempt to wait for. */
  readonly openAttempt?: () => Promise<boolean>;
  /** The resolved topology (read after the store opened). */
  readonly topology?: () => 'single-node' | 'shared';
  /** Whether the store's flock excludes across processes (rejects with the reason if not). */
  readonly lockFidelity?: () => Promise<void>;
}

/** The once-per-process state, with the daemon's 12-hex process token (its one source). */
export function createDurableProcessState(token: string): DurableProcessState {
  return {
    token,
    armedRetries: new Map(),
    historyRehydrated: false,
    countersSeeded: false,
    catchupEvaluated: false,
    live: new Map(),
    prespawned: new Map(),
  };
}

/** A DurableState over the backend (not started, not yet serving the scheduler). */
export function createDurableState(
  deps: AttachDurableDeps,
  backend: DurableBackend,
  settings: ResolvedState,
  config: ResolvedConfig,
): DurableState {
  return new DurableState(
    {
      clock: deps.clock,
      logger: deps.logger,
      host: deps.host,
      store: backend.store,
      writes: backend.writes,
      storeOpened: backend.opened,
      ...(backend.openAttempt === undefined ? {} : { storeOpenAttempt: backend.openAttempt }),
      scheduler: deps.scheduler,
      process: deps.process,
      schedulerStartedAtMs: deps.schedulerStartedAtMs,
      readBoot: () => readBootIdentity({ clock: deps.clock, env: deps.env }),
      sameBoot,
      pidAlive,
      ...(deps.counters === undefined ? {} : { counters: deps.counters }),
      redact: redactSecrets,
      ...(deps.secretValues === undefined ? {} : { secretValues: deps.secretValues }),
      ...(deps.cluster === undefined ? {} : { cluster: deps.cluster }),
      ...(backend.lockFidelity === undefined ? {} : { lockFidelity: backend.lockFidelity }),
      ...(backend.topology === undefined
        ? {}
        : { sharedStore: () => backend.topology?.() === 'shared' }),
    },
    settings,
    config,
  );
}

/**
 * Does a process with this pid exist? (EPERM: it exists, owned by someone else.) A zombie does
 * not count: an orphaned job that exited after the daemon crashed waits for init to reap it, and
 * an init that reaps late (or never, as in many containers) would keep its run unreconciled.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** Linux: the task's state in /proc/<pid>/stat is Z (zombie) or X (dead). False elsewhere. */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "<pid> (<comm>) <state> ...": comm may contain spaces and parentheses, so cut at the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}
