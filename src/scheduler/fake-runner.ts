// A Runner for tests: no processes. Each start is recorded as a FakeRun the test completes by hand
// (succeed/fail/complete) or that follows a scripted result, optionally after a FakeClock delay.
// Cancels are recorded and finish the run as `killed` (optionally after cancelDelayMs).
// With spawnDelayMs it starts like the spawn helper: the pid is unknown when start() returns and
// onSpawn fires that much later (a failing launch settles then instead; a cancel waits for it).
import { createDeferred, type Clock } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import {
  decideFailReason,
  spawnFailedOutcome,
  type CancelReason,
  type CapturedStream,
  type OutputStream,
  type RunHandle,
  type RunOutcome,
  type Runner,
  type RunRequest,
} from '../runner/index.js';

export interface FakeResult {
  /** Default 0. */
  readonly exitCode?: number;
  /** Captured text (ignored unless the job captures the stream). */
  readonly stdout?: string;
  readonly stderr?: string;
  /** Finish automatically this long after the start (FakeClock time); 0 = on the next microtask. */
  readonly durationMs?: number;
  /** The launch fails: no pid, exit code 127. */
  readonly spawnFails?: boolean;
  /** executionTimeout fired: exit code -100. */
  readonly timedOut?: boolean;
}

export interface FakeRunnerOptions {
  readonly clock: Clock;
  /** How long (clock time) a cancel takes before the run is reported killed; default 0. */
  readonly cancelDelayMs?: number;
  /** First pid handed out; default 1000. */
  readonly firstPid?: number;
  /** The pid comes this long (clock time) after start() returned, as through the spawn helper. */
  readonly spawnDelayMs?: number;
}

function captured(enabled: boolean, text: string | undefined): CapturedStream | null {
  return enabled ? { text: text ?? '', discardedLines: 0, truncated: false } : null;
}

export class FakeRun {
  readonly request: RunRequest;
  readonly job: ResolvedJob;
  /** The pid it gets (undefined: the launch fails); handle.pid only once it is announced. */
  readonly pid: number | undefined;
  /** Every cancel() call's reason, in order. */
  readonly cancels: CancelReason[] = [];
  readonly handle: RunHandle;
  readonly #clock: Clock;
  readonly #cancelDelayMs: number;
  readonly #startedAtMs: number;
  readonly #startedMonotonicMs: number;
  readonly #done = createDeferred<RunOutcome>();
  /** Resolves once the pid is announced or the launch failed. */
  readonly #launched = createDeferred<void>();
  #spawned = false;
  #outcome: RunOutcome | undefined;
  #cancelling: Promise<void> | undefined;

