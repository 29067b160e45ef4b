// One run = one child process in its own process group: spawn, capture, executionTimeout, the
// cancel sequence over the whole group, and the RunOutcome once it exited AND its pipes closed.
// executionTimeout covers the whole run, pipes included: a background child that keeps the
// captured output open is the run's too. Without a timeout, such a child gets OUTPUT_DRAIN_MS
// after the command exited, then the group is killed (and the pipes given up if something that
// left the group still holds them). Never throws for a failing job; spawn errors become a
// `spawn-failed` outcome. The process is started by the context's Spawner (in-process, or the
// spawn helper: then the pid and the captured pipes arrive a moment after start() returned).
import { ChildProcess, type SpawnOptions } from 'node:child_process';
import type { Readable } from 'node:stream';
import {
  createDeferred,
  describeError,
  formatSeconds,
  settlesWithin,
  type Clock,
  type TimerHandle,
} from '../common/index.js';
import { type Logger } from '../logging/index.js';
import { buildChildEnvironment } from './child-environment.js';
import { buildCommandArgv, needsIdentitySwitch, wrapWithSetpriv } from './command-line.js';
import { decideFailReason } from './fail-reason.js';
import { posixIdProblem } from './posix-id.js';
import { exitCodeFromStatus, signalProcessGroup } from './process-group.js';
import { closeOutput, type SpawnedChild, type Spawner } from './spawner.js';
import { spawnFailedOutcome, type SpawnFailedTiming } from './spawn-failed.js';
import { StreamCapture } from './stream-capture.js';
import type { CancelReason, OutputStream, RunHandle, RunOutcome, RunRequest } from './types.js';

export const TIMEOUT_EXIT_CODE = -100;
/**
 * How long the captured pipes may stay open after the command itself exited: then whatever is
 * left of its process group gets SIGKILL, and after as long again the pipes are closed on our
 * side (a process that left the group cannot hold the run open for ever).
 */
export const OUTPUT_DRAIN_MS = 5_000;

export interface ChildRunContext {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly baseEnv: NodeJS.ProcessEnv;
  /** Variables of baseEnv that secret sources name: left out of the child's environment. */
  secretEnvNames(): ReadonlySet<string>;
  /** The setpriv binary for identity switches, or null to use Node's uid/gid options. */
  setprivPath(): string | null;
  /** The job's rendered stream prefix (cached per job). */
  streamPrefix(stream: OutputStream): string;
  /** Starts the process: in-process or through the spawn helper. */
  readonly spawner: Spawner;
}

export class ChildRun implements RunHandle {
  readonly #ctx: ChildRunContext;
  readonly #request: RunRequest;
  readonly #done = createDeferred<RunOutcome>();
  /** Resolves when the direct child has exited (or never started). */
  readonly #exited = createDeferred<void>();
  /** Resolves once the pid is known, or the launch failed (then the run is settled). */
  readonly #launched = createDeferred<void>();
  #pid: number | undefined;
  #hasExited = false;
  #settled = false;
  #startedAtMs = 0;
  #startedMonotonicMs = 0;
  #environment: Record<string, string> | null = null;
  #stdoutCapture: StreamCapture | null = null;
  #stderrCapture: StreamCapture | null = null;
  #timeoutTimer: TimerHandle | undefined;
  /** Armed when the command exited while a captured pipe was still open. */
  #drainTimer: TimerHandle | undefined;
  #child: SpawnedChild | undefined;
  /** executionTimeout fired while the process was alive: the exit code is −100 for good. */
  #timedOut = false;
  /** A cancel was requested while the process was alive. */
  #killed = false;
  #cancelReason: CancelReason | null = null;
  #termination: Promise<void> | undefined;

  constructor(ctx: ChildRunContext, request: RunRequest) {
    this.#ctx = ctx;
    this.#request = request;
  }

  get pid(): number | undefined {
    return this.#pid;
  }

  get done(): Promise<RunOutcome> {
    return this.#done.promise;
  }

