// The DAG views' model (docs/dashboard.md "DAG cards and the run drawer"): the `/dags…` wire
// shapes, a DAG's card (latest run, run tally, schedule in English, next fire), the task graph
// laid out by dependency (one column per depth, rows ordered to keep edges short), and each
// task's state rolled up from the run document — a mapped task is one node summarising its
// instances, counted as the scheduler counts a mapped upstream (docs/dags.md "Task state
// machine"). Pure: the caller passes the instant to count from.
// Must not: read the clock or the network.
import type {
  DagTaskWire,
  DagWire,
  RunDocumentWire as RunDocument,
  RunKind,
  RunState,
  TaskEntryWire as TaskEntry,
  TaskState,
  XcomEntry,
} from '../../http/wire/index.js';
import { describeCron } from './cron-english.js';
import { previewSchedule } from './schedule-preview.js';

export type { RunDocument, RunKind, RunState, TaskEntry, TaskState, XcomEntry };

export type {
  DagBackfillWire,
  DagCancelWire,
  DagDecisionWire,
  DagRunSummaryWire,
  DagRunsWire,
  DagTaskWire,
  DagTriggerWire,
  DagWire,
  XcomWire,
} from '../../http/wire/index.js';
export type TaskType = DagTaskWire['type'];

export const RUN_STATE_ORDER: readonly RunState[] = ['running', 'failed', 'success'];

/** A DAG card: what one glance at a DAG needs. */
export interface DagCard {
  readonly name: string;
  readonly enabled: boolean;
  readonly taskCount: number;
  readonly schedule: string | null;
  readonly english: string | null;
  /** The zone the schedule is read in; `local` (the daemon's time) is previewed in the browser's. */
  readonly timezone: string;
  /** The next scheduled instant, in that zone. */
  readonly nextFireMs: number | null;
  readonly latest: NonNullable<DagWire['latestRun']> | null;
  /** `3 success · 1 failed` over the runs the store keeps; '' without runs. */
  readonly tally: string;
  readonly totalRuns: number;
}

export function dagCard(wire: DagWire, nowMs: number): DagCard {
  const schedule = wire.schedule ?? null;
  // A daemon that does not send `timezone` reads the schedule in UTC (the config's default).
  const timezone = wire.timezone === undefined ? 'UTC' : (wire.timezone ?? 'local');
  const zone = timezone === 'local' ? Intl.DateTimeFormat().resolvedOptions().timeZone : timezone;
  let nextFireMs: number | null = null;
  if (schedule !== null && wire.enabled) {
    const preview = previewSchedule(schedule, zone, nowMs, 1);
    if (preview.kind === 'ok') nextFireMs = preview.fires[0]?.atMs ?? null;
  }
  const counts = wire.runCounts ?? {};
  const tally = RUN_STATE_ORDER.filter((state) => (counts[state] ?? 0) > 0)
    .map((state) => `${counts[state]} ${state}`)
    .join(' · ');
  return {
    name: wire.name,
    enabled: wire.enabled,
    taskCount: wire.tasks.length,
    schedule,
    english: schedule === null ? null : describeCron(schedule),
    timezone,
    nextFireMs,
    latest: wire.latestRun ?? null,
    tally,
    totalRuns: wire.totalRuns ?? 0,
  };
}

/**
 * How a task or run state shows: glyph and word (status is never colour alone) and the status
 * class that colours it (the job table's palette, so the colour-vision modes apply).
 */
export interface StateMeta {
  readonly glyph: string;
  readonly label: string;
  readonly tone: 'ok' | 'failed' | 'running' | 'pending' | 'disabled' | 'unknown';
}

export const STATE_META: Readonly<Record<NodeState | RunState, StateMeta>> = {
  pending: { glyph: '○', label: 'pending', tone: 'pending' },
  running: { glyph: '▶', label: 'running', tone: 'running' },
  up_for_retry: { glyph: '↻', label: 'up for retry', tone: 'unknown' },
  success: { glyph: '✓', label: 'success', tone: 'ok' },
  failed: { glyph: '✕', label: 'failed', tone: 'failed' },
  skipped: { glyph: '–', label: 'skipped', tone: 'disabled' },
  upstream_failed: { glyph: '⤫', label: 'upstream failed', tone: 'failed' },
  expanded: { glyph: '▶', label: 'expanded', tone: 'running' },
  absent: { glyph: '·', label: 'not in this run', tone: 'disabled' },
};

