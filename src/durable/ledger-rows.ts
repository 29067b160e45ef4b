// The one place ledger rows (`runs/<job>`) are rendered and read back (docs/durable-state-store.md
// "Record bodies"): the reference's row of a finished run, rendered from the scheduler's
// RunSummary; the RunSummary of a row read back (its ISO text parsed here, at the edge, as
// leniently as the reference reads it); and the synthetic row crash reconciliation appends.
// The catch-up watermark is the string max of `finished_at` (the shape is the reference's
// isoformat, so string order is time order). Pure functions.
// Must not: add fields the reference does not write (readers of both builds see the same row).
import { msToSeconds, pyFloat } from '../common/index.js';
import type { OnMissed } from '../config/index.js';
import type {
  DurableOutcome,
  RunResources,
  RunSummary,
  RunSummaryOutcome,
} from '../scheduler/index.js';
import { renderRunResources } from '../resources/index.js';
import type { JsonObject } from '../state/index.js';
import { int, isoAt, num, parseStoreInstant, str } from './records.js';

/** The field the catch-up watermark is derived from (its string max). */
export const WATERMARK_FIELD = 'finished_at';

/** A run's usage as the reference stores it: the one wire shape, its seconds and CPU % as floats. */
function resourcesData(resources: RunResources): JsonObject {
  const wire = renderRunResources(resources, true);
  return {
    cpu_user_seconds: pyFloat(wire.cpu_user_seconds),
    cpu_system_seconds: pyFloat(wire.cpu_system_seconds),
    cpu_total_seconds: pyFloat(wire.cpu_total_seconds),
    max_rss_bytes: wire.max_rss_bytes,
    samples: wire.samples,
    ...(wire.series === undefined
      ? {}
      : { series: wire.series.map(([t, cpu, rss]) => [pyFloat(t), pyFloat(cpu), rss]) }),
  };
}

/** The row of a finished run: the GET /jobs/{name}/runs record, as the reference writes it. */
export function ledgerRowOf(summary: RunSummary): JsonObject {
  return {
    outcome: summary.outcome,
    exit_code: summary.exitCode,
    started_at: summary.startedAtMs === null ? null : isoAt(summary.startedAtMs),
    finished_at: isoAt(summary.finishedAtMs),
    duration: summary.durationMs === null ? null : pyFloat(msToSeconds(summary.durationMs)),
    fail_reason: summary.failReason,
    resources: summary.resources === null ? null : resourcesData(summary.resources),
  };
}

/** The fail_reason of a reconciled row: names the interrupted start and its host, no verdict. */
export function interruptedFailReason(startedAtMs: number, host: string): string {
  return `run interrupted: no completion was recorded for the run started at ${isoAt(startedAtMs)} on ${host} (daemon crash, or the node lost access to the state store mid-run)`;
}

/**
 * The non-verdict row for a run the daemon crashed under: outcome `unknown`, no started_at (so
 * duration statistics are untouched), no resources. Under onMissed skip the interrupted start
 * instant is its finished_at, advancing the catch-up watermark over exactly that slot; under
 * run-once/run-all it is `interruptedAt` instead, leaving the slot owed to catch-up.
 */
export function reconciledRowOf(onMissed: OnMissed, startedAtMs: number, host: string): JsonObject {
  const row = {
    outcome: 'unknown',
    exit_code: null,
    started_at: null,
    duration: null,
    fail_reason: interruptedFailReason(startedAtMs, host),
  };
  const instant = isoAt(startedAtMs);
  return onMissed === 'skip'
    ? { ...row, finished_at: instant }
    : { ...row, interruptedAt: instant };
}

/** A row read back. */
export interface LedgerRun {
  readonly summary: RunSummary;
  /** A reconciled run-once/run-all row: summary.finishedAtMs is its `interruptedAt`. */
  readonly interrupted: boolean;
}

const OUTCOMES: ReadonlySet<string> = new Set(['success', 'failure', 'cancelled', 'unknown']);

function resourcesOf(value: unknown): RunResources | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const data = value as JsonObject;
  const user = num(data, 'cpu_user_seconds');
  const system = num(data, 'cpu_system_seconds');
  const rss = num(data, 'max_rss_bytes');
  if (user === undefined || system === undefined || rss === undefined) return null;
  return {
    cpuUserSeconds: user,
    cpuSystemSeconds: system,
    cpuTotalSeconds: num(data, 'cpu_total_seconds') ?? user + system,
    maxRssBytes: rss,
    samples: int(data, 'samples') ?? 0,
  };
}

/**
 * A row as the reference reads it: it needs a parseable `finished_at` or `interruptedAt`; a
 * non-string (or unknown) outcome reads as `unknown`, a non-integer exit code as null.
 */
export function parseLedgerRun(data: JsonObject): LedgerRun | undefined {
  const finishedAtMs = parseStoreInstant(data['finished_at']);
  const interruptedAtMs =
    finishedAtMs === undefined ? parseStoreInstant(data['interruptedAt']) : undefined;
  const endMs = finishedAtMs ?? interruptedAtMs;
  if (endMs === undefined) return undefined;
  const outcome = str(data, 'outcome');
  const duration = num(data, 'duration');
  return {
    summary: {
      outcome:
        outcome !== undefined && OUTCOMES.has(outcome) ? (outcome as RunSummaryOutcome) : 'unknown',
      exitCode: int(data, 'exit_code') ?? null,
      startedAtMs: parseStoreInstant(data['started_at']) ?? null,
      finishedAtMs: endMs,
      durationMs: duration === undefined ? null : duration * 1000,
      failReason: str(data, 'fail_reason') ?? null,
      resources: resourcesOf(data['resources']),
    },
    interrupted: finishedAtMs === undefined,
  };
}

/** The readable rows among `datas`, oldest first by when they ended. */
export function parseRuns(datas: readonly JsonObject[]): LedgerRun[] {
  const runs: LedgerRun[] = [];
  for (const data of datas) {
    const run = parseLedgerRun(data);
    if (run !== undefined) runs.push(run);
  }
  // Records from several nodes interleave by write time, not by when their runs ended.
  return runs.sort((a, b) => a.summary.finishedAtMs - b.summary.finishedAtMs);
}

/** The newest success or failure among `runs` (oldest first); unknown and cancelled ignored. */
export function newestRealOutcome(runs: readonly LedgerRun[]): DurableOutcome | null {
  for (let index = runs.length - 1; index >= 0; index--) {
    const { summary, interrupted } = runs[index] as LedgerRun;
    if (interrupted) continue;
    if (summary.outcome === 'success' || summary.outcome === 'failure') {
      return { outcome: summary.outcome, finishedAtMs: summary.finishedAtMs };
    }
  }
  return null;
}

/** When the newest of `runs` (oldest first) finished, interrupted rows aside; null when none. */
export function newestFinishMs(runs: readonly LedgerRun[]): number | null {
  for (let index = runs.length - 1; index >= 0; index--) {
    const run = runs[index] as LedgerRun;
    if (!run.interrupted) return run.summary.finishedAtMs;
  }
  return null;
}
