// The body of `GET /jobs/{name}/trends` (docs/http-api.md "GET /jobs/{name}/trends"): the stats
// object per time window, and where the runs came from. Types only (rendered by http/trends.ts).
import type { TrendRuns } from '../../durable/index.js';
import type { RunStats } from './runs.js';

/** The durable ledger's runs, or (no store, or the store did not answer) the in-memory history. */
export type TrendSource = TrendRuns['source'] | 'memory';

export interface TrendWindows {
  readonly '1h': RunStats;
  readonly '24h': RunStats;
  readonly '7d': RunStats;
  readonly '30d': RunStats;
  /** Every run read. */
  readonly all: RunStats;
}

/** `GET /jobs/{name}/trends`; keys in the documented order. */
export interface TrendsView {
  readonly name: string;
  readonly source: TrendSource;
  /** Python isoformat of `nowMs`. */
  readonly generated_at: string;
  readonly windows: TrendWindows;
}
