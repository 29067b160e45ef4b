// GC planning (docs/durable-state.md "Garbage collection"): a pure function
// from an inventory of the store to what a pass would delete, each with its reason. Execution is
// gc-run.ts. Every rule is biased to KEEP: anything not positively recognised as garbage, or
// whose age or references cannot be established, stays.
import {
  DAG_ADVANCE_LEASE_PREFIX,
  TEMP_MAX_AGE_MS,
  classifyStream,
  dagXcomScope,
  parseDagXcomScope,
  TERMINAL_DAG_RUN_STATES,
} from './gc-rules.js';
import { isHeld } from './lease-logic.js';
import type { ManifestEntry } from './manifest.js';
import type { BlobInfo, LeaseState, SweepOptions } from './types.js';

/** A stream and the wall-clock write time of its newest readable record. */
export interface StreamAge {
  readonly name: string;
  /** null = no readable record; undefined = not looked up (the stream is referenced). */
  readonly newestWrittenAtMs?: number | null;
}

export interface DagRunDoc {
  /** The document namespace (`dagrun/<dag>`); the key is the run key. */
  readonly ns: string;
  readonly dag: string;
  readonly runKey: string;
  readonly runId: string | null;
  readonly state: string | null;
  /** The body's `updatedAt` (epoch s → ms), else the file's last write. */
  readonly updatedAtMs: number;
}

/** Every artifact record's blob reference, per stream; or why they could not all be read. */
export type ArtifactRefs =
  | { readonly ok: true; readonly byStream: ReadonlyMap<string, readonly string[]> }
  | { readonly ok: false; readonly reason: string };

export interface GcInventory {
  readonly nowMs: number;
  readonly manifests: readonly ManifestEntry[];
  /** Manifest records that could not be understood (their references are unknown). */
  readonly unreadableManifests: number;
  readonly streams: readonly StreamAge[];
  /** null = the dag_run documents could not be enumerated. */
  readonly dagRuns: readonly DagRunDoc[] | null;
  /** Every `dagadvance/` lease (also used to tell which runs are still owned). */
  readonly dagAdvanceLeases: readonly LeaseState[];
  readonly artifactRefs: ArtifactRefs;
  /** null = the blobs could not be listed. */
  readonly blobs: readonly BlobInfo[] | null;
}

export type GcTarget = 'stream' | 'doc' | 'lease' | 'blob';

export interface GcAction {
  readonly target: GcTarget;
  readonly name: string;
  readonly reason: string;
  /** Docs: which one, and the update time seen (deleted only if unchanged and still terminal). */
  readonly doc?: { readonly ns: string; readonly key: string; readonly updatedAtMs: number };
}

export type GcPlan =
  | {
      readonly status: 'deferred';
      readonly reason: string;
    }
  | {
      readonly status: 'ready';
      /** Phase 1: streams, dag_run documents and dead advance leases. */
      readonly actions: readonly GcAction[];
      /** Phase 2, only after a clean phase 1: orphaned payload blobs. */
      readonly blobActions: readonly GcAction[];
      /** Why the blob sweep stands down, or null when it runs. */
      readonly blobSweepSkipped: string | null;
      /** Recognised candidates (streams, dag runs, advance leases, blobs) that stay. */
      readonly kept: number;
      /** The crash-litter sweep (temps, old quarantine, idle orphan lock side-files). */
      readonly sweep: SweepOptions;
    };

/** What the recent manifests reference (recent = written within the grace). */
export interface References {
  readonly recent: readonly ManifestEntry[];
  readonly jobs: ReadonlySet<string>;
  readonly hosts: ReadonlySet<string>;
  readonly scopes: ReadonlySet<string>;
  readonly dags: ReadonlySet<string>;
  /** Artifact streams and dag runs are managed only once every recent manifest lists them. */
  readonly manageScopesAndDags: boolean;
}

