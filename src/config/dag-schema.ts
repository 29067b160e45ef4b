// The `dags:` keys (docs/dags.md "DAG keys" and "Task keys"), one row each, and the resolved
// shapes the rest of the daemon reads. The checks that need more than one key (ids, edges,
// cycles, `expand`, the template-name clash) are dag-section.ts's.
// Must not: apply top-level `defaults:` to a task (tasks start from the built-in job defaults).
import type { ClusterPolicy, JobSchedule, ResolvedJob } from './types.js';
import { COMMAND } from './report-schema.js';
import { DAG_TASK_LAUNCH_FIELDS, SCHEDULE_FIELD } from './job-schema.js';
import {
  bool,
  emptyNone,
  float,
  int,
  map,
  oneOf,
  opt,
  req,
  seq,
  str,
  type MapOut,
} from './schema-nodes.js';

export const TASK_TYPES = ['task', 'sensor', 'approval'] as const;
export type DagTaskType = (typeof TASK_TYPES)[number];
export const TRIGGER_RULES = ['all_success', 'all_done'] as const;
export type TriggerRule = (typeof TRIGGER_RULES)[number];

const TASK_FIELDS = {
  id: req(str),
  command: opt(COMMAND),
  type: opt(oneOf(TASK_TYPES), { default: 'task' }),
  dependsOn: opt(seq(str), { default: [] }),
  triggerRule: opt(oneOf(TRIGGER_RULES), { default: 'all_success' }),
  retries: opt(int, { default: 0 }),
  retryDelaySeconds: opt(float, { default: 0 }),
  expand: opt(map({ fromTask: req(str), key: req(str) })),
  pokeIntervalSeconds: opt(float, { default: 30 }),
  pokeTimeoutSeconds: opt(float, { default: 3600 }),
  pokeJitterSeconds: opt(float, { default: 0 }),
  onReject: opt(oneOf(['fail', 'skip']), { default: 'fail' }),
  ...DAG_TASK_LAUNCH_FIELDS,
} as const;

export const DAG_TASK_SCHEMA = map(TASK_FIELDS);

export const DAG_SCHEMA = map({
  name: req(str),
  schedule: { ...SCHEDULE_FIELD, required: false },
  timezone: opt(str),
  utc: opt(bool, { default: true }),
  onMissed: opt(oneOf(['skip', 'run-once', 'run-all']), { default: 'skip' }),
  startingDeadlineSeconds: opt(emptyNone(int), { default: null }),
  catchupJitterSeconds: opt(int, { default: 0 }),
  clusterPolicy: opt(oneOf(['Leader', 'PreferLeader', 'EveryNode']), { default: 'Leader' }),
  enabled: opt(bool, { default: true }),
  retainRuns: opt(int, { default: 50 }),
  tasks: req(seq(DAG_TASK_SCHEMA)),
});

/** A task as written (not yet checked or defaulted). */
export type TypedDagTask = MapOut<typeof TASK_FIELDS>;
/** A DAG as written. */
export type TypedDag = MapOut<typeof DAG_SCHEMA.fields>;

/** A task key that is a launch field (the launch fields become the task's template job). */
export type DagTaskLaunchKey = keyof typeof DAG_TASK_LAUNCH_FIELDS;
/** A task's launch fields as written: the job's own rows, so they type as the job's keys. */
export type TypedDagTaskLaunch = MapOut<typeof DAG_TASK_LAUNCH_FIELDS>;

function isLaunchKey(key: string): key is DagTaskLaunchKey {
  return Object.hasOwn(DAG_TASK_LAUNCH_FIELDS, key);
}

/** The keys of a task that are its launch fields, in table order. */
export const DAG_TASK_LAUNCH_KEYS: readonly DagTaskLaunchKey[] =
  Object.keys(DAG_TASK_LAUNCH_FIELDS).filter(isLaunchKey);

// ---- resolved -----------------------------------------------------------------------------------

export type DagOnMissed = 'skip' | 'run-once' | 'run-all';

interface ResolvedDagTaskCommon {
  readonly id: string;
  /** `<dag>.<id>`: the name its runs carry (YACRON2_JOB_NAME, logs), never a configured job. */
  readonly templateName: string;
  /** Upstream ids, as written (order kept, duplicates dropped). */
  readonly dependsOn: readonly string[];
  readonly triggerRule: TriggerRule;
  /** attempts = retries + 1. */
  readonly retries: number;
  readonly retryDelayMs: number;
}

/** A task of a DAG; the union is closed over `kind` (docs/dags.md "Node types"). */
export type ResolvedDagTask =
  | (ResolvedDagTaskCommon & {
      readonly kind: 'task';
      /** The template job the task's attempts launch (built-in defaults + the task's keys). */
      readonly job: ResolvedJob;
      /** Dynamic mapping over an upstream's XCom list; null = one instance. */
      readonly expand: { readonly fromTask: string; readonly key: string } | null;
    })
  | (ResolvedDagTaskCommon & {
      readonly kind: 'sensor';
      readonly job: ResolvedJob;
      readonly poke: {
        readonly intervalMs: number;
        readonly timeoutMs: number;
        readonly jitterMs: number;
      };
    })
  | (ResolvedDagTaskCommon & {
      readonly kind: 'approval';
      readonly onReject: 'fail' | 'skip';
    });

export interface ResolvedDag {
  readonly name: string;
  /** null = manual-only. */
  readonly schedule: Extract<JobSchedule, { readonly kind: 'cron' }> | null;
  /** The schedule frame: an IANA name, 'UTC', or null for local time. */
  readonly timezone: string | null;
  readonly onMissed: DagOnMissed;
  readonly startingDeadlineMs: number | null;
  /** Accepted, not applied (docs/dags.md "DAG keys"). */
  readonly catchupJitterSeconds: number;
  readonly clusterPolicy: ClusterPolicy;
  readonly enabled: boolean;
  readonly retainRuns: number;
  /** In config order; ids unique, the graph acyclic. */
  readonly tasks: readonly ResolvedDagTask[];
  readonly source: { readonly file: string; readonly line: number };
}
