// Per-node manifests (docs/durable-state.md "Garbage collection"): which job
// names, shared artifact scopes and dag names this node's loaded config can write, recorded in
// `manifests/<host>` at backend start and every 6 hours, in the reference's record
// `{at: ISO, dags, host, jobSetId, jobs, scopes}` (lists sorted). They are GC's only evidence that
// something is still wanted; this module builds, writes, prunes and reads them. It never
// deletes anything but this host's own old manifest records.
import { compareCodePoints, pythonIsoformatUtc } from '../common/index.js';
import { GLOBAL_SCOPE, MANIFEST_STREAM_PREFIX, manifestStream } from './gc-rules.js';
import type { StateRecord, StateStore } from './types.js';

/** What a node writes. */
export interface Manifest {
  readonly host: string;
  readonly jobSetId: string;
  /** Job names of the loaded config, sorted. */
  readonly jobs: readonly string[];
  /** Shared artifact scopes the config can write (`global` and every stateAllowedScopes). */
  readonly scopes: readonly string[];
  /** Dag names of the loaded config. */
  readonly dags: readonly string[];
}

/** A manifest as read back. `scopes`/`dags` are null when the writer predates them. */
export interface ManifestEntry {
  readonly host: string;
  readonly writtenAtMs: number;
  readonly jobSetId: string | null;
  readonly jobs: readonly string[];
  readonly scopes: readonly string[] | null;
  readonly dags: readonly string[] | null;
}

export interface ManifestJobInput {
  readonly name: string;
  readonly stateAllowedScopes: readonly string[];
}

export interface ManifestInput {
  readonly host: string;
  readonly jobSetId: string;
  readonly jobs: readonly ManifestJobInput[];
  readonly dags?: readonly string[];
}

export function buildManifest(input: ManifestInput): Manifest {
  const scopes = new Set<string>([GLOBAL_SCOPE]);
  for (const job of input.jobs) for (const scope of job.stateAllowedScopes) scopes.add(scope);
  return Object.freeze({
    host: input.host,
    jobSetId: input.jobSetId,
    jobs: Object.freeze(sortedUnique(input.jobs.map((job) => job.name))),
    scopes: Object.freeze(sortedUnique(scopes)),
    dags: Object.freeze(sortedUnique(input.dags ?? [])),
  });
}

export async function writeManifest(
  store: StateStore,
  manifest: Manifest,
  nowMs: number,
): Promise<StateRecord> {
  return store.append(manifestStream(manifest.host), {
    at: pythonIsoformatUtc(nowMs),
    dags: manifest.dags,
    host: manifest.host,
    jobSetId: manifest.jobSetId,
    jobs: manifest.jobs,
    scopes: manifest.scopes,
  });
}

/** Manifest records a host keeps at least (the reference's retention). */
export const MANIFESTS_KEPT = 512;

/**
 * Drop this host's manifest records that GC no longer needs: the newest MANIFESTS_KEPT, as the
 * reference keeps, and beyond them every record inside the retention window plus the newest one
 * older than it, so the history still provably spans the window (GC defers until it does; 512
 * six-hourly manifests span only 128 days, less than a longer gcGraceSeconds). Returns how many
 * were deleted.
 */
export async function pruneManifests(
  store: StateStore,
  host: string,
  nowMs: number,
  retainMs: number,
): Promise<number> {
  const stream = manifestStream(host);
  const records = await store.list(stream);
  if (records.length <= MANIFESTS_KEPT) return 0;
  const inside = records.filter((record) => record.writtenAtMs >= nowMs - retainMs).length;
  const keep = Math.max(MANIFESTS_KEPT, inside + 1);
  return records.length > keep ? store.prune(stream, keep) : 0;
}

/** A manifest record's data, or undefined when it is not a manifest this build understands. */
export function parseManifest(record: StateRecord): ManifestEntry | undefined {
  const data = record.data;
  const host = data.host;
  const jobs = stringList(data.jobs);
  if (typeof host !== 'string' || host === '' || jobs === undefined) return undefined;
  const scopes = data.scopes === undefined ? null : stringList(data.scopes);
  const dags = data.dags === undefined ? null : stringList(data.dags);
  // A present but malformed list is not "predates the field": refuse the whole record.
  if (scopes === undefined || dags === undefined) return undefined;
  return {
    host,
    writtenAtMs: record.writtenAtMs,
    jobSetId: typeof data.jobSetId === 'string' ? data.jobSetId : null,
    jobs,
    scopes,
    dags,
  };
}

export interface ManifestHistory {
  readonly entries: readonly ManifestEntry[];
  /** Records found in manifest streams that are not readable manifests. */
  readonly unreadable: number;
}

/** Every manifest record of the namespace (all hosts). Rejects when the store cannot answer. */
export async function readManifestHistory(store: StateStore): Promise<ManifestHistory> {
  const entries: ManifestEntry[] = [];
  let unreadable = 0;
  for (const stream of await store.listStreams(MANIFEST_STREAM_PREFIX)) {
    for (const record of await store.list(stream)) {
      const entry = parseManifest(record);
      if (entry === undefined) unreadable++;
      else entries.push(entry);
    }
  }
  return { entries, unreadable };
}

function stringList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.every((item) => typeof item === 'string') ? value : undefined;
}

/** Python's sorted(set(values)): code point order. */
function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareCodePoints);
}
