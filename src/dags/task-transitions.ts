// The task state machine's edges as pure functions over one entry (docs/dags.md "Task state
// machine"): the claim (pending/up_for_retry → running), the spawn, the end of an attempt or a
// poke, an attempt lost with its daemon, an approval decision. The run advancer applies them
// under the run document's lock.
// Must not: read a clock, a store or randomness (callers hand in instants and the jitter draw).
import type { ResolvedDagTask } from '../config/index.js';
import type { RunOutcome } from '../runner/index.js';
import type { TaskEntry } from './run-document.js';

export interface Claimer {
  readonly proc: string;
  readonly host: string;
}

/**
 * The claim: whether `entry` may be taken now (the compare half of the compare-and-set), and the
 * claimed entry. A task's attempt counter moves; a sensor's poke count does (its attempt stays 1).
 */
export function claimEntry(
  task: ResolvedDagTask,
  entry: TaskEntry,
  claimer: Claimer,
  nowMs: number,
): TaskEntry | null {
  const sensorWaiting =
    task.kind === 'sensor' && entry.state === 'running' && entry.nextPokeAtMs !== undefined;
  const claimable =
    (entry.state === 'pending' && entry.mapped !== true) ||
    entry.state === 'up_for_retry' ||
    sensorWaiting;
  if (!claimable || task.kind === 'approval' || nowMs < (entry.retryAtMs ?? 0)) return null;
  if (sensorWaiting && (entry.nextPokeAtMs ?? 0) > nowMs) return null;
  const { retryAtMs: _retryAt, nextPokeAtMs: _nextPokeAt, ...rest } = entry;
  const base: TaskEntry = {
    ...rest,
    state: 'running',
    proc: claimer.proc,
    host: claimer.host,
    pid: null,
    exitCode: null,
    failReason: null,
    startedAtMs: nowMs,
    finishedAtMs: null,
    updatedAtMs: nowMs,
  };
  if (task.kind === 'sensor') {
    return {
      ...base,
      attempt: Math.max(entry.attempt, 1),
      pokeCount: (entry.pokeCount ?? 0) + 1,
      firstPokeAtMs: entry.firstPokeAtMs ?? nowMs,
    };
  }
  return { ...base, attempt: entry.attempt + 1 };
}

/** The attempt's process was spawned. */
export function spawnedEntry(entry: TaskEntry, pid: number, nowMs: number): TaskEntry {
  return { ...entry, pid, updatedAtMs: nowMs };
}

/** What ended an attempt: its outcome, or the loss of its process with its daemon. */
export type AttemptEnd =
  | { readonly kind: 'outcome'; readonly outcome: RunOutcome; readonly resources: unknown }
  | { readonly kind: 'lost'; readonly reason: string };

/**
 * The entry after an attempt (or poke) ended. `jitter` is a uniform draw in [0, 1) for the
 * sensor's next poke.
 */
export function endedEntry(
  task: ResolvedDagTask,
  entry: TaskEntry,
  end: AttemptEnd,
  nowMs: number,
  jitter: number,
): TaskEntry {
  const succeeded = end.kind === 'outcome' && end.outcome.kind === 'succeeded';
  const finished: TaskEntry = {
    ...entry,
    finishedAtMs: nowMs,
    updatedAtMs: nowMs,
    exitCode: end.kind === 'outcome' ? end.outcome.exitCode : null,
    failReason: end.kind === 'outcome' ? end.outcome.failReason : end.reason,
    resources: end.kind === 'outcome' ? end.resources : null,
  };
  if (succeeded) return { ...finished, state: 'success', failReason: null };
  switch (task.kind) {
    case 'approval':
      return entry;
    case 'sensor': {
      // A poke lost with its daemon is simply poked again (the timeout window is kept).
      if (end.kind === 'lost') {
        return { ...finished, state: 'running', pid: null, nextPokeAtMs: nowMs };
      }
      const firstMs = entry.firstPokeAtMs ?? nowMs;
      if (nowMs - firstMs >= task.poke.timeoutMs) {
        return {
          ...finished,
          state: 'failed',
          failReason: `sensor condition not met within pokeTimeoutSeconds=${task.poke.timeoutMs / 1000}`,
        };
      }
      const nextMs = nowMs + task.poke.intervalMs + jitter * task.poke.jitterMs;
      return { ...finished, state: 'running', pid: null, nextPokeAtMs: nextMs };
    }
    case 'task':
      if (entry.attempt < task.retries + 1) {
        return { ...finished, state: 'up_for_retry', retryAtMs: nowMs + task.retryDelayMs };
      }
      return { ...finished, state: 'failed' };
  }
}

/** A decision on an approval gate; null when the entry is not awaiting one. */
export function decidedEntry(
  task: ResolvedDagTask,
  entry: TaskEntry,
  decision: 'approve' | 'reject',
  by: string,
  nowMs: number,
): TaskEntry | null {
  if (task.kind !== 'approval' || entry.state !== 'running' || entry.awaitingApproval !== true) {
    return null;
  }
  const { awaitingApproval: _awaiting, ...rest } = entry;
  const approval = {
    decision: decision === 'approve' ? 'approved' : 'rejected',
    by,
    atMs: nowMs,
  } as const;
  const state =
    decision === 'approve' ? 'success' : task.onReject === 'skip' ? 'skipped' : 'failed';
  return {
    ...rest,
    state,
    approval,
    finishedAtMs: nowMs,
    updatedAtMs: nowMs,
    failReason: state === 'failed' ? `rejected by ${by}` : null,
  };
}

/** An approval gate became ready: it waits, running, for a decision. */
export function awaitingEntry(entry: TaskEntry, nowMs: number): TaskEntry {
  return {
    ...entry,
    state: 'running',
    awaitingApproval: true,
    startedAtMs: nowMs,
    updatedAtMs: nowMs,
  };
}

/** A pending entry settled without running (upstream_failed or skipped). */
export function settledEntry(
  entry: TaskEntry,
  state: 'upstream_failed' | 'skipped',
  reason: string | null,
  nowMs: number,
): TaskEntry {
  return { ...entry, state, failReason: reason, finishedAtMs: nowMs, updatedAtMs: nowMs };
}
