// What happens after a run completes (docs/architecture.md "A run", "A retry"): classify it, record
// it, emit run:finished and the report hooks, and tell the retry ladders (retries.ts) how it ended.
// Reporters are subscribers; nothing is awaited.
import { pythonRepr, type TypedEmitter } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { RunOutcome } from '../runner/index.js';
import { summarizeRun, type RunResources } from './history.js';
import type { JobRuntime, RunningInstance } from './job-runtime.js';
import type { Retries } from './retries.js';
import type { ReportEvent, RunDisposition, SchedulerEvents } from './types.js';

export interface SettlementContext {
  readonly events: TypedEmitter<SchedulerEvents>;
  readonly logger: Logger;
  /** Shutdown began: failures are recorded but neither reported nor retried. */
  readonly stopping: boolean;
  /** The ladders: settlement tells them how each run ended (docs/architecture.md "A retry"). */
  readonly retries: Retries;
}

/** docs/configuration.md "How a run works", first match wins. */
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
  resources: RunResources | null,
): void {
  const { events, logger } = context;
  const { job } = instance;
  logger.info(
    `Job ${job.name} exit code ${outcome.exitCode}; has stdout: ${pythonBool(Boolean(outcome.stdout?.text))}, ` +
      `has stderr: ${pythonBool(Boolean(outcome.stderr?.text))}; fail_reason: ${outcome.failReason === null ? 'None' : pythonRepr(outcome.failReason)}`,
  );
  const disposition = classifyFinishedRun(instance, outcome, context.stopping);
  const summary = summarizeRun(outcome, disposition === 'cancelled', resources);
  const emitFinished = (recorded: boolean): void =>
    events.emit('run:finished', {
      job,
      runId: instance.runId,
      trigger: instance.trigger,
      attempt: instance.attempt,
      scheduledAtMs: instance.scheduledAtMs,
      outcome,
      summary,
      recorded,
      disposition,
    });
  if (disposition === 'replaced') {
    logger.info(`Job ${job.name} was replaced by a newer instance`);
    emitFinished(false);
    return;
  }
  runtime.history.push(summary);
  if (summary.outcome === 'success' || summary.outcome === 'failure') {
    runtime.lastRealOutcome = summary.outcome;
    runtime.lastRealAtMs = summary.finishedAtMs;
  }
  emitFinished(true);
  const report: ReportEvent = { job, runId: instance.runId, outcome, summary };
  switch (disposition) {
    case 'cancelled':
      context.retries.cancelledRun(instance.ladder);
      return;
    case 'shutdown-failure':
      return;
    case 'success':
      // Any success removes the job's ladder, even one another instance still holds.
      context.retries.succeeded(job.name);
      events.emit('report:succeeded', report);
      return;
    case 'failure':
      if (outcome.stdout?.text)
        logger.info(`Job ${job.name} STDOUT:\n${outcome.stdout.text.trimEnd()}`);
      if (outcome.stderr?.text)
        logger.info(`Job ${job.name} STDERR:\n${outcome.stderr.text.trimEnd()}`);
      events.emit('report:failed', report);
      if (context.retries.failed(job, instance.ladder) === 'permanent') {
        events.emit('report:permanently-failed', report);
      }
      return;
  }
}

/** Python's spelling of a boolean, as the per-run log line prints it. */
function pythonBool(value: boolean): string {
  return value ? 'True' : 'False';
}