export function referencesOf(
  manifests: readonly ManifestEntry[],
  nowMs: number,
  graceMs: number,
): References {
  const recent = manifests.filter((entry) => entry.writtenAtMs > nowMs - graceMs);
  const jobs = new Set<string>();
  const hosts = new Set<string>();
  const scopes = new Set<string>();
  const dags = new Set<string>();
  for (const entry of recent) {
    hosts.add(entry.host);
    for (const job of entry.jobs) jobs.add(job);
    for (const scope of entry.scopes ?? []) scopes.add(scope);
    for (const dag of entry.dags ?? []) dags.add(dag);
  }
  const manageScopesAndDags =
    recent.length > 0 && recent.every((entry) => entry.scopes !== null && entry.dags !== null);
  return { recent, jobs, hosts, scopes, dags, manageScopesAndDags };
}

/** null when GC may proceed, else why it must wait. */
export function deferralReason(
  inventory: Pick<GcInventory, 'manifests' | 'unreadableManifests' | 'nowMs'>,
  graceMs: number,
): string | null {
  if (inventory.unreadableManifests > 0) {
    return `${inventory.unreadableManifests} manifest record(s) cannot be read, so what they reference is unknown`;
  }
  if (inventory.manifests.length === 0) return 'no manifest has been recorded yet';
  const oldest = Math.min(...inventory.manifests.map((entry) => entry.writtenAtMs));
  const spanMs = inventory.nowMs - oldest;
  if (spanMs < graceMs) {
    return `the manifest history spans ${formatDuration(spanMs)}, less than the ${formatDuration(graceMs)} grace`;
  }
  return null;
}

export function planGc(inventory: GcInventory, graceMs: number): GcPlan {
  const deferred = deferralReason(inventory, graceMs);
  if (deferred !== null) return { status: 'deferred', reason: deferred };

  const { nowMs } = inventory;
  const cutoff = nowMs - graceMs;
  const grace = formatDuration(graceMs);
  const refs = referencesOf(inventory.manifests, nowMs, graceMs);
  const actions: GcAction[] = [];
  let kept = 0;

  // XCom scopes stay referenced while their dag_run document exists; unknown runs keep them all.
  const liveXcomScopes = new Set<string>();
  for (const run of inventory.dagRuns ?? []) {
    if (run.runId !== null) liveXcomScopes.add(dagXcomScope(run.dag, run.runId));
  }

  const idleFor = (stream: StreamAge): string | undefined => {
    const newest = stream.newestWrittenAtMs;
    if (newest === undefined || newest === null || newest >= cutoff) return undefined;
    return formatDuration(nowMs - newest);
  };

  for (const stream of inventory.streams) {
    const cls = classifyStream(stream.name);
    let reason: string | undefined;
    switch (cls.kind) {
      case 'meta':
      case 'unrecognised':
        continue;
      case 'job': {
        const idle = refs.jobs.has(cls.job) ? undefined : idleFor(stream);
        if (idle !== undefined) {
          reason = `job '${cls.job}' is in no manifest of the last ${grace} and the stream has been idle for ${idle}`;
        }
        break;
      }
      case 'host': {
        const idle = refs.hosts.has(cls.host) ? undefined : idleFor(stream);
        if (idle !== undefined) {
          reason = `host '${cls.host}' has written no manifest in the last ${grace} and the stream has been idle for ${idle}`;
        }
        break;
      }
      case 'artifact': {
        if (!refs.manageScopesAndDags || artifactScopeReferenced(cls.scope, refs, inventory)) {
          break;
        }
        if (!liveXcomScopes.has(cls.scope)) {
          const idle = idleFor(stream);
          if (idle !== undefined) {
            reason = `artifact scope '${cls.scope}' is referenced by no manifest of the last ${grace} nor a dag run, and has been idle for ${idle}`;
          }
        }
        break;
      }
    }
    if (reason === undefined) kept++;
    else actions.push({ target: 'stream', name: stream.name, reason });
  }

  const heldRuns = new Set(
    inventory.dagAdvanceLeases
      .filter((lease) => isHeld(lease, nowMs))
      .map((lease) => lease.name.slice(DAG_ADVANCE_LEASE_PREFIX.length)),
  );
  for (const run of inventory.dagRuns ?? []) {
    const removable =
      refs.manageScopesAndDags &&
      !refs.dags.has(run.dag) &&
      run.state !== null &&
      TERMINAL_DAG_RUN_STATES.has(run.state) &&
      !heldRuns.has(`${run.dag}/${run.runKey}`) &&
      run.updatedAtMs < cutoff;
    if (!removable) {
      kept++;
      continue;
    }
    actions.push({
      target: 'doc',
      name: `${run.ns}/${run.runKey}`,
      doc: { ns: run.ns, key: run.runKey, updatedAtMs: run.updatedAtMs },
      reason: `dag '${run.dag}' is in no manifest of the last ${grace} and this ${run.state ?? ''} run was last updated ${formatDuration(nowMs - run.updatedAtMs)} ago`,
    });
  }

  for (const lease of inventory.dagAdvanceLeases) {
    if (lease.expiresAtMs < cutoff && lease.updatedAtMs < cutoff) {
      actions.push({
        target: 'lease',
        name: lease.name,
        reason: `per-run advance lease expired ${formatDuration(nowMs - lease.expiresAtMs)} ago and last written ${formatDuration(nowMs - lease.updatedAtMs)} ago`,
      });
    } else {
      kept++;
    }
  }

  const blobs = planBlobSweep(inventory, actions, cutoff, nowMs);
  kept += blobs.kept;
  return {
    status: 'ready',
    actions,
    blobActions: blobs.actions,
    blobSweepSkipped: blobs.skipped,
    kept,
    sweep: {
      tempOlderThanMs: TEMP_MAX_AGE_MS,
      quarantineOlderThanMs: graceMs,
      orphanLocksIdleMs: graceMs,
    },
  };
}

