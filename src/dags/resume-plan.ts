// Crash resume (docs/dags.md "Fleet coordination and crash resume"): which attempts of a run this
// node adopts are lost. An attempt is in flight while its entry is running and neither waits for
// an approval nor for a sensor's next poke; it is lost when its process is gone — not one of ours,
// and not a live pid on this host (a task that outlived its crashed daemon is waited for, so no
// task runs twice while its first process is alive).
// Must not: look at processes itself (the advancer hands in the liveness verdicts).
import type { RunDocument, TaskEntry } from './run-document.js';

/** `ours`: this process runs it; `alive`: its pid lives on this host; `gone`: neither. */
export type ProcessLiveness = 'ours' | 'alive' | 'gone';

export function isInFlight(entry: TaskEntry): boolean {
  return (
    entry.state === 'running' && entry.awaitingApproval !== true && entry.nextPokeAtMs === undefined
  );
}

/** The task keys whose attempt is lost. */
export function lostAttempts(
  doc: RunDocument,
  liveness: (taskKey: string, entry: TaskEntry) => ProcessLiveness,
): string[] {
  if (doc.state !== 'running') return [];
  const lost: string[] = [];
  for (const [taskKey, entry] of Object.entries(doc.tasks)) {
    if (isInFlight(entry) && liveness(taskKey, entry) === 'gone') lost.push(taskKey);
  }
  return lost;
}
