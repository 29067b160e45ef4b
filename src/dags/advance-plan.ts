// The next steps of one DAG run (docs/dags.md "Task state machine"): which entries to launch,
// settle (upstream_failed / skipped), hold for approval or expand, and whether the run is over —
// from the run document, the DAG and the instant. Readiness is judged only once every upstream is
// terminal (no fail-fast); a mapped upstream counts as one group.
// Must not: read a clock, a store or a process table (the run advancer gathers those).
import type { ResolvedDag, ResolvedDagTask } from '../config/index.js';
import {
  isTerminal,
  rollUpRunState,
  type RunDocument,
  type TaskEntry,
  type TaskState,
} from './run-document.js';

/** Mapped instances launched at most per pass (docs/dags.md "Dynamic mapping"). */
export const MAX_INSTANCE_LAUNCHES_PER_PASS = 32;

export type AdvanceAction =
  /** Start the entry's next attempt (or the sensor's next poke). */
  | { readonly kind: 'launch'; readonly taskKey: string }
  | {
      readonly kind: 'settle';
      readonly taskKey: string;
      readonly state: 'upstream_failed' | 'skipped';
      readonly reason: string | null;
    }
  /** An approval gate became ready: it waits in `running` for a decision. */
  | { readonly kind: 'await-approval'; readonly taskKey: string }
  /** A mapped placeholder became ready: read its upstream's XCom list and materialise. */
  | { readonly kind: 'expand'; readonly taskKey: string }
  | { readonly kind: 'finish'; readonly state: 'success' | 'failed' };

export interface AdvancePlan {
  readonly actions: readonly AdvanceAction[];
  /** The earliest retry or poke due later; null = nothing timed is waiting. */
  readonly wakeAtMs: number | null;
}

/** The state a dependency presents to its downstreams (a mapped group rolled up). */
export function upstreamState(doc: RunDocument, id: string): TaskState | undefined {
  const entry = doc.tasks[id];
  if (entry === undefined || entry.state !== 'expanded') return entry?.state;
  let result: TaskState = 'success';
  const prefix = `${id}#`;
  for (const [key, instance] of Object.entries(doc.tasks)) {
    if (!key.startsWith(prefix)) continue;
    if (!isTerminal(instance.state)) return 'running';
    if (instance.state === 'failed' || instance.state === 'upstream_failed') result = 'failed';
    else if (instance.state === 'skipped' && result === 'success') result = 'skipped';
  }
  return result;
}

type Readiness =
  | { readonly kind: 'wait' }
  | { readonly kind: 'ready' }
  | { readonly kind: 'settle'; readonly state: 'upstream_failed' | 'skipped' };

/** Readiness of a pending task under its trigger rule. */
export function readinessOf(task: ResolvedDagTask, doc: RunDocument): Readiness {
  const states: TaskState[] = [];
  for (const id of task.dependsOn) {
    const state = upstreamState(doc, id);
    // An upstream added to the DAG after the run was created is not part of this run.
    if (state === undefined) continue;
    if (!isTerminal(state)) return { kind: 'wait' };
    states.push(state);
  }
  switch (task.triggerRule) {
    case 'all_done':
      return { kind: 'ready' };
    case 'all_success':
      if (states.some((state) => state === 'failed' || state === 'upstream_failed')) {
        return { kind: 'settle', state: 'upstream_failed' };
      }
      if (states.includes('skipped')) return { kind: 'settle', state: 'skipped' };
      return { kind: 'ready' };
  }
}

/** The plan for one pass over `doc` at `nowMs`. */
export function planAdvance(dag: ResolvedDag, doc: RunDocument, nowMs: number): AdvancePlan {
  if (doc.state !== 'running') return { actions: [], wakeAtMs: null };
  const byId = new Map(dag.tasks.map((task) => [task.id, task]));
  const actions: AdvanceAction[] = [];
  let wakeAtMs: number | null = null;
  const wakeAt = (atMs: number): void => {
    wakeAtMs = wakeAtMs === null ? atMs : Math.min(wakeAtMs, atMs);
  };
  let instanceLaunches = 0;
  for (const [taskKey, entry] of Object.entries(doc.tasks)) {
    const task = byId.get(entry.id);
    if (task === undefined) {
      // Removed from the DAG since the run was created: nothing can run it.
      if (!isTerminal(entry.state) && entry.state !== 'expanded') {
        actions.push({
          kind: 'settle',
          taskKey,
          state: 'skipped',
          reason: 'the task is no longer in the DAG',
        });
      }
      continue;
    }
    const action = entryAction(task, taskKey, entry, doc, nowMs, wakeAt);
    if (action === null) continue;
    if (action.kind === 'launch' && entry.mapIndex !== null) {
      if (instanceLaunches >= MAX_INSTANCE_LAUNCHES_PER_PASS) continue;
      instanceLaunches += 1;
    }
    actions.push(action);
  }
  if (actions.length === 0) {
    const state = rollUpRunState(doc.tasks);
    if (state !== 'running') return { actions: [{ kind: 'finish', state }], wakeAtMs: null };
  }
  return { actions, wakeAtMs };
}

function entryAction(
  task: ResolvedDagTask,
  taskKey: string,
  entry: TaskEntry,
  doc: RunDocument,
  nowMs: number,
  wakeAt: (atMs: number) => void,
): AdvanceAction | null {
  switch (entry.state) {
    case 'pending': {
      // A mapped instance exists only once its group's upstreams allowed the expansion.
      const readiness =
        entry.mapIndex === null ? readinessOf(task, doc) : { kind: 'ready' as const };
      switch (readiness.kind) {
        case 'wait':
          return null;
        case 'settle':
          return { kind: 'settle', taskKey, state: readiness.state, reason: null };
        case 'ready':
          break;
      }
      if (task.kind === 'approval') return { kind: 'await-approval', taskKey };
      if (entry.mapped === true) return { kind: 'expand', taskKey };
      return { kind: 'launch', taskKey };
    }
    case 'up_for_retry': {
      const dueMs = entry.retryAtMs ?? 0;
      if (dueMs <= nowMs) return { kind: 'launch', taskKey };
      wakeAt(dueMs);
      return null;
    }
    case 'running': {
      // Only a sensor between pokes (its claim clears nextPokeAtMs) has something timed to do.
      if (task.kind !== 'sensor' || entry.nextPokeAtMs === undefined) return null;
      const dueMs = entry.nextPokeAtMs;
      if (dueMs <= nowMs) return { kind: 'launch', taskKey };
      wakeAt(dueMs);
      return null;
    }
    case 'expanded':
    case 'success':
    case 'failed':
    case 'skipped':
    case 'upstream_failed':
      return null;
  }
}