  constructor(request: RunRequest, pid: number | undefined, clock: Clock, cancelDelayMs: number) {
    this.request = request;
    this.job = request.job;
    this.pid = pid;
    this.#clock = clock;
    this.#cancelDelayMs = cancelDelayMs;
    this.#startedAtMs = request.startedAtMs ?? clock.now();
    this.#startedMonotonicMs = clock.monotonic();
    const knownPid = (): number | undefined => (this.#spawned ? this.pid : undefined);
    this.handle = {
      get pid() {
        return knownPid();
      },
      done: this.#done.promise,
      cancel: (reason) => this.#cancel(reason),
    };
  }

  /** The pid is known: handle.pid is set and onSpawn fires (once; not for a failing launch). */
  spawn(): void {
    if (this.#spawned || this.pid === undefined || this.#outcome) return;
    this.#spawned = true;
    this.#launched.resolve();
    this.request.onSpawn?.(this.pid);
  }

  get finished(): boolean {
    return this.#outcome !== undefined;
  }

  get outcome(): RunOutcome | undefined {
    return this.#outcome;
  }

  /** Finish with a result; ignored when already finished. */
  complete(result: FakeResult = {}, cancelReason: CancelReason | null = null): void {
    if (this.#outcome) return;
    const { job } = this;
    const timing = {
      cancelReason,
      startedAtMs: this.#startedAtMs,
      finishedAtMs: this.#clock.now(),
      durationMs: this.#clock.monotonic() - this.#startedMonotonicMs,
      // The real runner's is the whole child environment; the injected part stands for it here.
      environment: this.request.extraEnv === undefined ? null : { ...this.request.extraEnv },
    };
    if (result.spawnFails) {
      this.#launched.resolve();
      this.#finish(spawnFailedOutcome(job, 'spawn ENOENT', timing));
      return;
    }
    const exitCode = result.timedOut ? -100 : (result.exitCode ?? 0);
    const stdout = captured(job.captureStdout, result.stdout);
    const stderr = captured(job.captureStderr, result.stderr);
    const failReason = decideFailReason(job.failsWhen, exitCode, stdout, stderr);
    const pid = this.#spawned ? (this.pid ?? null) : null;
    const ran = { ...timing, exitCode, stdout, stderr, pid, spawnError: null };
    if (result.timedOut) this.#finish({ ...ran, kind: 'timed-out', failReason });
    else if (cancelReason) this.#finish({ ...ran, kind: 'killed', failReason, cancelReason });
    else if (failReason === null) this.#finish({ ...ran, kind: 'succeeded', failReason });
    else this.#finish({ ...ran, kind: 'failed', failReason });
  }

  #finish(outcome: RunOutcome): void {
    this.#outcome = outcome;
    this.#done.resolve(outcome);
  }

  succeed(): void {
    this.complete({ exitCode: 0 });
  }

  fail(exitCode = 1): void {
    this.complete({ exitCode });
  }

  /** Deliver a captured output line to the scheduler's onOutput hook (scrubbed as the runner does). */
  emitOutput(stream: OutputStream, line: string): void {
    const scrubLine = this.request.scrubLine;
    this.request.onOutput?.({ stream, line: scrubLine === undefined ? line : scrubLine(line) });
  }

  #cancel(reason: CancelReason): Promise<void> {
    this.cancels.push(reason);
    if (this.#outcome) return Promise.resolve();
    // As the runner: a cancel before the pid applies once the pid is known.
    this.#cancelling ??= this.#launched.promise.then(
      () =>
        new Promise<void>((resolve) => {
          const kill = (): void => {
            this.complete({ exitCode: -15 }, reason);
            resolve();
          };
          if (this.#outcome) resolve();
          else if (this.#cancelDelayMs > 0) this.#clock.setTimer(kill, this.#cancelDelayMs);
          else kill();
        }),
    );
    return this.#cancelling;
  }
}

export class FakeRunner implements Runner {
  /** Every start, in order. */
  readonly runs: FakeRun[] = [];
  cancelDelayMs: number;
  spawnDelayMs: number;
  readonly #clock: Clock;
  readonly #scripts = new Map<string, FakeResult[]>();
  #default: FakeResult | 'manual' = 'manual';
  #nextPid: number;

  constructor(options: FakeRunnerOptions) {
    this.#clock = options.clock;
    this.cancelDelayMs = options.cancelDelayMs ?? 0;
    this.spawnDelayMs = options.spawnDelayMs ?? 0;
    this.#nextPid = options.firstPid ?? 1000;
  }

  /** Queue results for the next starts of `jobName`; each start consumes one. */
  script(jobName: string, ...results: FakeResult[]): void {
    const queue = this.#scripts.get(jobName) ?? [];
    queue.push(...results);
    this.#scripts.set(jobName, queue);
  }

  /** What unscripted starts do: a result, or 'manual' (run until the test completes it). */
  setDefault(result: FakeResult | 'manual'): void {
    this.#default = result;
  }

  start(request: RunRequest): RunHandle {
    const result = this.#scripts.get(request.job.name)?.shift() ?? this.#default;
    const pid = result !== 'manual' && result.spawnFails ? undefined : this.#nextPid++;
    const run = new FakeRun(request, pid, this.#clock, this.cancelDelayMs);
    this.runs.push(run);
    const delayed = this.spawnDelayMs > 0;
    if (delayed) this.#clock.setTimer(() => run.spawn(), this.spawnDelayMs);
    else run.spawn();
    if (result !== 'manual') {
      const finish = (): void => run.complete(result);
      const durationMs = result.spawnFails ? 0 : (result.durationMs ?? 0);
      if (delayed) this.#clock.setTimer(finish, this.spawnDelayMs + durationMs);
      else if (durationMs === 0) queueMicrotask(finish);
      else this.#clock.setTimer(finish, durationMs);
    }
    return run.handle;
  }

  runsOf(jobName: string): FakeRun[] {
    return this.runs.filter((run) => run.job.name === jobName);
  }

  /** Runs not finished yet. */
  running(jobName?: string): FakeRun[] {
    return this.runs.filter(
      (run) => !run.finished && (jobName === undefined || run.job.name === jobName),
    );
  }

  /** The newest run of a job (throws when it never started: a test bug). */
  last(jobName: string): FakeRun {
    const run = this.runsOf(jobName).at(-1);
    if (!run) throw new Error(`FakeRunner: job ${jobName} never started`);
    return run;
  }
}
