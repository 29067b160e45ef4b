// One GC pass: inventory → plan (pure) → execute. Execution re-checks each target just before
// deleting it (a stream written since the inventory, a document changed since, a lease revived
// since, all stay), and sweeps blobs only after every other deletion succeeded.
import { describeError } from '../common/index.js';
import { dagRunUpdatedAtMs, gatherGcInventory } from './gc-inventory.js';
import { TERMINAL_DAG_RUN_STATES } from './gc-rules.js';
import { planGc, type GcAction, type GcPlan } from './gc-plan.js';
import type { StateStore, SweepReport } from './types.js';

export interface GcPassOptions {
  readonly nowMs: number;
  readonly graceMs: number;
  /** Plan only: report what would be removed. */
  readonly dryRun?: boolean;
}

export interface GcReport {
  readonly status: 'deferred' | 'done' | 'dry-run';
  /** Why the pass deferred (status deferred). */
  readonly deferredReason: string | null;
  /** Targets removed (or, in a dry run, that would be). */
  readonly removed: readonly GcAction[];
  /** Planned targets left in place because a re-check or the delete failed. */
  readonly skipped: readonly { readonly action: GcAction; readonly why: string }[];
  readonly kept: number;
  /** Why the blob sweep did not run, or null when it ran (or would). */
  readonly blobSweepSkipped: string | null;
  readonly sweep: SweepReport | null;
  readonly errors: readonly string[];
}

export async function runGcPass(store: StateStore, options: GcPassOptions): Promise<GcReport> {
  const inventory = await gatherGcInventory(store, options);
  const plan = planGc(inventory, options.graceMs);
  return executeGcPlan(store, plan, options);
}

export async function executeGcPlan(
  store: StateStore,
  plan: GcPlan,
  options: GcPassOptions,
): Promise<GcReport> {
  if (plan.status === 'deferred') {
    return {
      status: 'deferred',
      deferredReason: plan.reason,
      removed: [],
      skipped: [],
      kept: 0,
      blobSweepSkipped: null,
      sweep: null,
      errors: [],
    };
  }
  if (options.dryRun === true) {
    return {
      status: 'dry-run',
      deferredReason: null,
      removed: [...plan.actions, ...plan.blobActions],
      skipped: [],
      kept: plan.kept,
      blobSweepSkipped: plan.blobSweepSkipped,
      sweep: null,
      errors: [],
    };
  }
  const removed: GcAction[] = [];
  const skipped: { action: GcAction; why: string }[] = [];
  const errors: string[] = [];
  const cutoff = options.nowMs - options.graceMs;
  for (const action of plan.actions) {
    try {
      const why = await removeIfStillGarbage(store, action, cutoff);
      if (why === null) removed.push(action);
      else skipped.push({ action, why });
    } catch (error) {
      errors.push(`cannot remove ${action.target} ${action.name}: ${describeError(error)}`);
    }
  }
  let blobSweepSkipped = plan.blobSweepSkipped;
  if (blobSweepSkipped === null && errors.length > 0) {
    blobSweepSkipped = 'the pass had errors, so the blob sweep waits for a clean one';
  } else if (blobSweepSkipped === null) {
    for (const action of plan.blobActions) {
      try {
        if (await store.deleteBlob(action.name)) removed.push(action);
      } catch (error) {
        errors.push(`cannot remove blob ${action.name}: ${describeError(error)}`);
      }
    }
  }
  let sweep: SweepReport | null = null;
  try {
    sweep = await store.sweep(plan.sweep);
  } catch (error) {
    errors.push(`cannot sweep temp files, quarantine and lock side-files: ${describeError(error)}`);
  }
  return {
    status: 'done',
    deferredReason: null,
    removed,
    skipped,
    kept: plan.kept + skipped.length,
    blobSweepSkipped,
    sweep,
    errors,
  };
}

/** Delete the target unless it changed since the inventory; returns why it stayed, or null. */
async function removeIfStillGarbage(
  store: StateStore,
  action: GcAction,
  cutoff: number,
): Promise<string | null> {
  switch (action.target) {
    case 'stream': {
      const [newest] = await store.list(action.name, { limit: 1, strict: true });
      if (newest !== undefined && newest.writtenAtMs >= cutoff) return 'written since the scan';
      return (await store.deleteStream(action.name)) ? null : 'already gone';
    }
    case 'doc': {
      const seen = action.doc;
      if (seen === undefined) return 'no document named';
      return store.updateDocument(seen.ns, seen.key, (current) => {
        if (current === undefined) return { kind: 'keep', result: 'already gone' };
        const updatedAtMs = dagRunUpdatedAtMs(current.body.updatedAt, current.modifiedAtMs);
        const state = current.body.state;
        const terminal = typeof state === 'string' && TERMINAL_DAG_RUN_STATES.has(state);
        if (updatedAtMs !== seen.updatedAtMs || !terminal) {
          return { kind: 'keep', result: 'changed since the scan' };
        }
        return { kind: 'delete', result: null };
      });
    }
    case 'lease': {
      const lease = await store.inspectLease(action.name);
      if (lease === undefined) return 'already gone';
      if (lease.expiresAtMs >= cutoff || lease.updatedAtMs >= cutoff)
        return 'renewed since the scan';
      return (await store.deleteLease(action.name)) ? null : 'already gone';
    }
    case 'blob':
      return (await store.deleteBlob(action.name)) ? null : 'already gone';
  }
}
