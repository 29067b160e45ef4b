// The run document at the store's edge (docs/dags.md "Runs"): the body as stored — the
// reference's shape, instants in epoch seconds (floats) and the logical date in ISO text, so a
// Python node reads the runs we write and we read its — read strictly into the engine's
// RunDocument (epoch ms; a hostile or foreign body is refused, never guessed) and rendered back
// from it (docs/architecture.md "Domain values inside, wire formats at the edges"). The body's
// fields and units do not change here: only where they are converted.
// Must not: read a clock or the store, or keep a stored unit past the edge.
import { parseIsoInstantMs } from '../common/index.js';
import { renderRunResources, type RunResourcesWire } from '../resources/index.js';
import type { RunResources } from '../scheduler/index.js';
import { logicalDateText } from './run-keys.js';
import {
  RUN_KINDS,
  RUN_STATES,
  TASK_STATES,
  type MappedItems,
  type RunDocument,
  type RunEnd,
  type RunKind,
  type RunState,
  type TaskEntry,
  type TaskState,
} from './run-document.js';

/** One task entry as stored; instants in epoch seconds. */
export interface TaskEntryWire {
  readonly id: string;
  readonly mapIndex: number | null;
  readonly state: TaskState;
  readonly attempt: number;
  readonly proc: string | null;
  readonly pid: number | null;
  readonly host: string | null;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
  readonly exitCode: number | null;
  readonly failReason: string | null;
  readonly resources: unknown;
  readonly updatedAt: number;
  readonly mapped?: true;
  readonly retryAt?: number;
  readonly pokeCount?: number;
  readonly nextPokeAt?: number;
  readonly firstPokeAt?: number;
  readonly approval?: {
    readonly decision: 'approved' | 'rejected';
    readonly by: string;
    readonly at: number;
  };
  readonly awaitingApproval?: true;
}

export type RunEndWire =
  | { readonly kind: 'cancelled'; readonly by: string; readonly at: number }
  | {
      readonly kind: 'too-large';
      readonly bytes: number;
      readonly limit: number;
      readonly at: number;
    };

/** A run document as stored and served (GET /dags/{name}/runs/{runKey}). */
export interface RunDocumentWire {
  readonly dag: string;
  readonly runKey: string;
  readonly runId: string;
  /** ISO (UTC, Python isoformat) or null for manual runs. */
  readonly logicalDate: string | null;
  readonly kind: RunKind;
  readonly state: RunState;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly tasks: Readonly<Record<string, TaskEntryWire>>;
  readonly mapped: Readonly<
    Record<string, { readonly items: readonly unknown[]; readonly expandedAt: number }>
  >;
  readonly ended?: RunEndWire;
}

// Plain scaling, no rounding: an instant this build wrote (whole ms) comes back exactly, and one
// a Python node wrote keeps its sub-millisecond digits.
const toMs = (seconds: number): number => seconds * 1000;
const toSeconds = (ms: number): number => ms / 1000;
const toMsOrNull = (seconds: number | null): number | null =>
  seconds === null ? null : toMs(seconds);
const toSecondsOrNull = (ms: number | null): number | null => (ms === null ? null : toSeconds(ms));

/**
 * An attempt's `resources` as stored: the totals of a run record (docs/configuration.md
 * "monitorResources"), without the series (the document has a byte cap); null when not sampled.
 */
export function storedResources(resources: RunResources | null): RunResourcesWire | null {
  return resources === null ? null : renderRunResources(resources, false);
}

// ---- rendering ------------------------------------------------------------------------------------

function entryBody(entry: TaskEntry): TaskEntryWire {
  const body: { -readonly [K in keyof TaskEntryWire]: TaskEntryWire[K] } = {
    id: entry.id,
    mapIndex: entry.mapIndex,
    state: entry.state,
    attempt: entry.attempt,
    proc: entry.proc,
    pid: entry.pid,
    host: entry.host,
    startedAt: toSecondsOrNull(entry.startedAtMs),
    finishedAt: toSecondsOrNull(entry.finishedAtMs),
    exitCode: entry.exitCode,
    failReason: entry.failReason,
    resources: entry.resources,
    updatedAt: toSeconds(entry.updatedAtMs),
  };
  if (entry.mapped === true) body.mapped = true;
  if (entry.retryAtMs !== undefined) body.retryAt = toSeconds(entry.retryAtMs);
  if (entry.pokeCount !== undefined) body.pokeCount = entry.pokeCount;
  if (entry.nextPokeAtMs !== undefined) body.nextPokeAt = toSeconds(entry.nextPokeAtMs);
  if (entry.firstPokeAtMs !== undefined) body.firstPokeAt = toSeconds(entry.firstPokeAtMs);
  if (entry.approval !== undefined) {
    const { decision, by, atMs } = entry.approval;
    body.approval = { decision, by, at: toSeconds(atMs) };
  }
  if (entry.awaitingApproval === true) body.awaitingApproval = true;
  return body;
}

