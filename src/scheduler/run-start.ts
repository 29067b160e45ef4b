// The start of one run, the same for a job's launch (launcher.ts) and a DAG task's attempt
// (dags/task-launch.ts), so the security rules of a run have one home (docs/architecture.md
// "A run"): its run id, its run environment from the job API's hook (a failing hook is logged and
// the run starts without it), its scrub of the run's secret values (run-scrub.ts) on every line
// and on the outcome, the runner call (a throw becomes a spawn-failed outcome, as a reported
// launch failure is), and the resource monitor from the spawn to the end (a failing monitor is
// logged, never fails the run).
// Must not: announce, record or settle the run (its caller does), read a clock or decide anything.
import { randomUUID } from 'node:crypto';
import { describeError } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedJob } from '../config/index.js';
import {
  spawnFailedOutcome,
  type OutputLine,
  type RunHandle,
  type RunOutcome,
  type Runner,
} from '../runner/index.js';
import type { RunResources } from './history.js';
import type { RunEnvironment, RunEnvironmentHook, RunMonitor } from './ports.js';
import { runScrubOf, type RunScrub } from './run-scrub.js';
import type { RunTrigger } from './types.js';

export interface RunStartDeps {
  readonly runner: Runner;
  readonly logger: Logger;
  /** The job API's hook serving now, or null (no job API: no YACRON2_STATE_* variables). */
  readonly runEnvironment: RunEnvironmentHook | null;
  /** Samples monitored runs (null = none is sampled). */
  readonly runMonitor: RunMonitor | null;
}

export interface RunStartRequest {
  /** From newRunId(). */
  readonly runId: string;
  readonly job: ResolvedJob;
  readonly trigger: RunTrigger;
  /** Retry count at launch (YACRON2_ATTEMPT); 0 for a first run. */
  readonly attempt: number;
  /** The cron slot this run serves, or null. */
  readonly scheduledAtMs: number | null;
  /** The scope its state calls use when they name none; absent = the job name. */
  readonly defaultScope?: string;
  /** The launch instant (epoch ms): the outcome's and the monitor's start. */
  readonly startedAtMs: number;
  /** Variables over the run environment's (a DAG attempt's YACRON2_DAG_*); they win. */
  readonly variables?: Readonly<Record<string, string>>;
  /** How the log lines name the run: `Job <name>`, `DAG <dag> run <key>: task <taskKey>`. */
  readonly label: string;
  /** Each captured line, already scrubbed of the values known then. */
  readonly onOutput: (line: OutputLine) => void;
  /** The pid is known (the monitor already samples it). */
  readonly onSpawn: (pid: number) => void;
}

export interface FinishedRun {
  /** Scrubbed of the run's secret values. */
  readonly outcome: RunOutcome;
  /** What the monitor measured; null when the run was not sampled. */
  readonly resources: RunResources | null;
}

export interface StartedRun {
  readonly runId: string;
  /** The runner's handle (a settled one when the runner threw). */
  readonly handle: RunHandle;
  /** Settles once the run ended, the monitor stopped; never rejects. */
  readonly finished: Promise<FinishedRun>;
}

/** A run's id: 32 lower-case hex characters, unique per run. */
export function newRunId(): string {
  return randomUUID().replaceAll('-', '');
}

export function startRun(deps: RunStartDeps, request: RunStartRequest): StartedRun {
  const { job, runId, startedAtMs, label } = request;
  let monitored = false;
  const monitor = (pid: number): void => {
    if (monitored) return;
    monitored = true;
    monitorStarted(deps, request, pid);
  };
  let handle: RunHandle;
  let scrub: RunScrub | null = null;
  try {
    const environment = runEnvironmentOf(deps, request);
    scrub = runScrubOf(environment);
    const variables = { ...environment?.variables, ...request.variables };
    handle = deps.runner.start({
      job,
      ...(Object.keys(variables).length === 0 ? {} : { extraEnv: variables }),
      ...(scrub === null ? {} : { scrubLine: scrub.line }),
      onOutput: request.onOutput,
      onSpawn: (pid) => {
        monitor(pid);
        request.onSpawn(pid);
      },
      startedAtMs,
    });
  } catch (error) {
    // The runner reports launch failures as outcomes; a throw is a bug, handled the same way.
    deps.logger.error({ err: error }, `${label}: the runner failed to launch it`);
    handle = settledHandle(
      spawnFailedOutcome(job, describeError(error), {
        startedAtMs,
        finishedAtMs: startedAtMs,
        durationMs: 0,
        cancelReason: null,
        environment: null,
      }),
    );
  }
  // In-process the pid is known when start() returns (onSpawn follows on a microtask).
  if (handle.pid !== undefined) monitor(handle.pid);
  const runScrub = scrub;
  const finished = handle.done.then((outcome) => ({
    outcome: runScrub === null ? outcome : runScrub.outcome(outcome),
    resources: monitorFinished(deps, request),
  }));
  return { runId, handle, finished };
}

/** The run's extra variables from the hook; a failing hook never stops the launch. */
function runEnvironmentOf(
  deps: RunStartDeps,
  request: RunStartRequest,
): RunEnvironment | undefined {
  const hook = deps.runEnvironment;
  if (hook === null) return undefined;
  try {
    return hook({
      job: request.job,
      runId: request.runId,
      trigger: request.trigger,
      attempt: request.attempt,
      scheduledAtMs: request.scheduledAtMs,
      ...(request.defaultScope === undefined ? {} : { defaultScope: request.defaultScope }),
    });
  } catch (error) {
    deps.logger.error(
      { err: error },
      `${request.label}: cannot prepare the run's job API environment`,
    );
    return undefined;
  }
}

function monitorStarted(deps: RunStartDeps, request: RunStartRequest, pid: number): void {
  const monitor = deps.runMonitor;
  if (monitor === null) return;
  try {
    monitor.started({
      job: request.job,
      runId: request.runId,
      pid,
      startedAtMs: request.startedAtMs,
    });
  } catch (error) {
    deps.logger.error({ err: error }, `${request.label}: cannot monitor the run's resources`);
  }
}

function monitorFinished(deps: RunStartDeps, request: RunStartRequest): RunResources | null {
  const monitor = deps.runMonitor;
  if (monitor === null) return null;
  try {
    return monitor.finished(request.runId);
  } catch (error) {
    deps.logger.error({ err: error }, `${request.label}: cannot read the run's resources`);
    return null;
  }
}

function settledHandle(outcome: RunOutcome): RunHandle {
  return { pid: undefined, done: Promise.resolve(outcome), cancel: () => Promise.resolve() };
}
