// The job shapes of the control API (docs/http-api.md "GET /jobs and GET /jobs/{name}", and
// "GET /status"; `GET /job-set-id` too): the status entries, the job object the scheduler's
// state gives, and the keys other layers add to it (`running_resources`, the cluster keys).
// Rendered by http/job-views.ts, http/job-object.ts and http/cluster-views.ts; read by the
// dashboard. Types only.
import type { ClusterPolicy } from '../../config/index.js';
import type { RunningResourcesWire } from '../../resources/index.js';
import type { RunRecord, RunRecordOutcome } from './runs.js';

export type StatusEntry =
  | { readonly job: string; readonly status: 'running'; readonly pid: readonly number[] }
  | { readonly job: string; readonly status: 'disabled' }
  | {
      readonly job: string;
      readonly status: 'scheduled';
      /** Seconds to the next fire, null when none, '@reboot' for @reboot jobs. */
      readonly scheduled_in: number | '@reboot' | null;
    };

export interface RetryView {
  readonly attempt: number;
  /** null = unlimited (maximumRetries -1). */
  readonly maxAttempts: number | null;
  readonly nextRetryAt: string | null;
  readonly delaySeconds: number;
}

/** The job object fields the scheduler's state gives (the HTTP layer may add more later). */
export interface JobView {
  readonly name: string;
  readonly enabled: boolean;
  readonly schedule: string;
  readonly command: string;
  readonly captureStdout: boolean;
  readonly captureStderr: boolean;
  readonly utc: boolean;
  readonly timezone: string | null;
  readonly running: boolean;
  readonly pids: readonly number[];
  readonly scheduled_in: number | null;
  readonly last_run: RunRecord | null;
  readonly history: readonly {
    readonly outcome: RunRecordOutcome;
    readonly duration: number | null;
  }[];
  /** Present only while a retry ladder is armed with count > 0. */
  readonly retry?: RetryView;
  /** Present only for an @reboot one-shot the cluster holds until it resolves its owner. */
  readonly rebootPending?: true;
}

/** The job view plus `running_resources` (a running job with a sampled monitored instance). */
export interface JobObject extends JobView {
  readonly running_resources?: RunningResourcesWire;
}

/** A cluster-scope job's slot as this node sees it (held by this node, or not). */
export interface JobSlotField {
  readonly held: boolean;
  /** This node's holder string while it holds the slot, else null. */
  readonly holder: string | null;
  /** This node's runs sharing the held slot. */
  readonly refs: number;
}

/** A job's cluster keys in GET /jobs; an absent key is not emitted. */
export interface JobClusterFields {
  /** Only for `concurrencyScope: cluster` jobs, with `slot`. */
  readonly concurrencyScope?: 'cluster';
  readonly slot?: JobSlotField;
  /** Only while `cluster.electLeader` is configured. */
  readonly clusterPolicy?: ClusterPolicy;
  /** Only under `distribution: spread` for Leader/PreferLeader jobs; null = no owner. */
  readonly clusterOwner?: string | null;
}

/** One element of `GET /jobs`, and `GET /jobs/{name}`: the job object with its cluster keys. */
export type JobWire = JobObject & JobClusterFields;

/** `GET /job-set-id` with `Accept: application/json`. */
export interface JobSetIdWire {
  readonly job_set_id: string;
  readonly jobs: number;
}