  cancel(reason: CancelReason): Promise<void> {
    if (this.#settled) return this.#termination ?? Promise.resolve();
    this.#cancelReason ??= reason;
    if (!this.#hasExited && !this.#timedOut) this.#killed = true;
    return this.#terminate();
  }

  /** Synchronous up to and including the fork; everything after is event-driven. */
  start(): void {
    const { job, extraEnv } = this.#request;
    this.#startedAtMs = this.#request.startedAtMs ?? this.#ctx.clock.now();
    this.#startedMonotonicMs = this.#ctx.clock.monotonic();
    const environment = buildChildEnvironment(
      job,
      this.#ctx.baseEnv,
      extraEnv,
      this.#ctx.secretEnvNames(),
    );
    this.#environment = environment.environment;

    let argv = buildCommandArgv(job.command, job.shell);
    const options: SpawnOptions = {
      env: environment.spawnEnv ?? this.#ctx.baseEnv,
      stdio: [
        'inherit',
        job.captureStdout ? 'pipe' : 'inherit',
        job.captureStderr ? 'pipe' : 'inherit',
      ],
      // setsid(): the run leads its own process group, so timeouts and cancels reach every
      // descendant that did not leave the group. The child is never unref'd.
      detached: true,
    };
    if (needsIdentitySwitch(job)) {
      const idProblem = posixIdProblem('uid', job.uid) ?? posixIdProblem('gid', job.gid);
      if (idProblem !== null) {
        this.#failSpawn(new Error(idProblem));
        return;
      }
      const setpriv = this.#ctx.setprivPath();
      if (setpriv !== null) {
        argv = wrapWithSetpriv(setpriv, job, argv);
      } else {
        if (job.uid !== null) options.uid = job.uid;
        if (job.gid !== null) options.gid = job.gid;
      }
    }
    const [file, ...args] = argv;
    if (file === undefined) {
      this.#failSpawn(new Error('the command is empty'));
      return;
    }

    let child: SpawnedChild;
    try {
      child = this.#ctx.spawner.spawn(file, args, options);
    } catch (error) {
      this.#failSpawn(error);
      return;
    }
    child.on('error', (error: Error) => {
      if (this.#pid === undefined) this.#failSpawn(error);
      else this.#ctx.logger.warn({ err: error }, `Job ${job.name}: child process error`);
    });
    // A ChildProcess without a pid failed to spawn ('error' follows); the helper's pid comes later.
    if (child.pid === undefined && child instanceof ChildProcess) return;

    this.#child = child;
    this.#stdoutCapture = job.captureStdout ? this.#capture('stdout') : null;
    this.#stderrCapture = job.captureStderr ? this.#capture('stderr') : null;
    this.#attach('stdout', child.stdout);
    this.#attach('stderr', child.stderr);
    child.on('stdio', (stream, readable) => this.#attach(stream, readable));
    child.once('exit', () => this.#onExit());
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) =>
      this.#onClose(code, signal),
    );
    if (job.executionTimeoutMs !== null) {
      this.#timeoutTimer = this.#ctx.clock.setTimer(
        () => this.#onTimeout(),
        job.executionTimeoutMs,
      );
    }
    const pid = child.pid;
    if (pid === undefined) {
      child.once('spawn', () => {
        if (child.pid !== undefined) this.#onSpawned(child.pid);
      });
      return;
    }
    this.#pid = pid;
    this.#launched.resolve();
    // After start() returned the handle, before any output event.
    queueMicrotask(() => this.#notifySpawn(pid));
  }

  /** The pid arrived from the spawn helper. */
  #onSpawned(pid: number): void {
    if (this.#settled || this.#pid !== undefined) return;
    this.#pid = pid;
    this.#launched.resolve();
    this.#notifySpawn(pid);
  }

  #notifySpawn(pid: number): void {
    const onSpawn = this.#request.onSpawn;
    if (!onSpawn) return;
    try {
      onSpawn(pid);
    } catch (error) {
      this.#ctx.logger.error(
        { err: error },
        `Job ${this.#request.job.name}: onSpawn listener failed`,
      );
    }
  }

  #attach(stream: OutputStream, readable: Readable | null): void {
    const capture = stream === 'stdout' ? this.#stdoutCapture : this.#stderrCapture;
    if (readable) capture?.attach(readable);
  }

