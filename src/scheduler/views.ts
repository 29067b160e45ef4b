// JSON-ready views for the HTTP layer (http-api A.5, A.6), built purely from a snapshot of one
// job's scheduler state. No I/O and no clock reads: the caller passes `nowMs`.
import type { JobCommand, ResolvedJob } from '../config/index.js';
import { formatIsoUtc, HISTORY_SUMMARY_LIMIT } from './history.js';
import type { RetryLadder } from './retry-ladder.js';
import type { JobView, RetryView, RunRecord, StatusEntry } from './types.js';

export interface JobSnapshot {
  readonly job: ResolvedJob;
  /** Started instances' pids (instances without a pid are running but not listed). */
  readonly pids: readonly number[];
  readonly runningInstances: number;
  readonly nextFireAtMs: number | null;
  /** The newest runs (at least the A.6 summary's 20), oldest first. */
  readonly runs: readonly RunRecord[];
  readonly ladder: RetryLadder | null;
}

export function renderCommand(command: JobCommand): string {
  return command.kind === 'shell' ? command.script : command.argv.join(' ');
}

export function renderSchedule(job: ResolvedJob): string {
  return job.schedule.kind === 'reboot' ? '@reboot' : job.schedule.text;
}

function secondsUntil(atMs: number | null, nowMs: number): number | null {
  return atMs === null ? null : (atMs - nowMs) / 1000;
}

/** A.5: first matching of running / disabled / scheduled. */
export function buildStatusEntry(snapshot: JobSnapshot, nowMs: number): StatusEntry {
  const { job } = snapshot;
  if (snapshot.runningInstances > 0)
    return { job: job.name, status: 'running', pid: snapshot.pids };
  if (!job.enabled) return { job: job.name, status: 'disabled' };
  return {
    job: job.name,
    status: 'scheduled',
    scheduled_in:
      job.schedule.kind === 'reboot' ? '@reboot' : secondsUntil(snapshot.nextFireAtMs, nowMs),
  };
}

/** A.6 `retry`: only while a ladder is armed with count > 0. */
export function buildRetryView(ladder: RetryLadder | null): RetryView | null {
  if (!ladder || ladder.cancelled || ladder.count === 0) return null;
  const { maximumRetries } = ladder.policy;
  return {
    attempt: ladder.count,
    maxAttempts: maximumRetries === -1 ? null : maximumRetries,
    nextRetryAt: ladder.nextRetryAtMs === null ? null : formatIsoUtc(ladder.nextRetryAtMs),
    delaySeconds: ladder.lastDelayMs / 1000,
  };
}

/** A.6 job object (the fields the scheduler owns). */
export function buildJobView(snapshot: JobSnapshot, nowMs: number): JobView {
  const { job } = snapshot;
  const running = snapshot.runningInstances > 0;
  const scheduledIn =
    !job.enabled || running || job.schedule.kind === 'reboot'
      ? null
      : secondsUntil(snapshot.nextFireAtMs, nowMs);
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
    pids: snapshot.pids,
    scheduled_in: scheduledIn,
    last_run: snapshot.runs.at(-1) ?? null,
    history: snapshot.runs
      .slice(Math.max(0, snapshot.runs.length - HISTORY_SUMMARY_LIMIT))
      .map((run) => ({ outcome: run.outcome, duration: run.duration })),
  };
  const retry = buildRetryView(snapshot.ladder);
  return retry ? { ...view, retry } : view;
}
