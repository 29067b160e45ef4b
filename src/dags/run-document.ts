// The dag_run document (docs/dags.md "Runs"): one mutable store document per run, in
// the reference's shape so a Python node reads the runs we write and we read its. This module owns
// the shape, reading a stored body strictly (a hostile or foreign body is refused, never guessed),
// a fresh run's body, and the run-state roll-up.
// Must not: read a clock or the store (callers hand in instants and bodies).
import type { ResolvedDag } from '../config/index.js';
import { renderRunResources, type RunResourcesWire } from '../resources/index.js';
import type { RunResources } from '../scheduler/index.js';

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
  /** Epoch seconds. */
  readonly at: number;
}

/** One task (or mapped instance) of a run. Times are epoch seconds (floats), as stored. */
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
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
  readonly exitCode: number | null;
  readonly failReason: string | null;
  /**
   * What a monitored attempt used, in a run record's shape (storedResources); null when it was
   * not sampled. Another writer's value is kept as read.
   */
  readonly resources: unknown;
  readonly updatedAt: number;
  /** An unexpanded mapped placeholder. */
  readonly mapped?: true;
  /** up_for_retry: when the next attempt is due (this build's field; readers ignore it). */
  readonly retryAt?: number;
  readonly pokeCount?: number;
  readonly nextPokeAt?: number;
  readonly firstPokeAt?: number;
  readonly approval?: ApprovalDecision;
  readonly awaitingApproval?: true;
}

export interface MappedItems {
  readonly items: readonly unknown[];
  readonly expandedAt: number;
}

/**
 * Why a run ended other than by its tasks' outcomes (this build's field; the reference and older
 * builds ignore it and see a failed run): cancelled through the control API, or failed because a
 * change would have made its document too large to store (docs/dags.md "Ending a run early").
 * Times are epoch seconds.
 */
export type RunEnd =
  | { readonly kind: 'cancelled'; readonly by: string; readonly at: number }
  | {
      readonly kind: 'too-large';
      readonly bytes: number;
      readonly limit: number;
      readonly at: number;
    };