  #capture(stream: OutputStream): StreamCapture {
    const { job, onOutput, scrubLine } = this.#request;
    const capture = new StreamCapture({
      jobName: job.name,
      stream,
      prefix: this.#ctx.streamPrefix(stream),
      maxLineLength: job.maxLineLength,
      saveLimit: job.saveLimit,
      destination: stream === 'stdout' ? this.#ctx.stdout : this.#ctx.stderr,
      onOutput,
      scrubLine,
      logger: this.#ctx.logger,
    });
    return capture;
  }

  #onExit(): void {
    if (this.#hasExited) return;
    this.#hasExited = true;
    this.#exited.resolve();
    // 'close' normally follows at once; the timer only matters when something holds a pipe.
    if (!this.#settled) {
      this.#drainTimer = this.#ctx.clock.setTimer(() => this.#onDrainExpired(), OUTPUT_DRAIN_MS);
    }
  }

  /** The command exited OUTPUT_DRAIN_MS ago and a captured pipe is still open. */
  #onDrainExpired(): void {
    this.#drainTimer = undefined;
    const pid = this.#pid;
    if (this.#settled || pid === undefined) return;
    const job = this.#request.job;
    this.#ctx.logger.warn(
      `Job ${job.name}: its command exited but a background process still holds its output open after ${formatSeconds(OUTPUT_DRAIN_MS)} seconds; killing its process group`,
    );
    signalProcessGroup(pid, 'SIGKILL');
    this.#drainTimer = this.#ctx.clock.setTimer(() => {
      this.#drainTimer = undefined;
      if (this.#settled) return;
      // Only a process that left the group can still hold the pipes: stop reading them.
      this.#ctx.logger.warn(
        `Job ${job.name}: a process outside its process group holds its output open; closing the pipes`,
      );
      if (this.#child !== undefined) closeOutput(this.#child);
    }, OUTPUT_DRAIN_MS);
  }

  #onTimeout(): void {
    this.#timeoutTimer = undefined;
    if (this.#settled) return;
    const job = this.#request.job;
    this.#timedOut = true;
    this.#ctx.logger.info(
      `Job ${job.name} exceeded its executionTimeout of ${formatSeconds(job.executionTimeoutMs ?? 0)} seconds, cancelling it...`,
    );
    void this.#terminate();
  }

  /** The cancel sequence, run at most once (timeout and cancel share it). Never rejects. */
  #terminate(): Promise<void> {
    this.#termination ??= this.#runTermination();
    return this.#termination;
  }

  async #runTermination(): Promise<void> {
    // Through the helper a cancel can come before the pid: it applies once the pid is known.
    if (this.#pid === undefined && this.#child !== undefined) await this.#launched.promise;
    const pid = this.#pid;
    if (pid === undefined) return;
    const job = this.#request.job;
    if (!this.#hasExited) {
      signalProcessGroup(pid, 'SIGTERM');
      const exitedInTime = await this.#waitForExit(job.killTimeoutMs);
      if (!exitedInTime) {
        this.#ctx.logger.warn(
          `Job ${job.name} did not gracefully terminate after ${formatSeconds(job.killTimeoutMs)} seconds, killing it...`,
        );
        signalProcessGroup(pid, 'SIGKILL');
        await this.#exited.promise;
      }
    }
    // The direct child is gone; leave no straggler of its group (they would also hold pipes open
    // and delay completion).
    signalProcessGroup(pid, 'SIGKILL');
  }

  /** True when the direct child exited within `ms`. */
  #waitForExit(ms: number): Promise<boolean> {
    if (this.#hasExited) return Promise.resolve(true);
    return settlesWithin(this.#exited.promise, ms, this.#ctx.clock);
  }

  #onClose(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#settled) return;
    this.#hasExited = true; // 'exit' always precedes 'close'; this is only a guard
    this.#exited.resolve();
    this.#stdoutCapture?.finish();
    this.#stderrCapture?.finish();
    const exitCode = this.#timedOut ? TIMEOUT_EXIT_CODE : exitCodeFromStatus(code, signal);
    const stdout = this.#stdoutCapture?.result() ?? null;
    const stderr = this.#stderrCapture?.result() ?? null;
    const failReason = decideFailReason(this.#request.job.failsWhen, exitCode, stdout, stderr);
    const timing = this.#settle();
    const cancelReason = this.#cancelReason;
    const ran = { ...timing, exitCode, stdout, stderr, pid: this.#pid ?? null, spawnError: null };
    let outcome: RunOutcome;
    if (this.#timedOut) outcome = { ...ran, kind: 'timed-out', failReason };
    else if (this.#killed && cancelReason !== null) {
      outcome = { ...ran, kind: 'killed', failReason, cancelReason };
    } else if (failReason === null) outcome = { ...ran, kind: 'succeeded', failReason };
    else outcome = { ...ran, kind: 'failed', failReason };
    this.#done.resolve(outcome);
  }

  #failSpawn(error: unknown): void {
    if (this.#settled) return;
    const job = this.#request.job;
    const message = describeError(error);
    this.#ctx.logger.error({ err: error }, `Cannot start job ${job.name}: ${message}`);
    this.#hasExited = true;
    this.#exited.resolve();
    this.#launched.resolve();
    this.#done.resolve(spawnFailedOutcome(job, message, this.#settle()));
  }

  /** Marks the run settled, stops its timers and gives what every outcome shares. */
  #settle(): SpawnFailedTiming {
    this.#settled = true;
    this.#timeoutTimer?.cancel();
    this.#timeoutTimer = undefined;
    this.#drainTimer?.cancel();
    this.#drainTimer = undefined;
    this.#child = undefined;
    return {
      cancelReason: this.#cancelReason,
      startedAtMs: this.#startedAtMs,
      finishedAtMs: this.#ctx.clock.now(),
      durationMs: Math.max(0, this.#ctx.clock.monotonic() - this.#startedMonotonicMs),
      environment: this.#environment,
    };
  }
}
