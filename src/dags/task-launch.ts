// One attempt (or sensor poke) of a DAG task as a child process (docs/dags.md "Node types"):
// the task's template job started through the scheduler's one run start (trigger `dag`), so its
// run environment (the job API's per-run variables, its default scope the run's XCom scope), the
// scrub of its token and staged secrets, its resource monitor and its spawn-failure outcome are a
// job's; the YACRON2_DAG_* variables go over them. Its lines go to a bounded buffer in `outputs`
// while it runs (the task log stream). A task with a `statsd` block sends a job's datagrams for
// each of its processes (every attempt and sensor poke).
// Must not: write the run document (the advancer records the spawn and the outcome), or prepare a
// run's environment, scrub or monitor itself (docs/architecture.md "A run").
import { createDeferred, type Clock } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedDagTask, StatsdTarget } from '../config/index.js';
import {
  DEFAULT_OUTPUT_LIMITS,
  outputLineText,
  type RunHandle,
  type Runner,
} from '../runner/index.js';
import type { AttemptOutputs } from './attempt-outputs.js';
import {
  newRunId,
  startRun,
  type FinishedRun,
  type RunEnvironmentHook,
  type RunMonitor,
  type RunResources,
} from '../scheduler/index.js';
import { dagXcomScope } from '../state/index.js';
import { mapItemOf, type RunDocument, type TaskEntry } from './run-document.js';

export type LaunchableTask = Extract<ResolvedDagTask, { readonly kind: 'task' | 'sensor' }>;

export interface AttemptRequest {
  readonly doc: RunDocument;
  readonly task: LaunchableTask;
  readonly taskKey: string;
  /** The claimed entry (its attempt already counted). */
  readonly entry: TaskEntry;
}

/** The YACRON2_DAG_* variables of an attempt (all strings; the map item JSON-encoded). */
export function dagVariables(request: AttemptRequest): Record<string, string> {
  const { doc, task, taskKey, entry } = request;
  return {
    YACRON2_DAG_NAME: doc.dag,
    YACRON2_DAG_RUN_ID: doc.runId,
    YACRON2_DAG_RUN_KEY: doc.runKey,
    YACRON2_DAG_TASK: task.id,
    YACRON2_DAG_TASKKEY: taskKey,
    YACRON2_DAG_MAP_INDEX: entry.mapIndex === null ? '' : String(entry.mapIndex),
    YACRON2_DAG_MAP_ITEM:
      entry.mapIndex === null ? '' : (JSON.stringify(mapItemOf(doc, entry)) ?? 'null'),
    YACRON2_DAG_XCOM_SCOPE: dagXcomScope(doc.dag, doc.runId),
  };
}

export interface LaunchDeps {
  readonly clock: Clock;
  readonly runner: Runner;
  readonly logger: Logger;
  /** The job API's hook serving now, or null (no job API: no YACRON2_STATE_* variables). */
  readonly runEnvironment: () => RunEnvironmentHook | null;
  /** Samples the processes of tasks with `monitorResources` (the jobs' sampler); none by default. */
  readonly runMonitor?: RunMonitor;
  /** The live output of the attempts running here. */
  readonly outputs: AttemptOutputs;
  /** The statsd datagrams of each process of a task with a `statsd` block; none by default. */
  readonly statsd?: TaskStatsd;
}

/**
 * The job's statsd datagrams for one process (docs/dags.md "Node types"): the start once it
 * spawned, the stop when it ends (with cpu/max_rss lines when the task is monitored).
 */
export interface TaskStatsd {
  started(runId: string, jobName: string, target: StatsdTarget): void;
  stopped(runId: string, success: boolean, resources: RunResources | null): void;
}

export interface StartedAttempt {
  /** The job API's run id (32 hex) of this attempt. */
  readonly runId: string;
  readonly handle: RunHandle;
  /**
   * The process's pid once it is known (onSpawn: a few ms after the launch through the spawn
   * helper); null when the launch failed. Settles before `done`.
   */
  readonly pid: Promise<number | null>;
  /** Settles with the outcome scrubbed of the run's secret values, and what the monitor measured. */
  readonly done: Promise<FinishedRun>;
}

export function startAttempt(deps: LaunchDeps, request: AttemptRequest): StartedAttempt {
  const { task, doc, taskKey } = request;
  const runId = newRunId();
  const { maxLineChars } = DEFAULT_OUTPUT_LIMITS;
  const output = deps.outputs.open(doc.dag, doc.runKey, taskKey, task.job.name, runId);
  const target = task.job.statsd;
  const statsd = target === null ? undefined : deps.statsd;
  const pid = createDeferred<number | null>();
  const label = `DAG ${doc.dag} run ${doc.runKey}: task ${taskKey}`;
  const started = startRun(
    {
      runner: deps.runner,
      logger: deps.logger,
      runEnvironment: deps.runEnvironment(),
      runMonitor: deps.runMonitor ?? null,
    },
    {
      runId,
      job: task.job,
      trigger: 'dag',
      attempt: Math.max(0, request.entry.attempt - 1),
      scheduledAtMs: null,
      defaultScope: dagXcomScope(doc.dag, doc.runId),
      startedAtMs: deps.clock.now(),
      variables: dagVariables(request),
      label,
      // The run start scrubs each line before it reaches onOutput.
      onOutput: (line) =>
        output.push({ stream: line.stream, line: outputLineText(line.line, maxLineChars) }),
      onSpawn: (spawnedPid) => {
        pid.resolve(spawnedPid);
        // A launch failure never spawns: neither datagram is sent, as for a job.
        if (statsd !== undefined && target !== null) statsd.started(runId, task.job.name, target);
      },
    },
  );
  deps.logger.info(`${label} attempt ${request.entry.attempt} started`);
  const done = started.finished.then((finished) => {
    pid.resolve(null); // no-op once spawned
    deps.outputs.close(doc.dag, doc.runKey, taskKey, output);
    statsd?.stopped(runId, finished.outcome.failReason === null, finished.resources);
    return finished;
  });
  return { runId, handle: started.handle, pid: pid.promise, done };
}
