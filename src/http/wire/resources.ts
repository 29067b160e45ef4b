// The resource-usage bodies of the control API (docs/http-api.md "GET /jobs/{name}/resources",
// "GET /node and GET /node/history"): a job's live and finished monitored runs with their
// series, and this node's reading and history ring. The usage pieces themselves are rendered by
// resources/wire.ts for every edge that shows them; this file only composes the responses.
// Types only.
import type {
  CurrentUsageWire,
  NodeResourcesWire,
  RunResourcesWire,
  UsagePointWire,
} from '../../resources/index.js';
import type { RunRecord } from './runs.js';

export type {
  CurrentUsageWire,
  NodeResourcesWire,
  RunningResourcesWire,
  RunResourcesWire,
  UsagePointWire,
} from '../../resources/index.js';

/** A running monitored instance that has a sample. */
export interface LiveRunWire {
  readonly started_at: string;
  readonly pid: number;
  readonly current: CurrentUsageWire | null;
  /** Oldest first. */
  readonly series: readonly UsagePointWire[];
}

/** A finished monitored run: its run record, with the usage series in `resources`. */
export interface FinishedRunWire extends Omit<RunRecord, 'resources'> {
  readonly resources: RunResourcesWire;
}

/** `GET /jobs/{name}/resources`. */
export interface JobResourcesWire {
  readonly name: string;
  readonly monitored: boolean;
  /** Seconds between samples. */
  readonly interval: number;
  readonly live: readonly LiveRunWire[];
  /** Oldest first. */
  readonly runs: readonly FinishedRunWire[];
}

/** `GET /node`. */
export interface NodeWire {
  readonly node_name: string;
  readonly resources: NodeResourcesWire | null;
}

/** One point of the node history: [epoch seconds, cpu percent, mem percent]. */
export type NodeHistoryPointWire = readonly [t: number, cpuPercent: number, memPercent: number];

/** `GET /node/history`: points oldest first. */
export interface NodeHistoryWire {
  readonly node_name: string;
  readonly enabled: boolean;
  readonly interval: number | null;
  readonly points: readonly NodeHistoryPointWire[];
}