// ---------------------------------------------------------------------------------------------
// Graph layout

export interface GraphNodePosition {
  readonly id: string;
  /** Column: the longest dependency path from a task without upstreams. */
  readonly layer: number;
  /** Row within the column. */
  readonly row: number;
}

export interface GraphLayout {
  readonly nodes: readonly GraphNodePosition[];
  readonly edges: readonly { readonly from: string; readonly to: string }[];
  readonly layers: number;
  /** The tallest column's height. */
  readonly rows: number;
}

/**
 * Lays the tasks out left to right by dependency. Columns are depths (a task sits one right of
 * its deepest upstream); within a column, tasks are ordered by the mean row of their upstreams
 * (ties keep the configuration's order), which keeps most edges short and uncrossed. Unknown
 * upstreams are ignored and a cycle (the configuration refuses them) cannot loop.
 */
export function layoutGraph(tasks: readonly Pick<DagTaskWire, 'id' | 'dependsOn'>[]): GraphLayout {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const depthOf = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0;
    visiting.add(id);
    let d = 0;
    for (const up of byId.get(id)?.dependsOn ?? [])
      if (byId.has(up)) d = Math.max(d, depthOf(up) + 1);
    visiting.delete(id);
    depth.set(id, d);
    return d;
  };
  const columns: string[][] = [];
  for (const task of tasks) (columns[depthOf(task.id)] ??= []).push(task.id);
  const rowOf = new Map<string, number>();
  const order = tasks.map((task) => task.id);
  for (const column of columns) {
    if (column === undefined) continue;
    const key = (id: string): number => {
      const ups = (byId.get(id)?.dependsOn ?? []).filter((up) => rowOf.has(up));
      return ups.length === 0 ? -1 : ups.reduce((sum, up) => sum + rowOf.get(up)!, 0) / ups.length;
    };
    const sorted = [...column].sort(
      (a, b) => key(a) - key(b) || order.indexOf(a) - order.indexOf(b),
    );
    sorted.forEach((id, row) => rowOf.set(id, row));
  }
  const edges = tasks.flatMap((task) =>
    task.dependsOn.filter((up) => byId.has(up)).map((up) => ({ from: up, to: task.id })),
  );
  return {
    nodes: tasks.map((task) => ({
      id: task.id,
      layer: depth.get(task.id)!,
      row: rowOf.get(task.id)!,
    })),
    edges,
    layers: columns.length,
    rows: Math.max(0, ...columns.map((column) => column?.length ?? 0)),
  };
}

// ---------------------------------------------------------------------------------------------
// State roll-up

/** What a node of the graph shows: a task's state, or a mapped group's summary. */
export type NodeState = TaskState | 'absent';

export interface GraphNodeView {
  readonly id: string;
  readonly type: TaskType;
  /** `absent`: the task was added to the DAG after this run was created (the run ignores it). */
  readonly state: NodeState;
  readonly awaitingApproval: boolean;
  readonly attempt: number;
  /** The task keys whose logs and details belong to this node (`id`, or every `id#i`). */
  readonly taskKeys: readonly string[];
  /** Mapped tasks: the instances by state, and how many there are (null before expansion). */
  readonly group: {
    readonly total: number;
    readonly counts: Readonly<Partial<Record<TaskState, number>>>;
  } | null;
}

const TERMINAL: ReadonlySet<TaskState> = new Set([
  'success',
  'failed',
  'skipped',
  'upstream_failed',
]);

export function isTerminalState(state: TaskState): boolean {
  return TERMINAL.has(state);
}

/**
 * A mapped instance's item: the run stores each expansion's items once, in `mapped`, and an
 * instance keeps its index (docs/dags.md "Runs"). Undefined for an entry that is not an instance.
 */
export function instanceItem(run: RunDocument, entry: TaskEntry): unknown {
  if (entry.mapIndex === null) return undefined;
  return run.mapped[entry.id]?.items[entry.mapIndex];
}

/** The instances of mapped task `id` (`id#0`, `id#1`, …), in index order. */
export function mappedInstances(run: RunDocument, id: string): TaskEntry[] {
  const prefix = `${id}#`;
  return Object.entries(run.tasks)
    .filter(([key, entry]) => key.startsWith(prefix) && entry.mapIndex !== null)
    .map(([, entry]) => entry)
    .sort((a, b) => (a.mapIndex ?? 0) - (b.mapIndex ?? 0));
}