function artifactScopeReferenced(scope: string, refs: References, inventory: GcInventory): boolean {
  if (refs.jobs.has(scope) || refs.scopes.has(scope)) return true;
  // Without the run documents nobody can tell a live run's XCom from a pruned one's.
  return inventory.dagRuns === null && parseDagXcomScope(scope) !== undefined;
}

/** Blobs no surviving artifact record references, older than the grace. */
function planBlobSweep(
  inventory: GcInventory,
  actions: readonly GcAction[],
  cutoff: number,
  nowMs: number,
): { actions: GcAction[]; skipped: string | null; kept: number } {
  const refs = inventory.artifactRefs;
  if (!refs.ok) return { actions: [], skipped: refs.reason, kept: 0 };
  if (inventory.blobs === null) {
    return { actions: [], skipped: 'the blobs cannot be listed', kept: 0 };
  }
  const dropped = new Set(
    actions.filter((action) => action.target === 'stream').map((action) => action.name),
  );
  const referenced = new Set<string>();
  for (const [stream, hashes] of refs.byStream) {
    if (dropped.has(stream)) continue;
    for (const sha256 of hashes) referenced.add(sha256);
  }
  const blobActions: GcAction[] = [];
  let kept = 0;
  for (const blob of inventory.blobs) {
    if (referenced.has(blob.sha256) || blob.modifiedAtMs >= cutoff) {
      kept++;
      continue;
    }
    blobActions.push({
      target: 'blob',
      name: blob.sha256,
      reason: `no surviving artifact record references it and it was last written ${formatDuration(nowMs - blob.modifiedAtMs)} ago`,
    });
  }
  return { actions: blobActions, skipped: null, kept };
}

/** `7d`, `36h`, `15m`, `42s` — the largest whole unit. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds >= 86_400 && seconds % 86_400 === 0) return `${seconds / 86_400}d`;
  if (seconds >= 86_400) return `${(seconds / 86_400).toFixed(1)}d`;
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)}h`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)}m`;
  return `${seconds}s`;
}
