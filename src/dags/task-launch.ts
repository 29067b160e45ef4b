// One attempt (or sensor poke) of a DAG task as a child process (docs/dags.md "Node types"):
// the task's template job through the runner, with the job API's per-run variables (its default
// scope the run's XCom scope) and the YACRON2_DAG_* variables, its output scrubbed of the run's
// token and staged secrets like any job's. Its lines go to a bounded buffer in `outputs` while it
// runs (the task log stream). A task with a `statsd` block sends a job's datagrams for each of its
// processes (every attempt and sensor poke).
// Must not: write the run document (the advancer records the spawn and the outcome).
import { randomUUID } from 'node:crypto';
import { createDeferred, type Logger } from '../common/index.js';
import type { ResolvedDagTask, StatsdTarget } from '../config/index.js';
import {
  DEFAULT_OUTPUT_LIMITS,
  outputLineText,
  type RunHandle,
  type RunOutcome,
  type Runner,
} from '../runner/index.js';
import type { AttemptOutputs } from './attempt-outputs.js';
import { runScrubOf, type RunEnvironment, type RunEnvironmentHook } from '../scheduler/index.js';
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
  readonly runner: Runner;
  readonly logger: Logger;
  /** The job API's hook serving now, or null (no job API: no YACRON2_STATE_* variables). */
  readonly runEnvironment: () => RunEnvironmentHook | null;
  /** The live output of the attempts running here. */
  readonly outputs: AttemptOutputs;
  /** The statsd datagrams of each process of a task with a `statsd` block; none by default. */
  readonly statsd?: TaskStatsd;
}

/**
 * The job's statsd datagrams for one process (docs/dags.md "Node types"): the start once it
 * spawned, the stop when it ends. A task's resources are not monitored, so the stop has no
 * cpu/max_rss lines.
 */
export interface TaskStatsd {
  started(runId: string, jobName: string, target: StatsdTarget): void;
  stopped(runId: string, success: boolean, resources: null): void;
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
  /** Settles with the outcome scrubbed of the run's secret values. */
  readonly done: Promise<RunOutcome>;
}

export function startAttempt(deps: LaunchDeps, request: AttemptRequest): StartedAttempt {
  const { task, doc } = request;
  const runId = randomUUID().replaceAll('-', '');
  const environment = runEnvironmentOf(deps, request, runId);
  const scrub = runScrubOf(environment);
  const { maxLineChars } = DEFAULT_OUTPUT_LIMITS;
  const output = deps.outputs.open(doc.dag, doc.runKey, request.taskKey, task.job.name, runId);
  const target = task.job.statsd;
  const statsd = target === null ? undefined : deps.statsd;
  const pid = createDeferred<number | null>();
  const handle = deps.runner.start({
    job: task.job,
    extraEnv: { ...environment?.variables, ...dagVariables(request) },
    // The runner scrubs each line before it reaches onOutput.
    onOutput: (line) =>
      output.push({ stream: line.stream, line: outputLineText(line.line, maxLineChars) }),
    ...(scrub === null ? {} : { scrubLine: scrub.line }),
    onSpawn: (spawnedPid) => {
      pid.resolve(spawnedPid);
      // A launch failure never spawns: neither datagram is sent, as for a job.
      if (statsd !== undefined && target !== null) statsd.started(runId, task.job.name, target);
    },
  });
  deps.logger.info(
    `DAG ${doc.dag} run ${doc.runKey}: task ${request.taskKey} attempt ${request.entry.attempt} started`,
  );
  const done = handle.done.then((outcome) => {
    pid.resolve(null); // no-op once spawned
    deps.outputs.close(doc.dag, doc.runKey, request.taskKey, output);
    statsd?.stopped(runId, outcome.failReason === null, null);
    return scrub === null ? outcome : scrub.outcome(outcome);
  });
  return { runId, handle, pid: pid.promise, done };
}

function runEnvironmentOf(
  deps: LaunchDeps,
  request: AttemptRequest,
  runId: string,
): RunEnvironment | undefined {
  const hook = deps.runEnvironment();
  if (hook === null) return undefined;
  try {
    return hook({
      job: request.task.job,
      runId,
      trigger: 'manual',
      attempt: Math.max(0, request.entry.attempt - 1),
      scheduledAtMs: null,
      defaultScope: dagXcomScope(request.doc.dag, request.doc.runId),
    });
  } catch (error) {
    deps.logger.error(
      { err: error },
      `DAG ${request.doc.dag}: cannot prepare the job API environment of task ${request.taskKey}`,
    );
    return undefined;
  }
}
