// The run shapes of the control API (docs/http-api.md "GET /jobs/{name}/runs"): the run record
// with Python-isoformat instants, seconds and snake_case names, and the stats object over a list
// of them. Declared here, beside every other response of the API, so the server's renderers
// (http/run-records.ts) and the dashboard (src/web) read one contract. Types only.
import type { RunSummaryOutcome } from '../../scheduler/index.js';

export type RunRecordOutcome = RunSummaryOutcome;

/** A run record's `resources`: the totals, no series. */
export interface RunResourcesRecord {
  readonly cpu_user_seconds: number;
  readonly cpu_system_seconds: number;
  readonly cpu_total_seconds: number;
  readonly max_rss_bytes: number;
  readonly samples: number;
}

export interface RunRecord {
  readonly outcome: RunRecordOutcome;
  readonly exit_code: number | null;
  /** Python isoformat() of the UTC instant, e.g. `2026-06-21T12:00:00+00:00`. */
  readonly started_at: string | null;
  readonly finished_at: string;
  /** Seconds. */
  readonly duration: number | null;
  readonly fail_reason: string | null;
  readonly resources: RunResourcesRecord | null;
}

export interface RunStats {
  readonly total: number;
  readonly success: number;
  readonly failure: number;
  readonly cancelled: number;
  readonly unknown: number;
  readonly success_rate: number | null;
  readonly avg_duration: number | null;
  readonly min_duration: number | null;
  readonly max_duration: number | null;
  readonly last_duration: number | null;
  readonly avg_cpu_seconds: number | null;
  readonly max_cpu_seconds: number | null;
  readonly last_cpu_seconds: number | null;
  readonly avg_rss_bytes: number | null;
  readonly max_rss_bytes: number | null;
  readonly last_rss_bytes: number | null;
}

/** `GET /jobs/{name}/runs`. */
export interface JobRuns {
  readonly name: string;
  /** Oldest first, at most 50. */
  readonly runs: readonly RunRecord[];
  readonly stats: RunStats;
}
