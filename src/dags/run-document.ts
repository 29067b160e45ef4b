// The dag_run document (docs/dags.md "Runs") as the engine works on it: one mutable store
// document per run, its instants in epoch ms (docs/architecture.md "Domain values inside, wire
// formats at the edges"). This module owns that shape, a fresh run, and the run-state roll-up; the
// stored body — the reference's shape, epoch seconds and ISO text, so a Python node reads the runs
// we write and we read its — is read and rendered only in run-document-wire.ts.
// Must not: read a clock or the store (callers hand in instants), or hold a stored unit (seconds,
// ISO text).
import type { ResolvedDag } from '../config/index.js';

export const TASK_STATES = [
  'pending',
  'running',
  'up_for_retry',
  'success',
  'failed',
  'skipped',
  'upstream_failed',
  'expanded',
] as const;
export type TaskState = (typeof TASK_STATES)[number];
export const TERMINAL_TASK_STATES: ReadonlySet<TaskState> = new Set([
  'success',
  'failed',
  'skipped',
  'upstream_failed',
]);
export const RUN_STATES = ['running', 'success', 'failed'] as const;
export type RunState = (typeof RUN_STATES)[number];
export const RUN_KINDS = ['scheduled', 'catchup', 'backfill', 'manual'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export interface ApprovalDecision {
  readonly decision: 'approved' | 'rejected';
  readonly by: string;
  readonly atMs: number;
}

/** One task (or mapped instance) of a run. Instants are epoch ms. */
export interface TaskEntry {
  readonly id: string;
  readonly mapIndex: number | null;
  readonly state: TaskState;
  /** Attempts started so far (0 while pending); YACRON2_ATTEMPT is attempt - 1. */
  readonly attempt: number;
  /** The daemon process (`<proc>` token) running the current attempt, or null. */
  readonly proc: string | null;
  readonly pid: number | null;
  readonly host: string | null;
  readonly startedAtMs: number | null;
  readonly finishedAtMs: number | null;
  readonly exitCode: number | null;
  readonly failReason: string | null;
  /**
   * What a monitored attempt used, as stored (run-document-wire.ts storedResources); null when it
   * was not sampled. Another writer's value is kept as read.
   */
  readonly resources: unknown;
  readonly updatedAtMs: number;
  /** An unexpanded mapped placeholder. */
  readonly mapped?: true;
  /** up_for_retry: when the next attempt is due (this build's field; readers ignore it). */
  readonly retryAtMs?: number;
  readonly pokeCount?: number;
  readonly nextPokeAtMs?: number;
  readonly firstPokeAtMs?: number;
  readonly approval?: ApprovalDecision;
  readonly awaitingApproval?: true;
}

export interface MappedItems {
  readonly items: readonly unknown[];
  readonly expandedAtMs: number;
}

/**
 * Why a run ended other than by its tasks' outcomes (this build's field; the reference and older
 * builds ignore it and see a failed run): cancelled through the control API, or failed because a
 * change would have made its document too large to store (docs/dags.md "Ending a run early").
 */
export type RunEnd =
  | { readonly kind: 'cancelled'; readonly by: string; readonly atMs: number }
  | {
      readonly kind: 'too-large';
      readonly bytes: number;
      readonly limit: number;
      readonly atMs: number;
    };

export interface RunDocument {
  readonly dag: string;
  readonly runKey: string;
  readonly runId: string;
  /** The logical instant (stored as ISO text: run-keys.ts), or null for manual runs. */
  readonly logicalDateMs: number | null;
  readonly kind: RunKind;
  readonly state: RunState;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  /** By task key (`id`, or `id#i` for a mapped instance). */
  readonly tasks: Readonly<Record<string, TaskEntry>>;
  /**
   * The items of each expanded task, stored once: an instance `id#i` has item `items[i]`
   * (mapItemOf). Documents of the old shape also carry a copy in each instance (`mapItem`);
   * the reader drops it, so a run this build rewrites stores its items once.
   */
  readonly mapped: Readonly<Record<string, MappedItems>>;
  readonly ended?: RunEnd;
}

/** A mapped instance's item (undefined for an entry that is not one). */
export function mapItemOf(doc: RunDocument, entry: TaskEntry): unknown {
  if (entry.mapIndex === null) return undefined;
  return doc.mapped[entry.id]?.items[entry.mapIndex];
}

/** `id` or `id#i`. */
export function taskKeyOf(id: string, mapIndex: number | null): string {
  return mapIndex === null ? id : `${id}#${mapIndex}`;
}

export function isTerminal(state: TaskState): boolean {
  return TERMINAL_TASK_STATES.has(state);
}

/** A pending entry for task `id` (a mapped placeholder when `mapped`). */
export function pendingEntry(id: string, nowMs: number, mapped = false): TaskEntry {
  return {
    id,
    mapIndex: null,
    state: 'pending',
    attempt: 0,
    proc: null,
    pid: null,
    host: null,
    startedAtMs: null,
    finishedAtMs: null,
    exitCode: null,
    failReason: null,
    resources: null,
    updatedAtMs: nowMs,
    ...(mapped ? { mapped: true as const } : {}),
  };
}

export interface NewRun {
  readonly runKey: string;
  readonly runId: string;
  readonly logicalDateMs: number | null;
  readonly kind: RunKind;
}

/** A fresh run of `dag`: every task of the DAG as it is now, pending. */
export function newRunDocument(dag: ResolvedDag, run: NewRun, nowMs: number): RunDocument {
  const tasks: Record<string, TaskEntry> = {};
  for (const task of dag.tasks) {
    tasks[task.id] = pendingEntry(task.id, nowMs, task.kind === 'task' && task.expand !== null);
  }
  return {
    dag: dag.name,
    ...run,
    state: 'running',
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    tasks,
    mapped: {},
  };
}

/**
 * The run's state from its entries: running while any entry is not terminal (an expanded
 * placeholder counts through its instances), then failed if any failed or upstream_failed, else
 * success (skipped tasks do not fail a run).
 */
export function rollUpRunState(tasks: Readonly<Record<string, TaskEntry>>): RunState {
  let failed = false;
  for (const entry of Object.values(tasks)) {
    if (entry.state === 'expanded') continue;
    if (!isTerminal(entry.state)) return 'running';
    if (entry.state === 'failed' || entry.state === 'upstream_failed') failed = true;
  }
  return failed ? 'failed' : 'success';
}

/** Counts by task state (the run summaries' `taskStates`). */
export function countTaskStates(doc: RunDocument): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of Object.values(doc.tasks))
    counts[entry.state] = (counts[entry.state] ?? 0) + 1;
  return counts;
}
