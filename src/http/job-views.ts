// The API's job shapes (docs/http-api.md "GET /status", "GET /jobs and GET /jobs/{name}"),
// rendered purely from the scheduler's JobState snapshot: seconds to the next fire, ISO instants,
// the rendered command and schedule (the types: wire/jobs.ts). No I/O and no clock reads: the
// caller passes `nowMs`.
import { formatIsoUtc } from '../common/index.js';
import type { JobCommand, ResolvedJob } from '../config/index.js';
import { HISTORY_SUMMARY_LIMIT, type JobState, type RetryState } from '../scheduler/index.js';
import { durationSeconds, renderRunRecord } from './run-records.js';
import type { JobView, RetryView, StatusEntry } from './wire/index.js';

export function renderCommand(command: JobCommand): string {
  return command.kind === 'shell' ? command.script : command.argv.join(' ');
}

export function renderSchedule(job: ResolvedJob): string {
  return job.schedule.text;
}

function secondsUntil(atMs: number | null, nowMs: number): number | null {
  return atMs === null ? null : (atMs - nowMs) / 1000;
}

/** First matching of running / disabled / scheduled. */
export function renderStatusEntry(state: JobState, nowMs: number): StatusEntry {
  const { job } = state;
  if (state.runningInstances > 0) return { job: job.name, status: 'running', pid: state.pids };
  if (!job.enabled) return { job: job.name, status: 'disabled' };
  return {
    job: job.name,
    status: 'scheduled',
    scheduled_in:
      job.schedule.kind === 'reboot' ? '@reboot' : secondsUntil(state.nextFireAtMs, nowMs),
  };
}

export function renderRetryView(retry: RetryState): RetryView {
  return {
    attempt: retry.attempt,
    maxAttempts: retry.maxAttempts,
    nextRetryAt: retry.nextRetryAtMs === null ? null : formatIsoUtc(retry.nextRetryAtMs),
    delaySeconds: retry.delayMs / 1000,
  };
}

/** The job object. */
export function renderJobView(state: JobState, nowMs: number): JobView {
  const { job, recentRuns } = state;
  const running = state.runningInstances > 0;
  const scheduledIn =
    !job.enabled || running || job.schedule.kind === 'reboot'
      ? null
      : secondsUntil(state.nextFireAtMs, nowMs);
  const last = recentRuns.at(-1);
  const view: JobView = {
    name: job.name,
    enabled: job.enabled,
    schedule: renderSchedule(job),
    command: renderCommand(job.command),
    captureStdout: job.captureStdout,
    captureStderr: job.captureStderr,
    // ResolvedJob keeps only the resolved frame; null (local zone) is the only `utc: false` case
    // that can be told apart from it.
    utc: job.timezone !== null,
    timezone: job.timezone,
    running,
    pids: state.pids,
    scheduled_in: scheduledIn,
    last_run: last === undefined ? null : renderRunRecord(last),
    history: recentRuns
      .slice(Math.max(0, recentRuns.length - HISTORY_SUMMARY_LIMIT))
      .map((run) => ({ outcome: run.outcome, duration: durationSeconds(run) })),
  };
  const withRetry = state.retry === null ? view : { ...view, retry: renderRetryView(state.retry) };
  return state.rebootPending ? { ...withRetry, rebootPending: true } : withRetry;
}
