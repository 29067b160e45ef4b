// The durable collaborator follows the state service: built for a new backend and served to the
// scheduler through its Swappable, closed with the old backend, just updated when the
// backend stayed. The Swappable is the scheduler's DurablePort (docs/architecture.md "Seams"): the
// scheduler was built with its read side and never learns that the backend changed.
// Ordering: at start-up the collaborator is swapped in BEFORE scheduler.start() (it decides
// the @reboot boot markers of the start-up pass); the durable boot sequence part
// (daemon-parts.ts) calls start() on it AFTER scheduler.start(). start() runs once per
// collaborator.
import type { Clock, Swappable } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type {
  CounterSnapshots,
  DurableProcessState,
  DurableState,
  ResumeCluster,
} from '../durable/index.js';
import type { DurableCollaborator, DurableHost } from '../scheduler/index.js';
import type { DaemonStateHandle } from '../state/index.js';
import type { Change, Reconciler } from './reconciler.js';

export interface DurableBackendDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  readonly env: NodeJS.ProcessEnv;
  readonly scheduler: DurableHost;
  readonly counters: CounterSnapshots;
  /**
   * Epoch ms of the scheduler's start-up pass: catch-up owes only the slots before it. Read when
   * a collaborator is built (the start instant is taken before the first one).
   */
  readonly schedulerStartedAtMs: () => number;
  /** The daemon's per-process token (12 hex): in-flight records carry it. */
  readonly processToken: string;
  readonly secretValues: (runId: string) => Promise<readonly string[]> | undefined;
  /** The cluster, for cross-node retry resume. */
  readonly cluster: ResumeCluster;
  /** The scheduler's durable port; this reconciler is its only writer. */
  readonly serving: Swappable<DurableCollaborator>;
}

export function durableBackendReconciler(
  deps: DurableBackendDeps,
): Reconciler<DurableState, Change<DaemonStateHandle>> {
  // What survives a state-section reload (the process token, the once-per-process steps):
  // created with the first collaborator, owned here.
  let process: DurableProcessState | undefined;
  return async (current, config, state) => {
    if (current !== undefined && state.next === state.previous) {
      current.updateConfig(config);
      return current;
    }
    if (current !== undefined) {
      deps.serving.swap(null);
      // The old backend's write queue is already closed; the new backend keeps snapshotting.
      await current.close({ finalSnapshot: false });
    }
    const handle = state.next;
    if (handle === undefined || config.state === null) return undefined;
    const { createDurableState, createDurableProcessState } = await import('../durable/index.js');
    process ??= createDurableProcessState(deps.processToken);
    const durable = createDurableState(
      { ...deps, schedulerStartedAtMs: deps.schedulerStartedAtMs(), process },
      {
        store: handle.service.store,
        writes: handle.writes,
        opened: handle.service.opened,
        openAttempt: handle.service.openAttempt,
        topology: handle.topology,
        lockFidelity: handle.probeLocks,
      },
      config.state,
      config,
    );
    deps.serving.swap(durable);
    return durable;
  };
}
