// The task state machine's edges as pure functions over one entry (docs/dags.md "Task state
// machine"): the claim (pending/up_for_retry → running), the spawn, the end of an attempt or a
// poke, an attempt lost with its daemon, an approval decision. The run advancer applies them
// under the run document's lock.
// Must not: read a clock, a store or randomness (callers hand in instants and the jitter draw).
import type { ResolvedDagTask } from '../config/index.js';
import type { RunOutcome } from '../runner/index.js';
import type { TaskEntry } from './run-document.js';

/** Seconds as stored (epoch floats). */
function seconds(ms: number): number {
  return ms / 1000;
}

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
    task.kind === 'sensor' && entry.state === 'running' && entry.nextPokeAt !== undefined;
  const claimable =
    (entry.state === 'pending' && entry.mapped !== true) ||
    entry.state === 'up_for_retry' ||
    sensorWaiting;
  if (!claimable || task.kind === 'approval' || nowMs < (entry.retryAt ?? 0) * 1000) return null;
  if (sensorWaiting && (entry.nextPokeAt ?? 0) * 1000 > nowMs) return null;
  const { retryAt: _retryAt, nextPokeAt: _nextPokeAt, ...rest } = entry;
  const now = seconds(nowMs);
  const base: TaskEntry = {
    ...rest,
    state: 'running',
    proc: claimer.proc,
    host: claimer.host,
    pid: null,
    exitCode: null,
    failReason: null,
    startedAt: now,
    finishedAt: null,
    updatedAt: now,
  };
  if (task.kind === 'sensor') {
    return {
      ...base,
      attempt: Math.max(entry.attempt, 1),
      pokeCount: (entry.pokeCount ?? 0) + 1,
      firstPokeAt: entry.firstPokeAt ?? now,
    };
  }
  return { ...base, attempt: entry.attempt + 1 };
}

/** The attempt's process was spawned. */
export function spawnedEntry(entry: TaskEntry, pid: number, nowMs: number): TaskEntry {
  return { ...entry, pid, updatedAt: seconds(nowMs) };
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
  const now = seconds(nowMs);
  const succeeded = end.kind === 'outcome' && end.outcome.kind === 'succeeded';
  const finished: TaskEntry = {
    ...entry,
    finishedAt: now,
    updatedAt: now,
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
      if (end.kind === 'lost') return { ...finished, state: 'running', pid: null, nextPokeAt: now };
      const firstMs = (entry.firstPokeAt ?? now) * 1000;
      if (nowMs - firstMs >= task.poke.timeoutMs) {
        return {
          ...finished,
          state: 'failed',
          failReason: `sensor condition not met within pokeTimeoutSeconds=${task.poke.timeoutMs / 1000}`,
        };
      }
      const nextMs = nowMs + task.poke.intervalMs + jitter * task.poke.jitterMs;
      return { ...finished, state: 'running', pid: null, nextPokeAt: seconds(nextMs) };
    }
    case 'task':
      if (entry.attempt < task.retries + 1) {
        return { ...finished, state: 'up_for_retry', retryAt: seconds(nowMs + task.retryDelayMs) };
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
  const now = seconds(nowMs);
  const { awaitingApproval: _awaiting, ...rest } = entry;
  const approval = {
    decision: decision === 'approve' ? 'approved' : 'rejected',
    by,
    at: now,
  } as const;
  const state =
    decision === 'approve' ? 'success' : task.onReject === 'skip' ? 'skipped' : 'failed';
  return {
    ...rest,
    state,
    approval,
    finishedAt: now,
    updatedAt: now,
    failReason: state === 'failed' ? `rejected by ${by}` : null,
  };
}

/** An approval gate became ready: it waits, running, for a decision. */
export function awaitingEntry(entry: TaskEntry, nowMs: number): TaskEntry {
  const now = seconds(nowMs);
  return { ...entry, state: 'running', awaitingApproval: true, startedAt: now, updatedAt: now };
}

/** A pending entry settled without running (upstream_failed or skipped). */
export function settledEntry(
  entry: TaskEntry,
  state: 'upstream_failed' | 'skipped',
  reason: string | null,
  nowMs: number,
): TaskEntry {
  const now = seconds(nowMs);
  return { ...entry, state, failReason: reason, finishedAt: now, updatedAt: now };
}
