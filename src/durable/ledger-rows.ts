// Conversions between the scheduler's run records and the durable ledger's rows, and the
// synthetic row crash reconciliation appends. Pure functions.
import type { ResolvedJob } from '../config/index.js';
import {
  formatIsoUtc,
  type DurableOutcome,
  type RunFinishedEvent,
  type RunRecord,
} from '../scheduler/index.js';
import type { JsonObject } from '../state/index.js';
import { ledgerInstantMs, parseLedgerRun, type InflightOpen, type LedgerRun } from './records.js';

/** The ledger row of a finished run (the A.7 record plus what catch-up and trends read). */
export function ledgerRowOf(
  event: RunFinishedEvent,
  host: string,
  token: string,
): LedgerRun & { readonly token: string } {
  const { record, outcome } = event;
  return {
    job: event.job.name,
    host,
    token,
    runId: event.runId,
    trigger: event.trigger,
    attempt: event.attempt,
    scheduled_at: event.scheduledAtMs === null ? null : formatIsoUtc(event.scheduledAtMs),
    outcome: record.outcome,
    exit_code: record.exit_code,
    started_at: record.started_at,
    finished_at: record.finished_at,
    duration: record.duration,
    fail_reason: record.fail_reason,
    finishedAtMs: outcome.finishedAtMs,
    ...(event.scheduledAtMs === null ? {} : { scheduledAtMs: event.scheduledAtMs }),
  };
}

/** A ledger row as the in-memory history shows it (GET /jobs/{name}/runs). */
export function runRecordOf(run: LedgerRun): RunRecord {
  const instantMs = ledgerInstantMs(run);
  return {
    outcome: run.outcome,
    exit_code: run.exit_code,
    started_at: run.started_at,
    finished_at: run.finished_at ?? formatIsoUtc(instantMs),
    duration: run.duration,
    fail_reason: run.fail_reason,
    resources: null,
  };
}

/**
 * The non-verdict row for a run the daemon crashed under: outcome `unknown`, no started_at (so
 * duration statistics are untouched). Under onMissed skip the interrupted start instant is its
 * finished_at, advancing the catch-up watermark over exactly that slot; under run-once/run-all
 * it is `interruptedAtMs` instead, leaving the slot owed to catch-up.
 */
export function reconciledRow(job: ResolvedJob, open: InflightOpen, host: string): LedgerRun {
  const startedIso = formatIsoUtc(open.startedAtMs);
  const base = {
    job: job.name,
    host,
    runId: '',
    trigger: 'reconciled',
    attempt: 0,
    scheduled_at: null,
    outcome: 'unknown' as const,
    exit_code: null,
    started_at: null,
    duration: null,
    fail_reason: `interrupted: the run started at ${startedIso} on ${open.host} never finished (the daemon crashed; reconciled-crash)`,
  };
  return job.onMissed === 'skip'
    ? { ...base, finished_at: startedIso, finishedAtMs: open.startedAtMs }
    : { ...base, finished_at: null, interruptedAtMs: open.startedAtMs };
}

/** The readable ledger rows among `datas`, oldest first by when they ended. */
export function parseRuns(datas: readonly JsonObject[]): LedgerRun[] {
  const runs: LedgerRun[] = [];
  for (const data of datas) {
    const run = parseLedgerRun(data);
    if (run !== undefined) runs.push(run);
  }
  // Records from several nodes interleave by write time, not by when their runs ended.
  return runs.sort((a, b) => ledgerInstantMs(a) - ledgerInstantMs(b));
}

/** The newest success or failure among `runs` (oldest first); unknown and cancelled ignored. */
export function newestRealOutcome(runs: readonly LedgerRun[]): DurableOutcome | null {
  for (let index = runs.length - 1; index >= 0; index--) {
    const run = runs[index] as LedgerRun;
    if (
      (run.outcome === 'success' || run.outcome === 'failure') &&
      run.finishedAtMs !== undefined
    ) {
      return { outcome: run.outcome, finishedAtMs: run.finishedAtMs };
    }
  }
  return null;
}
