// Ending a run early (docs/dags.md "Ending a run early"): a cancel through the control API, or a
// change that would have made the run document too large to store. Every entry not yet terminal
// ends — an attempt in flight, a retry or a poke waiting, a gate waiting: `failed`; a task that
// never started: `skipped` — with the reason, and the run is `failed` with `ended` saying why.
// The run states stay the reference's, so every reader sees a terminal run and none advances it.
// Must not: read a clock or the store, or stop processes (the advancer stops its attempts once it
// sees the run ended).
import { isTerminal, type RunDocument, type RunEnd, type TaskEntry } from './run-document.js';

/** The failReason of the entries a run's end cut short. */
export function runEndReason(end: RunEnd): string {
  switch (end.kind) {
    case 'cancelled':
      return `the run was cancelled by ${end.by}`;
    case 'too-large':
      return `the run document would be ${end.bytes} bytes, over the limit of ${end.limit} bytes`;
  }
}

function endedEntry(entry: TaskEntry, reason: string, nowMs: number): TaskEntry {
  const {
    retryAtMs: _retryAt,
    nextPokeAtMs: _nextPokeAt,
    awaitingApproval: _awaiting,
    mapped: _mapped,
    ...rest
  } = entry;
  return {
    ...rest,
    state: entry.state === 'pending' ? 'skipped' : 'failed',
    failReason: reason,
    finishedAtMs: nowMs,
    updatedAtMs: nowMs,
  };
}

/** `doc` ended by `end` at `end.atMs` (a run that is not running is returned as it is). */
export function endRun(doc: RunDocument, end: RunEnd): RunDocument {
  if (doc.state !== 'running') return doc;
  const reason = runEndReason(end);
  const tasks: Record<string, TaskEntry> = {};
  for (const [taskKey, entry] of Object.entries(doc.tasks)) {
    // An expanded placeholder stands for its instances, which end one by one.
    tasks[taskKey] =
      isTerminal(entry.state) || entry.state === 'expanded'
        ? entry
        : endedEntry(entry, reason, end.atMs);
  }
  return { ...doc, state: 'failed', updatedAtMs: end.atMs, tasks, ended: end };
}
