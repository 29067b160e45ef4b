// The start-up self-test (docs/dashboard.md "Start-up self-test"): at page load a screen checks
// the control API step by step (the daemon answers, the token, the version, the job set, the
// cluster, the job list) and shows OK or FAIL per line, then READY. It never holds the page up:
// the page starts underneath at once, every step has a time limit and the whole test a
// deadline, a failure shows FAIL and the next step runs, and a refused token or a daemon that
// does not answer ends the test early (the later steps would only fail the same way). The step
// list, what each answer means, the sequencing and when the screen is due. Pure but for the
// injected clock.
// Must not: touch the DOM or the network (the page's adapter, ui/screen/self-test-view.ts, runs
// the requests through the API client and draws the lines).
import type { Clock } from '../../common/clock.js';
import type { JobSetIdWire } from './api-types.js';
import { shortJobSetId, summarizeCluster, type ClusterWire } from './cluster.js';

export type StepId = 'daemon' | 'token' | 'version' | 'job-set' | 'cluster' | 'jobs';

export const SELF_TEST_STEPS: readonly { readonly id: StepId; readonly label: string }[] = [
  { id: 'daemon', label: 'Daemon answers' },
  { id: 'token', label: 'Access token' },
  { id: 'version', label: 'Daemon version' },
  { id: 'job-set', label: 'Job set' },
  { id: 'cluster', label: 'Cluster' },
  { id: 'jobs', label: 'Job list' },
];

export type StepOutcome =
  | { readonly kind: 'ok'; readonly detail: string }
  /** `halts`: the steps after this one are not run (they would fail the same way). */
  | { readonly kind: 'fail'; readonly detail: string; readonly halts: boolean }
  | { readonly kind: 'skipped'; readonly detail: string };

/** What one request got. */
export type Probe<T> =
  | { readonly kind: 'answer'; readonly value: T }
  | { readonly kind: 'status'; readonly status: number }
  | { readonly kind: 'no-answer'; readonly message: string };

