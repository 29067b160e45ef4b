// Which runs of a job a previous daemon process on this host left without a completion
// (docs/durable-state.md "In-flight records and crash reconciliation"): the whole in-flight stream
// read per process token, checked against the ledger. The reference reads only the stream's
// newest record, which loses a crashed process's runs as soon as another process (this one,
// starting up) writes after them, and names one run of several that overlapped. Pure functions.
// Must not: read the store, the clock or a pid.
import type { JsonObject } from '../state/index.js';
import { parseLedgerRun } from './ledger-rows.js';
import { parseInflight, type InflightOpen } from './records.js';

/**
 * The `open` records of `host` (oldest first, one per run, duplicates merged) whose process never
 * wrote its `finished` close after them, other than `ownProc`'s. `records` is the stream, newest
 * first as the store lists it.
 *
 * A `closed` record with reason `finished` is written by a process when its last live instance of
 * the job ended: it settles every earlier open of that process. A `reconciled-*` close names the
 * reconciler's process, not the run it closed, so it settles nothing here: the ledger row the
 * reconciliation appended does (see `unaccountedOpens`).
 */
export function openRunsOfOtherProcesses(
  records: readonly { readonly data: JsonObject }[],
  host: string,
  ownProc: string,
): InflightOpen[] {
  const open = new Map<string, Map<number, InflightOpen>>();
  for (let index = records.length - 1; index >= 0; index--) {
    const record = parseInflight((records[index] as { readonly data: JsonObject }).data);
    if (record === undefined || record.host !== host || record.proc === ownProc) continue;
    if (record.kind === 'open') {
      const runs = open.get(record.proc) ?? new Map<number, InflightOpen>();
      if (!runs.has(record.startedAtMs)) runs.set(record.startedAtMs, record);
      open.set(record.proc, runs);
    } else if (record.reason === 'finished') {
      open.delete(record.proc);
    }
  }
  return [...open.values()]
    .flatMap((runs) => [...runs.values()])
    .sort((a, b) => a.startedAtMs - b.startedAtMs);
}

/**
 * The start instants the ledger rows account for: a finished run's `started_at`, and the start a
 * reconciled row names (its `finished_at` under onMissed skip, its `interruptedAt` otherwise; a
 * row without `started_at` and outcome unknown). Both are the instant the run's open record
 * carries, to the millisecond.
 */
export function accountedStarts(rows: readonly JsonObject[]): Set<number> {
  const starts = new Set<number>();
  for (const data of rows) {
    const run = parseLedgerRun(data);
    if (run === undefined) continue;
    const { summary } = run;
    if (summary.startedAtMs !== null) starts.add(summary.startedAtMs);
    else if (summary.outcome === 'unknown') starts.add(summary.finishedAtMs);
  }
  return starts;
}

/** The open runs no ledger row accounts for: each one is owed an `unknown` row. */
export function unaccountedOpens(
  opens: readonly InflightOpen[],
  accounted: ReadonlySet<number>,
): InflightOpen[] {
  return opens.filter((open) => !accounted.has(open.startedAtMs));
}
