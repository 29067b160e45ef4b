// The wire shapes the dashboard reads (docs/http-api.md "Routes"): the job object and run
// records are the HTTP layer's own rendered types (one source of truth), plus the fields later
// features add. Types only.
import type { JobRuns, JobView, RunRecord, RunStats } from '../../http/index.js';
import type { NodeResourcesWire } from '../../resources/index.js';

export type { JobRuns, RunRecord, RunStats };
export type RunOutcome = RunRecord['outcome'];

/** Live resources of a monitored running job (sums over its instances). */
export interface RunningResources {
  readonly cpu_percent: number;
  readonly cpu_seconds: number;
  readonly rss_bytes: number;
  readonly instances: number;
}

/** One element of `GET /jobs`: the scheduler's view plus optional keys added by other layers. */
export interface JobWire extends JobView {
  readonly running_resources?: RunningResources;
  readonly rebootPending?: true;
  readonly clusterPolicy?: 'Leader' | 'PreferLeader' | 'EveryNode';
  /** Only under spread distribution; null = no quorum / no owner. */
  readonly clusterOwner?: string | null;
  readonly concurrencyScope?: 'cluster';
  readonly slot?: { readonly held: boolean; readonly holder: string | null; readonly refs: number };
}

/** `GET /jobs/{name}/resources`. */
export interface JobResourcesWire {
  readonly name: string;
  readonly monitored: boolean;
  readonly interval: number;
  readonly live: readonly {
    readonly started_at: string | null;
    readonly pid: number | null;
    readonly current: {
      readonly cpu_seconds: number;
      readonly cpu_percent: number;
      readonly rss_bytes: number;
    } | null;
    /** [epoch seconds, cpu percent, rss bytes], oldest first. */
    readonly series: readonly (readonly [number, number, number])[];
  }[];
  readonly runs: readonly (RunRecord & {
    readonly resources:
      | (NonNullable<RunRecord['resources']> & {
          readonly series?: readonly (readonly [number, number, number])[];
        })
      | null;
  })[];
}

/** `GET /node` resources (rendered by resources/wire.ts). */
export type NodeResources = NodeResourcesWire;

export interface NodeWire {
  readonly node_name: string;
  readonly resources: NodeResources | null;
}

/** `GET /node/history`: points are [epoch seconds, cpu percent, mem percent], oldest first. */
export interface NodeHistoryWire {
  readonly node_name: string;
  readonly enabled: boolean;
  readonly interval: number | null;
  readonly points: readonly (readonly [number, number, number])[];
}