export interface RunDocument {
  readonly dag: string;
  readonly runKey: string;
  readonly runId: string;
  /** ISO (UTC, Python isoformat) or null for manual runs. */
  readonly logicalDate: string | null;
  readonly kind: RunKind;
  readonly state: RunState;
  readonly createdAt: number;
  readonly updatedAt: number;
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

/**
 * An attempt's `resources` as stored: the totals of a run record (docs/configuration.md
 * "monitorResources"), without the series (the document has a byte cap); null when not sampled.
 */
export function storedResources(resources: RunResources | null): RunResourcesWire | null {
  return resources === null ? null : renderRunResources(resources, false);
}

/** `id` or `id#i`. */
export function taskKeyOf(id: string, mapIndex: number | null): string {
  return mapIndex === null ? id : `${id}#${mapIndex}`;
}

export function isTerminal(state: TaskState): boolean {
  return TERMINAL_TASK_STATES.has(state);
}

/** A pending entry for task `id` (a mapped placeholder when `mapped`). */
export function pendingEntry(id: string, nowSeconds: number, mapped = false): TaskEntry {
  return {
    id,
    mapIndex: null,
    state: 'pending',
    attempt: 0,
    proc: null,
    pid: null,
    host: null,
    startedAt: null,
    finishedAt: null,
    exitCode: null,
    failReason: null,
    resources: null,
    updatedAt: nowSeconds,
    ...(mapped ? { mapped: true as const } : {}),
  };
}

export interface NewRun {
  readonly runKey: string;
  readonly runId: string;
  readonly logicalDate: string | null;
  readonly kind: RunKind;
}

/** A fresh run of `dag`: every task of the DAG as it is now, pending. */
export function newRunDocument(dag: ResolvedDag, run: NewRun, nowSeconds: number): RunDocument {
  const tasks: Record<string, TaskEntry> = {};
  for (const task of dag.tasks) {
    tasks[task.id] = pendingEntry(
      task.id,
      nowSeconds,
      task.kind === 'task' && task.expand !== null,
    );
  }
  return {
    dag: dag.name,
    ...run,
    state: 'running',
    createdAt: nowSeconds,
    updatedAt: nowSeconds,
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

// ---- reading a stored body ----------------------------------------------------------------------

/** Why a stored body is not a run document this build can advance. */
export class RunDocumentError extends Error {}

function fail(what: string): never {
  throw new RunDocumentError(what);
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const str = (v: unknown): v is string => typeof v === 'string';
const numOrNull = (v: unknown): v is number | null => v === null || num(v);
const strOrNull = (v: unknown): v is string | null => v === null || str(v);

function oneOf<T extends string>(values: readonly T[], value: unknown, what: string): T {
  if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value as T;
  return fail(`${what} is ${JSON.stringify(value) ?? 'missing'}`);
}

function entryOf(key: string, raw: unknown): TaskEntry {
  if (!isObject(raw)) return fail(`task '${key}' is not an object`);
  const { id, mapIndex, attempt, proc, pid, host, startedAt, finishedAt, exitCode, failReason } =
    raw;
  if (!str(id)) fail(`task '${key}' has no id`);
  if (!(mapIndex === null || mapIndex === undefined || (num(mapIndex) && mapIndex >= 0))) {
    fail(`task '${key}' has a bad mapIndex`);
  }
  if (!(num(attempt) && attempt >= 0)) fail(`task '${key}' has a bad attempt`);
  const optionalNumbers = { pid, startedAt, finishedAt, exitCode } as const;
  for (const [name, value] of Object.entries(optionalNumbers)) {
    if (value !== undefined && !numOrNull(value)) fail(`task '${key}' has a bad ${name}`);
  }
  for (const [name, value] of Object.entries({ proc, host, failReason })) {
    if (value !== undefined && !strOrNull(value)) fail(`task '${key}' has a bad ${name}`);
  }
  const entry: Record<string, unknown> = {
    id,
    mapIndex: mapIndex ?? null,
    state: oneOf(TASK_STATES, raw['state'], `the state of task '${key}'`),
    attempt,
    proc: proc ?? null,
    pid: pid ?? null,
    host: host ?? null,
    startedAt: startedAt ?? null,
    finishedAt: finishedAt ?? null,
    exitCode: exitCode ?? null,
    failReason: failReason ?? null,
    resources: raw['resources'] ?? null,
    updatedAt: num(raw['updatedAt']) ? raw['updatedAt'] : 0,
  };
  if (raw['mapped'] === true) entry['mapped'] = true;
  // An instance's `mapItem` (the reference's copy of mapped[id].items[i]) is not kept: the item
  // is read from `mapped` (mapItemOf), as the reference itself reads it.
  for (const name of ['retryAt', 'pokeCount', 'nextPokeAt', 'firstPokeAt'] as const) {
    const value = raw[name];
    if (value === undefined || value === null) continue;
    if (!num(value)) fail(`task '${key}' has a bad ${name}`);
    entry[name] = value;
  }
  if (raw['awaitingApproval'] === true) entry['awaitingApproval'] = true;
  const approval = raw['approval'];
  if (isObject(approval)) {
    entry['approval'] = {
      decision: oneOf(['approved', 'rejected'], approval['decision'], `the approval of '${key}'`),
      by: str(approval['by']) ? approval['by'] : '',
      at: num(approval['at']) ? approval['at'] : 0,
    };
  }
  return entry as unknown as TaskEntry;
}

/** A stored body as a RunDocument; throws RunDocumentError naming what is wrong. */
export function readRunDocument(body: unknown): RunDocument {
  if (!isObject(body)) return fail('the body is not an object');
  const { dag, runKey, runId, logicalDate, createdAt, updatedAt, tasks, mapped } = body;
  if (!str(dag) || !str(runKey) || !str(runId)) fail('dag, runKey or runId is missing');
  if (!strOrNull(logicalDate ?? null)) fail('logicalDate is not a string');
  if (!num(createdAt)) fail('createdAt is not a number');
  if (!isObject(tasks)) fail('tasks is not an object');
  const entries: Record<string, TaskEntry> = {};
  for (const [key, raw] of Object.entries(tasks)) entries[key] = entryOf(key, raw);
  const mappedItems: Record<string, MappedItems> = {};
  if (isObject(mapped)) {
    for (const [id, raw] of Object.entries(mapped)) {
      if (!isObject(raw) || !Array.isArray(raw['items'])) fail(`mapped '${id}' has no items`);
      mappedItems[id] = {
        items: raw['items'] as unknown[],
        expandedAt: num(raw['expandedAt']) ? raw['expandedAt'] : 0,
      };
    }
  }
  const ended = runEndOf(body['ended']);
  return {
    dag,
    runKey,
    runId,
    logicalDate: (logicalDate ?? null) as string | null,
    kind: oneOf(RUN_KINDS, body['kind'], 'kind'),
    state: oneOf(RUN_STATES, body['state'], 'state'),
    createdAt,
    updatedAt: num(updatedAt) ? updatedAt : createdAt,
    tasks: entries,
    mapped: mappedItems,
    ...(ended === undefined ? {} : { ended }),
  };
}

/** This build's `ended` field; anything else there (another writer's) is left out. */
function runEndOf(raw: unknown): RunEnd | undefined {
  if (!isObject(raw) || !num(raw['at'])) return undefined;
  const at = raw['at'];
  if (raw['kind'] === 'cancelled' && str(raw['by']))
    return { kind: 'cancelled', by: raw['by'], at };
  if (raw['kind'] === 'too-large' && num(raw['bytes']) && num(raw['limit'])) {
    return { kind: 'too-large', bytes: raw['bytes'], limit: raw['limit'], at };
  }
  return undefined;
}
