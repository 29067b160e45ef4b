// The runner's contract: one run = one child process, described by a RunOutcome value.
// A failing job is never an exception.
import type { ResolvedJob } from '../config/index.js';

export type OutputStream = 'stdout' | 'stderr';

/**
 * - succeeded: completed and no failsWhen rule matched.
 * - failed: completed and a failsWhen rule matched (non-zero exit, output, always).
 * - timed-out: executionTimeout fired (exitCode -100).
 * - killed: cancelled by Replace, a manual cancel or shutdown (exitCode is the signal, e.g. -15).
 * - spawn-failed: the process could not be started (exitCode 127).
 */
export type RunOutcomeKind = 'succeeded' | 'failed' | 'timed-out' | 'killed' | 'spawn-failed';

export type CancelReason = 'replaced' | 'cancelled' | 'shutdown';

export interface CapturedStream {
  /** Retained text (head + discard marker + tail); '' when captured but nothing retained. */
  readonly text: string;
  /** Lines dropped from the middle (saveLimit) — counts as output for failsWhen. */
  readonly discardedLines: number;
  /** True when text is not the whole stream (lines were discarded). */
  readonly truncated: boolean;
}

/** What every outcome carries, whatever its kind. */
export interface RunOutcomeBase {
  /** >= 0 exit status; -N killed by signal N; -100 timeout; 127 launch failure. */
  readonly exitCode: number;
  /** The exact spec string (`failsWhen=nonzeroReturn and retcode=1`), null on success. */
  readonly failReason: string | null;
  /**
   * Set when the run was cancelled (Replace, manual cancel, shutdown) — also when the cancel came
   * too late to change the kind (the process had already exited).
   */
  readonly cancelReason: CancelReason | null;
  readonly pid: number | null;
  /** Wall-clock epoch ms; startedAtMs is the launch instant (also for spawn failures). */
  readonly startedAtMs: number;
  readonly finishedAtMs: number;
  /** Monotonic duration of the run in ms. */
  readonly durationMs: number;
  /** null when the stream was not captured. */
  readonly stdout: CapturedStream | null;
  readonly stderr: CapturedStream | null;
  /** The environment passed to the child, or null when it inherited the daemon's as-is. */
  readonly environment: Readonly<Record<string, string>> | null;
  /** The spawn error message; only a spawn-failed run has one. */
  readonly spawnError: string | null;
}

/** Completed and no failsWhen rule matched. */
export interface SucceededOutcome extends RunOutcomeBase {
  readonly kind: 'succeeded';
  readonly failReason: null;
  readonly spawnError: null;
}

/** Completed and a failsWhen rule matched. */
export interface FailedOutcome extends RunOutcomeBase {
  readonly kind: 'failed';
  readonly failReason: string;
  readonly spawnError: null;
}

/** executionTimeout fired; failsWhen still decides failReason. */
export interface TimedOutOutcome extends RunOutcomeBase {
  readonly kind: 'timed-out';
  readonly spawnError: null;
}

/** Cancelled while the process ran: the cancel's reason is always known. */
export interface KilledOutcome extends RunOutcomeBase {
  readonly kind: 'killed';
  readonly cancelReason: CancelReason;
  readonly spawnError: null;
}

/** No process was started: no pid, exit code 127, and the reason why. */
export interface SpawnFailedOutcome extends RunOutcomeBase {
  readonly kind: 'spawn-failed';
  readonly pid: null;
  readonly spawnError: string;
}

/** One run's end, discriminated by `kind` (see RunOutcomeKind). */
export type RunOutcome =
  SucceededOutcome | FailedOutcome | TimedOutOutcome | KilledOutcome | SpawnFailedOutcome;

export interface OutputLine {
  readonly stream: OutputStream;
  /** The decoded line including its trailing newline when it had one, without prefix. */
  readonly line: string;
}

export interface RunRequest {
  readonly job: ResolvedJob;
  /** Variables injected over the job's own (the YACRON2_* run context); they win. */
  readonly extraEnv?: Readonly<Record<string, string>>;
  /** Called for every captured line as it is read (live tail, SSE, archival). */
  readonly onOutput?: (line: OutputLine) => void;
  /**
   * The run's known secret values out of each captured line (with its newline) before it is
   * echoed, published or retained; absent = the lines as read.
   */
  readonly scrubLine?: (line: string) => string;
  /** Called once the child has a pid. */
  readonly onSpawn?: (pid: number) => void;
  /**
   * The launch instant (epoch ms) the caller announced the run with, so the outcome's
   * `startedAtMs` is that very instant (durable in-flight records are matched to ledger rows by
   * it); absent = the runner's clock at start.
   */
  readonly startedAtMs?: number;
}

export interface RunHandle {
  /** The child's pid once spawned (undefined until then or on spawn failure). */
  readonly pid: number | undefined;
  /** Settles when the process has exited and every captured pipe reached EOF. Never rejects. */
  readonly done: Promise<RunOutcome>;
  /**
   * Run the cancel sequence on the whole process group: SIGTERM, wait killTimeout, SIGKILL.
   * Resolves when the process has exited. Idempotent.
   */
  cancel(reason: CancelReason): Promise<void>;
}

export interface Runner {
  start(request: RunRequest): RunHandle;
}