function endBody(end: RunEnd): RunEndWire {
  if (end.kind === 'cancelled') return { kind: 'cancelled', by: end.by, at: toSeconds(end.atMs) };
  return { kind: 'too-large', bytes: end.bytes, limit: end.limit, at: toSeconds(end.atMs) };
}

/** A run's stored logical date and times (a run summary's, and the body's). */
export function runTimesBody(
  doc: RunDocument,
): Pick<RunDocumentWire, 'logicalDate' | 'createdAt' | 'updatedAt'> {
  return {
    logicalDate: doc.logicalDateMs === null ? null : logicalDateText(doc.logicalDateMs),
    createdAt: toSeconds(doc.createdAtMs),
    updatedAt: toSeconds(doc.updatedAtMs),
  };
}

/** The body to store (and to serve) for `doc`. */
export function runDocumentBody(doc: RunDocument): RunDocumentWire {
  const tasks: Record<string, TaskEntryWire> = {};
  for (const [key, entry] of Object.entries(doc.tasks)) tasks[key] = entryBody(entry);
  const mapped: Record<string, { items: readonly unknown[]; expandedAt: number }> = {};
  for (const [id, record] of Object.entries(doc.mapped)) {
    mapped[id] = { items: record.items, expandedAt: toSeconds(record.expandedAtMs) };
  }
  const { logicalDate, createdAt, updatedAt } = runTimesBody(doc);
  return {
    dag: doc.dag,
    runKey: doc.runKey,
    runId: doc.runId,
    logicalDate,
    kind: doc.kind,
    state: doc.state,
    createdAt,
    updatedAt,
    tasks,
    mapped,
    ...(doc.ended === undefined ? {} : { ended: endBody(doc.ended) }),
  };
}

// ---- reading a stored body ------------------------------------------------------------------------

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

function oneOf<T extends string>(values: readonly T[], value: unknown, what: string): T {
  const found = values.find((candidate) => candidate === value);
  return found ?? fail(`${what} is ${JSON.stringify(value) ?? 'missing'}`);
}

/** An optional number field of task `key`: absent is null; anything but a number is refused. */
function numberField(key: string, name: string, value: unknown): number | null {
  if (value === undefined || value === null) return null;
  return num(value) ? value : fail(`task '${key}' has a bad ${name}`);
}

function stringField(key: string, name: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return str(value) ? value : fail(`task '${key}' has a bad ${name}`);
}

/** A number field this build writes and readers may ignore: absent or null is left out. */
function extraNumber(key: string, name: string, value: unknown): number | undefined {
  return numberField(key, name, value) ?? undefined;
}

