// The one place ledger rows are rendered and read back: the row of a finished run (rendered from
// the scheduler's domain values), the RunSummary of a row (its ISO text parsed here, at the
// edge), and the synthetic row crash reconciliation appends. Pure functions.
import type { ResolvedJob } from '../config/index.js';
import { formatIsoUtc, parseIsoInstantMs } from '../common/index.js';
import type { DurableOutcome, RunFinishedEvent, RunSummary } from '../scheduler/index.js';
import { renderRunResources } from '../resources/index.js';
import type { JsonObject } from '../state/index.js';
import { ledgerInstantMs, parseLedgerRun, type InflightOpen, type LedgerRun } from './records.js';

/** The ledger row of a finished run (the API's run record plus what catch-up and trends read). */
export function ledgerRowOf(
  event: RunFinishedEvent,
  host: string,
  token: string,
): LedgerRun & { readonly token: string } {
  const { summary } = event;
  return {
    job: event.job.name,
    host,
    token,
    runId: event.runId,
    trigger: event.trigger,
    attempt: event.attempt,
    scheduled_at: event.scheduledAtMs === null ? null : formatIsoUtc(event.scheduledAtMs),
    outcome: summary.outcome,
    exit_code: summary.exitCode,
    started_at: summary.startedAtMs === null ? null : formatIsoUtc(summary.startedAtMs),
    finished_at: formatIsoUtc(summary.finishedAtMs),
    duration: summary.durationMs === null ? null : summary.durationMs / 1000,
    fail_reason: summary.failReason,
    resources: summary.resources === null ? null : renderRunResources(summary.resources, true),
    finishedAtMs: summary.finishedAtMs,
    ...(event.scheduledAtMs === null ? {} : { scheduledAtMs: event.scheduledAtMs }),
  };
}

/** A ledger row as the scheduler's history holds it (a start instant that does not parse: unknown). */
export function runSummaryOf(run: LedgerRun): RunSummary {
  const startedAtMs = run.started_at === null ? Number.NaN : parseIsoInstantMs(run.started_at);
  return {
    outcome: run.outcome,
    exitCode: run.exit_code,
    startedAtMs: Number.isNaN(startedAtMs) ? null : startedAtMs,
    finishedAtMs: ledgerInstantMs(run),
    durationMs: run.duration === null ? null : run.duration * 1000,
    failReason: run.fail_reason,
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
