// Which runs of a job a previous daemon process on this host left without a completion
// (docs/durable-state.md "In-flight records and crash reconciliation"): the whole in-flight stream
// read per process token, checked against the ledger. The reference reads only the stream's
// newest record, which loses a crashed process's runs as soon as another process (this one,
// starting up) writes after them, and names one run of several that overlapped. The same reading
// over every host tells missed-run catch-up which runs other processes started without a ledger
// row yet (docs/durable-state.md "Missed-run catch-up"). Pure functions.
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
  return openRuns(records, (record) => record.host === host && record.proc !== ownProc);
}

/**
 * The `open` records of every daemon process but `own` (any host), oldest first, that no
 * `finished` close of their process settled: runs other processes started whose completion the
 * in-flight stream does not show. Missed-run catch-up counts them (with the ledger's help, see
 * `newestUnaccountedStart`).
 */
export function openRunsElsewhere(
  records: readonly { readonly data: JsonObject }[],
  own: { readonly host: string; readonly proc: string },
): InflightOpen[] {
  return openRuns(records, (record) => record.host !== own.host || record.proc !== own.proc);
}

/**
 * The open runs of the processes `include` admits, per (host, proc); one per start instant: a
 * run recorded before its spawn has two open records (pid null, then its pid), and the one with
 * a pid is kept (the reconciliation leaves a live pid alone).
 */
function openRuns(
  records: readonly { readonly data: JsonObject }[],
  include: (record: { readonly host: string; readonly proc: string }) => boolean,
): InflightOpen[] {
  const open = new Map<string, Map<number, InflightOpen>>();
  for (let index = records.length - 1; index >= 0; index--) {
    const record = parseInflight((records[index] as { readonly data: JsonObject }).data);
    if (record === undefined || !include(record)) continue;
    // The NUL cannot occur in a host name we or the reference write; it keeps the key injective.
    const owner = `${record.host}\u0000${record.proc}`;
    if (record.kind === 'open') {
      const runs = open.get(owner) ?? new Map<number, InflightOpen>();
      const known = runs.get(record.startedAtMs);
      if (known === undefined || (known.pid === null && record.pid !== null)) {
        runs.set(record.startedAtMs, record);
      }
      open.set(owner, runs);
    } else if (record.reason === 'finished') {
      open.delete(owner);
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

/**
 * The newest start instant, at or before `untilMs`, of the open runs no ledger row accounts for:
 * runs other processes began (their open record landed) whose completion is not recorded, each
 * covering the slot it served, as a finished row would. A run the ledger accounts for is left out:
 * a finished row counts by itself, and a reconciled one under run-once / run-all (`interruptedAt`)
 * deliberately leaves its slot owed. Null when there is none.
 */
export function newestUnaccountedStart(
  opens: readonly InflightOpen[],
  accounted: ReadonlySet<number>,
  untilMs: number,
): number | null {
  let newest: number | null = null;
  for (const open of opens) {
    if (open.startedAtMs > untilMs || accounted.has(open.startedAtMs)) continue;
    if (newest === null || open.startedAtMs > newest) newest = open.startedAtMs;
  }
  return newest;
}