function entryOf(key: string, raw: unknown): TaskEntry {
  if (!isObject(raw)) return fail(`task '${key}' is not an object`);
  const { id, mapIndex, attempt } = raw;
  if (!str(id)) return fail(`task '${key}' has no id`);
  if (!(mapIndex === null || mapIndex === undefined || (num(mapIndex) && mapIndex >= 0))) {
    return fail(`task '${key}' has a bad mapIndex`);
  }
  if (!(num(attempt) && attempt >= 0)) return fail(`task '${key}' has a bad attempt`);
  const startedAt = numberField(key, 'startedAt', raw['startedAt']);
  const finishedAt = numberField(key, 'finishedAt', raw['finishedAt']);
  const entry: { -readonly [K in keyof TaskEntry]: TaskEntry[K] } = {
    id,
    mapIndex: mapIndex ?? null,
    state: oneOf(TASK_STATES, raw['state'], `the state of task '${key}'`),
    attempt,
    proc: stringField(key, 'proc', raw['proc']),
    pid: numberField(key, 'pid', raw['pid']),
    host: stringField(key, 'host', raw['host']),
    startedAtMs: toMsOrNull(startedAt),
    finishedAtMs: toMsOrNull(finishedAt),
    exitCode: numberField(key, 'exitCode', raw['exitCode']),
    failReason: stringField(key, 'failReason', raw['failReason']),
    resources: raw['resources'] ?? null,
    updatedAtMs: num(raw['updatedAt']) ? toMs(raw['updatedAt']) : 0,
  };
  if (raw['mapped'] === true) entry.mapped = true;
  // An instance's `mapItem` (the reference's copy of mapped[id].items[i]) is not kept: the item
  // is read from `mapped` (mapItemOf), as the reference itself reads it.
  const retryAt = extraNumber(key, 'retryAt', raw['retryAt']);
  if (retryAt !== undefined) entry.retryAtMs = toMs(retryAt);
  const pokeCount = extraNumber(key, 'pokeCount', raw['pokeCount']);
  if (pokeCount !== undefined) entry.pokeCount = pokeCount;
  const nextPokeAt = extraNumber(key, 'nextPokeAt', raw['nextPokeAt']);
  if (nextPokeAt !== undefined) entry.nextPokeAtMs = toMs(nextPokeAt);
  const firstPokeAt = extraNumber(key, 'firstPokeAt', raw['firstPokeAt']);
  if (firstPokeAt !== undefined) entry.firstPokeAtMs = toMs(firstPokeAt);
  if (raw['awaitingApproval'] === true) entry.awaitingApproval = true;
  const approval = raw['approval'];
  if (isObject(approval)) {
    entry.approval = {
      decision: oneOf(['approved', 'rejected'], approval['decision'], `the approval of '${key}'`),
      by: str(approval['by']) ? approval['by'] : '',
      atMs: num(approval['at']) ? toMs(approval['at']) : 0,
    };
  }
  return entry;
}

/** A stored body as a RunDocument; throws RunDocumentError naming what is wrong. */
export function readRunDocument(body: unknown): RunDocument {
  if (!isObject(body)) return fail('the body is not an object');
  const { dag, runKey, runId, logicalDate, createdAt, updatedAt, tasks, mapped } = body;
  if (!str(dag) || !str(runKey) || !str(runId)) return fail('dag, runKey or runId is missing');
  const logicalDateMs = logicalDateOf(logicalDate);
  if (!num(createdAt)) return fail('createdAt is not a number');
  if (!isObject(tasks)) return fail('tasks is not an object');
  const entries: Record<string, TaskEntry> = {};
  for (const [key, raw] of Object.entries(tasks)) entries[key] = entryOf(key, raw);
  const mappedItems: Record<string, MappedItems> = {};
  if (isObject(mapped)) {
    for (const [id, raw] of Object.entries(mapped)) {
      const items: unknown = isObject(raw) ? raw['items'] : undefined;
      if (!isObject(raw) || !Array.isArray(items)) return fail(`mapped '${id}' has no items`);
      mappedItems[id] = {
        items,
        expandedAtMs: num(raw['expandedAt']) ? toMs(raw['expandedAt']) : 0,
      };
    }
  }
  const ended = runEndOf(body['ended']);
  return {
    dag,
    runKey,
    runId,
    logicalDateMs,
    kind: oneOf(RUN_KINDS, body['kind'], 'kind'),
    state: oneOf(RUN_STATES, body['state'], 'state'),
    createdAtMs: toMs(createdAt),
    updatedAtMs: toMs(num(updatedAt) ? updatedAt : createdAt),
    tasks: entries,
    mapped: mappedItems,
    ...(ended === undefined ? {} : { ended }),
  };
}

/** The logical date's instant: null for a manual run; text that is not an ISO instant is refused. */
function logicalDateOf(raw: unknown): number | null {
  if (raw === undefined || raw === null) return null;
  if (!str(raw)) return fail('logicalDate is not a string');
  const ms = parseIsoInstantMs(raw);
  return Number.isFinite(ms) ? ms : fail(`logicalDate ${JSON.stringify(raw)} is not an instant`);
}

/** This build's `ended` field; anything else there (another writer's) is left out. */
function runEndOf(raw: unknown): RunEnd | undefined {
  if (!isObject(raw) || !num(raw['at'])) return undefined;
  const atMs = toMs(raw['at']);
  if (raw['kind'] === 'cancelled' && str(raw['by']))
    return { kind: 'cancelled', by: raw['by'], atMs };
  if (raw['kind'] === 'too-large' && num(raw['bytes']) && num(raw['limit'])) {
    return { kind: 'too-large', bytes: raw['bytes'], limit: raw['limit'], atMs };
  }
  return undefined;
}
