// Gathers a GcInventory from a live store for the pure planner (gc-plan.ts). Reads only, and
// reads the least it can: stream ages are looked up only for streams no recent manifest
// references. A store that cannot answer one question leaves that part "unknown", which the
// planner treats as keep; only an unreadable manifest history fails the whole inventory.
import { describeError } from '../common/index.js';
import {
  ARTIFACT_STREAM_PREFIX,
  DAG_ADVANCE_LEASE_PREFIX,
  DAG_RUN_DOC_PREFIX,
  classifyStream,
  parseDagRunNamespace,
} from './gc-rules.js';
import {
  referencesOf,
  type ArtifactRefs,
  type DagRunDoc,
  type GcInventory,
  type StreamAge,
} from './gc-plan.js';
import { readManifestHistory } from './manifest.js';
import type { BlobInfo, StateStore } from './types.js';

export interface InventoryOptions {
  readonly nowMs: number;
  readonly graceMs: number;
}

export async function gatherGcInventory(
  store: StateStore,
  options: InventoryOptions,
): Promise<GcInventory> {
  const { nowMs, graceMs } = options;
  const history = await readManifestHistory(store);
  const refs = referencesOf(history.entries, nowMs, graceMs);

  const streams: StreamAge[] = [];
  for (const name of await store.listStreams()) {
    const cls = classifyStream(name);
    const referenced =
      cls.kind === 'meta' ||
      cls.kind === 'unrecognised' ||
      (cls.kind === 'job' && refs.jobs.has(cls.job)) ||
      (cls.kind === 'host' && refs.hosts.has(cls.host));
    streams.push(referenced ? { name } : { name, newestWrittenAtMs: await newestOf(store, name) });
  }

  const dagAdvanceLeases = await orNull(() => store.listLeases(DAG_ADVANCE_LEASE_PREFIX));
  return {
    nowMs,
    manifests: history.entries,
    unreadableManifests: history.unreadable,
    streams,
    // Without the lease list a run's ownership is unknown: leave the dag runs alone too.
    dagRuns: dagAdvanceLeases === null ? null : await readDagRuns(store),
    dagAdvanceLeases: dagAdvanceLeases ?? [],
    artifactRefs: await readArtifactRefs(store),
    blobs: await orNull<BlobInfo[]>(() => store.listBlobs()),
  };
}

/**
 * The write time in the newest record's name; null when none is readable or the read fails. A
 * strict read: a newest record this build cannot read (a newer scheme, an I/O error) makes the
 * age unknown, i.e. kept, rather than aging the stream by an older record.
 */
async function newestOf(store: StateStore, stream: string): Promise<number | null> {
  try {
    const [newest] = await store.list(stream, { limit: 1, strict: true });
    return newest?.writtenAtMs ?? null;
  } catch {
    return null;
  }
}

async function readDagRuns(store: StateStore): Promise<DagRunDoc[] | null> {
  try {
    const runs: DagRunDoc[] = [];
    for (const ns of await store.listDocumentNamespaces(DAG_RUN_DOC_PREFIX)) {
      const dag = parseDagRunNamespace(ns);
      if (dag === undefined) continue;
      for (const doc of await store.listDocuments(ns)) {
        const { runId, state, updatedAt } = doc.body;
        runs.push({
          ns,
          dag,
          runKey: doc.key,
          runId: typeof runId === 'string' ? runId : null,
          state: typeof state === 'string' ? state : null,
          updatedAtMs: dagRunUpdatedAtMs(updatedAt, doc.modifiedAtMs),
        });
      }
    }
    return runs;
  } catch {
    return null;
  }
}

/** A dag_run body's `updatedAt` (epoch seconds) in ms, else the file's last write. */
export function dagRunUpdatedAtMs(updatedAt: unknown, modifiedAtMs: number): number {
  return typeof updatedAt === 'number' && Number.isFinite(updatedAt)
    ? updatedAt * 1000
    : modifiedAtMs;
}

/**
 * Every artifact record's blob. The sweep must see ALL of them: a stream that cannot be listed,
 * or a record quarantined while reading (it may have referenced a blob), stands the sweep down.
 */
async function readArtifactRefs(store: StateStore): Promise<ArtifactRefs> {
  try {
    const names = await store.listStreams(ARTIFACT_STREAM_PREFIX);
    const before = names.length === 0 ? 0 : await quarantinedSoFar(store);
    const byStream = new Map<string, string[]>();
    for (const name of names) {
      const hashes: string[] = [];
      for (const record of await store.list(name, { strict: true })) {
        const sha256 = record.data.sha256;
        if (typeof sha256 !== 'string') {
          return { ok: false, reason: `an artifact record in ${name} names no blob` };
        }
        hashes.push(sha256);
      }
      byStream.set(name, hashes);
    }
    if (names.length > 0 && (await quarantinedSoFar(store)) !== before) {
      return {
        ok: false,
        reason: 'an artifact record was unreadable (quarantined) during the scan',
      };
    }
    return { ok: true, byStream };
  } catch (error) {
    return { ok: false, reason: `the artifact records cannot be read: ${describeError(error)}` };
  }
}

async function quarantinedSoFar(store: StateStore): Promise<number> {
  const counts = (await store.describe()).quarantinedThisProcess;
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

async function orNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch {
    return null;
  }
}
