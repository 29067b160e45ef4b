// The DAG routes' bodies (docs/dags.md "HTTP"): the DAG list with its run roll-ups, run
// summaries, the XCom listing and the answers of the POSTs. A run document is served as stored
// (dags/run-document-wire.ts renders it); it is re-exported here so the dashboard reads every
// DAG body from one place. Rendered by http/routes-dags.ts. Types only.
import type { DagTaskType, TriggerRule } from '../../config/index.js';
import type {
  RunDocumentWire,
  RunEndWire,
  RunKind,
  RunState,
  TaskEntryWire,
  TaskState,
  XcomEntry,
  XcomListing,
} from '../../dags/index.js';

export interface DagTaskWire {
  readonly id: string;
  readonly type: DagTaskType;
  readonly dependsOn: readonly string[];
  readonly triggerRule: TriggerRule;
  readonly retries: number;
  /** A task mapped over an upstream's XCom list. */
  readonly mapped: boolean;
}

/** The newest run of a DAG, in its card. */
export interface DagLatestRunWire {
  readonly runKey: string;
  readonly state: RunState;
  readonly kind: RunKind;
  /** Epoch seconds. */
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** One element of `GET /dags`; the roll-ups only when the store has runs of this DAG. */
export interface DagWire {
  readonly name: string;
  readonly enabled: boolean;
  readonly scheduled: boolean;
  readonly retainRuns: number;
  readonly tasks: readonly DagTaskWire[];
  /** Only for a scheduled DAG, with `timezone`. */
  readonly schedule?: string;
  /** The zone `schedule` is read in, as on a job (null = the daemon's local time). */
  readonly timezone?: string | null;
  readonly latestRun?: DagLatestRunWire;
  readonly runCounts?: Readonly<Partial<Record<RunState, number>>>;
  readonly totalRuns?: number;
}

/** One run of `GET /dags/{name}/runs`. */
export interface DagRunSummaryWire extends Pick<
  RunDocumentWire,
  'logicalDate' | 'createdAt' | 'updatedAt'
> {
  readonly runKey: string;
  readonly runId: string;
  readonly state: RunState;
  readonly kind: RunKind;
  readonly taskStates: Readonly<Partial<Record<TaskState, number>>>;
}

/** `GET /dags/{name}/runs`, newest first. */
export interface DagRunsWire {
  readonly dag: string;
  readonly runs: readonly DagRunSummaryWire[];
}

/** `GET /dags/{name}/runs/{runKey}/xcom`. */
export interface XcomWire extends XcomListing {
  readonly dag: string;
  readonly runKey: string;
  readonly runId: string;
}

/** `POST /dags/{name}/trigger`. */
export interface DagTriggerWire {
  readonly dag: string;
  readonly runKey: string;
}

/** `POST /dags/{name}/backfill`: the number of runs created. */
export interface DagBackfillWire {
  readonly ok: true;
  readonly created: number;
}

/** `POST /dags/{name}/runs/{runKey}/tasks/{taskKey}/decision`: the gate's new state. */
export interface DagDecisionWire {
  readonly ok: true;
  readonly state: string;
}

/** `POST /dags/{name}/runs/{runKey}/cancel`. */
export interface DagCancelWire {
  readonly ok: true;
  readonly dag: string;
  readonly runKey: string;
  readonly state: RunState;
}

export type { RunDocumentWire, RunEndWire, RunKind, RunState, TaskEntryWire, TaskState, XcomEntry };