/**
 * A mapped group's state as its downstreams see it: not started while every instance is
 * pending, running until every instance is terminal, then failed if one failed, skipped if one
 * was skipped, else success.
 */
export function rollUpInstances(states: readonly TaskState[]): TaskState {
  if (states.length === 0) return 'success';
  if (states.every((state) => state === 'pending')) return 'pending';
  if (states.some((state) => !TERMINAL.has(state))) return 'running';
  if (states.some((state) => state === 'failed' || state === 'upstream_failed')) return 'failed';
  if (states.some((state) => state === 'skipped')) return 'skipped';
  return 'success';
}

export function nodeView(task: DagTaskWire, run: RunDocument): GraphNodeView {
  const entry = run.tasks[task.id];
  if (!task.mapped) {
    return {
      id: task.id,
      type: task.type,
      state: entry?.state ?? 'absent',
      awaitingApproval: entry?.awaitingApproval === true && entry.state === 'running',
      attempt: entry?.attempt ?? 0,
      taskKeys: entry === undefined ? [] : [task.id],
      group: null,
    };
  }
  const instances = mappedInstances(run, task.id);
  const counts: Partial<Record<TaskState, number>> = {};
  for (const instance of instances) counts[instance.state] = (counts[instance.state] ?? 0) + 1;
  // Before expansion (and when expansion settled it) the placeholder's own state is the truth.
  const state: NodeState =
    entry === undefined
      ? instances.length === 0
        ? 'absent'
        : rollUpInstances(instances.map((instance) => instance.state))
      : entry.state === 'expanded'
        ? rollUpInstances(instances.map((instance) => instance.state))
        : entry.state;
  return {
    id: task.id,
    type: task.type,
    state,
    awaitingApproval: false,
    attempt: Math.max(0, ...instances.map((instance) => instance.attempt)),
    taskKeys: instances.map((instance) => `${task.id}#${instance.mapIndex}`),
    group:
      entry?.state === 'expanded' || instances.length > 0
        ? { total: instances.length, counts }
        : null,
  };
}

/** `3 success · 1 running` for a group (most advanced states first). */
export function groupText(counts: Readonly<Partial<Record<TaskState, number>>>): string {
  const order: readonly TaskState[] = [
    'running',
    'up_for_retry',
    'pending',
    'failed',
    'upstream_failed',
    'skipped',
    'success',
    'expanded',
  ];
  return order
    .filter((state) => (counts[state] ?? 0) > 0)
    .map((state) => `${counts[state]} ${state.replace('_', ' ')}`)
    .join(' · ');
}

/** Every task key waiting for a decision (approval gates in `running` with awaitingApproval). */
export function awaitingGates(run: RunDocument): string[] {
  return Object.entries(run.tasks)
    .filter(([, entry]) => entry.awaitingApproval === true && entry.state === 'running')
    .map(([key]) => key);
}

/** Done / total over the run's task entries (mapped placeholders count once, as their group). */
export function runProgress(run: RunDocument): { readonly done: number; readonly total: number } {
  const entries = Object.values(run.tasks).filter((entry) => entry.state !== 'expanded');
  return {
    done: entries.filter((entry) => TERMINAL.has(entry.state)).length,
    total: entries.length,
  };
}

/** `#dag/<name>/<runKey>` path pieces, percent-encoded. */
export function dagRunPath(dag: string, runKey: string, rest = ''): string {
  return `/dags/${encodeURIComponent(dag)}/runs/${encodeURIComponent(runKey)}${rest === '' ? '' : `/${rest}`}`;
}

export function dagPath(dag: string, rest = ''): string {
  return `/dags/${encodeURIComponent(dag)}${rest === '' ? '' : `/${rest}`}`;
}

/**
 * The backfill body for a date range picked in the page (`YYYY-MM-DD`, read as UTC days, both
 * inclusive), or the reason it cannot be sent.
 */
export function backfillBody(
  from: string,
  to: string,
):
  | { readonly ok: true; readonly body: { from: string; to: string } }
  | { readonly ok: false; readonly error: string } {
  const day = /^\d{4}-\d{2}-\d{2}$/;
  if (!day.test(from) || !day.test(to)) return { ok: false, error: 'Pick both dates' };
  if (to < from) return { ok: false, error: 'The end date is before the start date' };
  return { ok: true, body: { from: `${from}T00:00:00+00:00`, to: `${to}T23:59:59+00:00` } };
}
