// What happens after a run completes (jobs.md §6, §7.2): classify it, record it, emit run:finished
// and the report hooks, and step the retry ladder. Reporters are subscribers; nothing is awaited.
import { formatSeconds, type Logger, type TypedEmitter } from '../common/index.js';
import type { RunOutcome } from '../runner/index.js';
import { buildRunRecord } from './history.js';
import { pythonBool, pythonRepr } from './outcome.js';
import type { RetryLadder } from './retry-ladder.js';
import type { JobRuntime, RunningInstance } from './run-state.js';
import type { ReportEvent, RunDisposition, SchedulerEvents } from './types.js';

export interface SettlementContext {
  readonly events: TypedEmitter<SchedulerEvents>;
  readonly logger: Logger;
  /** Shutdown began: failures are recorded but neither reported nor retried. */
  readonly stopping: boolean;
  /** Arm the ladder's retry timer for delayMs; returns the epoch ms it is due. */
  readonly armRetry: (ladder: RetryLadder, delayMs: number) => number;
}

/** jobs.md §6, first match wins. */
export function classifyFinishedRun(
  instance: Pick<RunningInstance, 'replaced' | 'cancelled'>,
  outcome: RunOutcome,
  stopping: boolean,
): RunDisposition {
  if (instance.replaced) return 'replaced';
  if (instance.cancelled) return 'cancelled';
  if (outcome.failReason === null) return 'success';
  return stopping ? 'shutdown-failure' : 'failure';
}

export function settleFinishedRun(
  context: SettlementContext,
  instance: RunningInstance,
  outcome: RunOutcome,
  runtime: JobRuntime,
): void {
  const { events, logger } = context;
  const { job } = instance;
  logger.info(
    `Job ${job.name} exit code ${outcome.exitCode}; has stdout: ${pythonBool(Boolean(outcome.stdout?.text))}, ` +
      `has stderr: ${pythonBool(Boolean(outcome.stderr?.text))}; fail_reason: ${pythonRepr(outcome.failReason)}`,
  );
  const disposition = classifyFinishedRun(instance, outcome, context.stopping);
  const record = buildRunRecord(outcome, disposition === 'cancelled');
  const emitFinished = (recorded: boolean): void =>
    events.emit('run:finished', {
      job,
      runId: instance.runId,
      trigger: instance.trigger,
      attempt: instance.attempt,
      scheduledAtMs: instance.scheduledAtMs,
      outcome,
      record,
      recorded,
      disposition,
    });
  if (disposition === 'replaced') {
    logger.info(`Job ${job.name} was replaced by a newer instance`);
    emitFinished(false);
    return;
  }
  runtime.history.push(record);
  if (record.outcome === 'success' || record.outcome === 'failure') {
    runtime.lastRealOutcome = record.outcome;
    runtime.lastRealAtMs = outcome.finishedAtMs;
  }
  emitFinished(true);
  const report: ReportEvent = { job, runId: instance.runId, outcome, record };
  switch (disposition) {
    case 'cancelled':
      instance.ladder?.cancel('cancelled');
      return;
    case 'shutdown-failure':
      return;
    case 'success':
      // Any success removes the job's ladder, even one another instance still holds.
      runtime.ladder?.cancel('succeeded');
      runtime.ladder = null;
      events.emit('report:succeeded', report);
      return;
    case 'failure':
      if (outcome.stdout?.text)
        logger.info(`Job ${job.name} STDOUT:\n${outcome.stdout.text.trimEnd()}`);
      if (outcome.stderr?.text)
        logger.info(`Job ${job.name} STDERR:\n${outcome.stderr.text.trimEnd()}`);
      events.emit('report:failed', report);
      stepLadder(context, instance.ladder, runtime, report);
      return;
  }
}

/** jobs.md §7.2 steps 2–5 for a failed run holding `ladder`. */
function stepLadder(
  context: SettlementContext,
  ladder: RetryLadder | null,
  runtime: JobRuntime,
  report: ReportEvent,
): void {
  const { events, logger } = context;
  if (!ladder || ladder.cancelled) {
    events.emit('report:permanently-failed', report);
    return;
  }
  ladder.abortTimer();
  const step = ladder.step();
  if (step.kind === 'exhausted') {
    ladder.cancel('exhausted');
    if (runtime.ladder === ladder) runtime.ladder = null;
    events.emit('report:permanently-failed', report);
    return;
  }
  logger.info(
    `Cron job ${ladder.jobName} scheduled to be retried (#${step.attempt}) in ${formatSeconds(step.delayMs)} seconds`,
  );
  const retryAtMs = context.armRetry(ladder, step.delayMs);
  events.emit('retry:scheduled', {
    jobName: ladder.jobName,
    attempt: step.attempt,
    delayMs: step.delayMs,
    retryAtMs,
  });
}