const MAX_DETAIL = 80;

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL - 1)}…` : line;
}

function failed(probe: Probe<unknown>): StepOutcome {
  return probe.kind === 'status'
    ? { kind: 'fail', detail: `HTTP ${probe.status}`, halts: false }
    : {
        kind: 'fail',
        detail: clip(`no answer: ${probe.kind === 'no-answer' ? probe.message : ''}`),
        halts: false,
      };
}

/** `GET /version`: any HTTP answer means the daemon is there. */
export function daemonOutcome(probe: Probe<unknown>): StepOutcome {
  return probe.kind === 'no-answer'
    ? { kind: 'fail', detail: clip(`no answer: ${probe.message}`), halts: true }
    : { kind: 'ok', detail: 'answering' };
}

/** `GET /version` again: a 401 is a missing or refused token, and ends the test. */
export function tokenOutcome(probe: Probe<unknown>, hasToken: boolean): StepOutcome {
  if (probe.kind === 'answer') return { kind: 'ok', detail: hasToken ? 'accepted' : 'not needed' };
  if (probe.kind === 'status' && probe.status === 401)
    return {
      kind: 'fail',
      detail: hasToken
        ? 'refused: the page asks for the current one'
        : 'needed: the page asks for one',
      halts: true,
    };
  return probe.kind === 'status'
    ? { kind: 'fail', detail: `not checked: HTTP ${probe.status}`, halts: false }
    : { kind: 'fail', detail: 'not checked: no answer', halts: true };
}

export function versionOutcome(probe: Probe<string>): StepOutcome {
  return probe.kind === 'answer' ? { kind: 'ok', detail: clip(probe.value) } : failed(probe);
}

export function jobSetOutcome(probe: Probe<JobSetIdWire>): StepOutcome {
  if (probe.kind !== 'answer') return failed(probe);
  const { job_set_id: id, jobs } = probe.value;
  return { kind: 'ok', detail: `${shortJobSetId(id)} · ${jobs} job${jobs === 1 ? '' : 's'}` };
}

/** `GET /cluster` (null: the route is not there). A conflict or a lost quorum is a FAIL. */
export function clusterOutcome(probe: Probe<ClusterWire | null>): StepOutcome {
  if (probe.kind !== 'answer') return failed(probe);
  const summary = probe.value === null ? null : summarizeCluster(probe.value);
  if (summary === null) return { kind: 'ok', detail: 'standalone (no cluster)' };
  const text = `${summary.backend} · node ${summary.node} · ${summary.roleText}`;
  return summary.alerts.length > 0
    ? { kind: 'fail', detail: clip(`${text}: ${summary.alerts[0]}`), halts: false }
    : { kind: 'ok', detail: clip(text) };
}

/** The page's own first `GET /jobs` (the self-test does not ask for the whole list again). */
export type FirstPoll =
  | { readonly kind: 'jobs'; readonly total: number; readonly failing: number }
  | { readonly kind: 'unauthorized' }
  | { readonly kind: 'error'; readonly message: string };

export function jobsOutcome(poll: FirstPoll): StepOutcome {
  switch (poll.kind) {
    case 'jobs':
      return {
        kind: 'ok',
        detail: `${poll.total} job${poll.total === 1 ? '' : 's'} loaded${poll.failing > 0 ? `, ${poll.failing} failing` : ''}`,
      };
    case 'unauthorized':
      return { kind: 'fail', detail: 'token refused', halts: false };
    case 'error':
      return { kind: 'fail', detail: clip(poll.message), halts: false };
  }
}

export type SelfTestVerdict =
  | { readonly kind: 'ready' }
  | { readonly kind: 'degraded'; readonly failed: number }
  | { readonly kind: 'halted'; readonly label: string; readonly detail: string }
  /** Skipped by a key or a click. */
  | { readonly kind: 'skipped' };

export interface RunnableStep {
  readonly id: StepId;
  readonly label: string;
  /** Resolves with the outcome; `signal` aborts when the step's time is up or on a skip. */
  readonly run: (signal: AbortSignal) => Promise<StepOutcome>;
  /** The outcome when the step's time is up (default: FAIL, the next step runs). */
  readonly onTimeout?: StepOutcome;
}

export interface SelfTestOptions {
  readonly clock: Clock;
  /** Each step's time limit. */
  readonly stepTimeoutMs: number;
  /** The pause after each line (the screen's pace). */
  readonly paceMs: number;
  /** From the start: steps not begun by then are skipped. */
  readonly deadlineMs: number;
  /** A key or a click: the test ends at once. */
  readonly skip: AbortSignal;
  readonly onStart: (step: RunnableStep) => void;
  readonly onResult: (step: RunnableStep, outcome: StepOutcome) => void;
}

export const SELF_TEST_TIMING = { stepTimeoutMs: 3000, paceMs: 120, deadlineMs: 12_000 } as const;

async function runStep(step: RunnableStep, options: SelfTestOptions): Promise<StepOutcome> {
  const controller = new AbortController();
  let resolveTimeout: (outcome: StepOutcome) => void = () => undefined;
  const timedOut = new Promise<StepOutcome>((resolve) => (resolveTimeout = resolve));
  // A skip ends the step at once, whether or not its request heeds the abort.
  const onSkip = (): void => {
    controller.abort();
    resolveTimeout({ kind: 'skipped', detail: 'skipped' });
  };
  options.skip.addEventListener('abort', onSkip, { once: true });
  const timer = options.clock.setTimer(() => {
    controller.abort();
    resolveTimeout(
      step.onTimeout ?? {
        kind: 'fail',
        detail: `no answer in ${options.stepTimeoutMs / 1000} s`,
        halts: false,
      },
    );
  }, options.stepTimeoutMs);
  const ran = step.run(controller.signal).catch((error: unknown): StepOutcome => ({
    kind: 'fail',
    detail: clip(error instanceof Error ? error.message : String(error)),
    halts: false,
  }));
  try {
    return await Promise.race([ran, timedOut]);
  } finally {
    timer.cancel();
    options.skip.removeEventListener('abort', onSkip);
  }
}

/** Runs the steps in order, one at a time; resolves with the verdict (never rejects). */
export async function runSelfTest(
  steps: readonly RunnableStep[],
  options: SelfTestOptions,
): Promise<SelfTestVerdict> {
  const { clock, skip } = options;
  const startMs = clock.monotonic();
  let halted: { label: string; detail: string } | null = null;
  let failures = 0;
  for (const step of steps) {
    if (skip.aborted) return { kind: 'skipped' };
    if (halted !== null || clock.monotonic() - startMs >= options.deadlineMs) {
      options.onResult(step, {
        kind: 'skipped',
        detail: halted !== null ? 'not checked after the failure above' : 'out of time',
      });
      continue;
    }
    options.onStart(step);
    const outcome = await runStep(step, options);
    if (skip.aborted) return { kind: 'skipped' };
    options.onResult(step, outcome);
    if (outcome.kind === 'fail') {
      failures += 1;
      if (outcome.halts) halted = { label: step.label, detail: outcome.detail };
    }
    try {
      await clock.sleep(options.paceMs, skip);
    } catch {
      return { kind: 'skipped' };
    }
  }
  if (halted !== null) return { kind: 'halted', ...halted };
  return failures > 0 ? { kind: 'degraded', failed: failures } : { kind: 'ready' };
}

/** The screen shows at most once in this long (a reload soon after starts the page directly). */
export const SELF_TEST_COOLDOWN_MS = 12 * 60 * 60 * 1000;

/** The stored instant the screen last ran (epoch ms), or null when missing or malformed. */
export function parseShownAt(text: string | null): number | null {
  if (text === null || !/^\d{1,16}$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/** Whether the screen runs at this load. */
export function selfTestDue(facts: {
  readonly enabled: boolean;
  readonly reducedMotion: boolean;
  readonly nowMs: number;
  readonly shownAtMs: number | null;
}): boolean {
  if (!facts.enabled || facts.reducedMotion) return false;
  const { shownAtMs, nowMs } = facts;
  // A stamp in the future (the clock was set back) does not silence the screen for good.
  return shownAtMs === null || shownAtMs > nowMs || nowMs - shownAtMs >= SELF_TEST_COOLDOWN_MS;
}
