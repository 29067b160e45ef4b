// The shell reporter (docs/reports.md "shell"): runs the configured command with the daemon's
// environment plus the YACRON2_* description of the finished run, and waits for it, at most
// SHELL_REPORT_TIMEOUT_MS: then its whole process group gets SIGTERM, and SIGKILL after
// SHELL_REPORT_KILL_GRACE_MS. Never throws: launch errors, timeouts and non-zero exits are logged,
// and the result says whether it failed.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  describeError,
  formatSeconds,
  pythonFloatRepr,
  type Clock,
  type TimerHandle,
} from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { JobCommand, ResolvedJob, ShellReport } from '../config/index.js';
import { renderRunResources, type RunUsageSummary } from '../resources/index.js';
import {
  buildCommandArgv,
  exitCodeFromStatus,
  signalProcessGroup,
  type CapturedStream,
  type RunOutcome,
} from '../runner/index.js';

/** Each captured stream handed to the reporter is cut to this many characters (code points). */
export const SHELL_REPORT_OUTPUT_LIMIT = 16384;
/** How long a shell reporter may run (the reference waits for ever): 5 minutes. */
export const SHELL_REPORT_TIMEOUT_MS = 300_000;
/** After the timeout's SIGTERM, the reporter's group gets this long before SIGKILL. */
export const SHELL_REPORT_KILL_GRACE_MS = 5_000;

export interface ShellReportDeps {
  readonly logger: Logger;
  /** The daemon's environment (not the job's). */
  readonly baseEnv: NodeJS.ProcessEnv;
  /** The timeout's clock. */
  readonly clock: Clock;
  /** Bound on the reporter's run time; default SHELL_REPORT_TIMEOUT_MS. */
  readonly timeoutMs?: number;
  /** Aborted when the daemon abandons its reports: the reporter's group gets SIGKILL at once. */
  readonly abandon?: AbortSignal;
}

export interface ShellReportInput {
  readonly job: ResolvedJob;
  readonly outcome: RunOutcome;
  /** The run\'s resource usage (monitorResources); null or absent for an unmonitored run. */
  readonly usage?: RunUsageSummary | null;
  readonly report: ShellReport;
  /** The schedule as a cron string (object form rendered) or `@reboot`. */
  readonly scheduleText: string;
}

/** `failed`: it could not be launched or exited non-zero (already logged). */
export type ShellReportResult = 'skipped' | 'succeeded' | 'failed';

export async function runShellReport(
  deps: ShellReportDeps,
  input: ShellReportInput,
): Promise<ShellReportResult> {
  const { job, report } = input;
  if (report.command === null) return 'skipped';
  const [file, ...args] = buildCommandArgv(report.command, report.shell);
  if (file === undefined) return 'skipped';
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      env: buildShellReportEnvironment(deps.baseEnv, input),
      stdio: 'inherit',
      // Its own process group, so a timeout can take the whole reporter tree down.
      detached: true,
    });
  } catch (error) {
    logLaunchError(deps.logger, job.name, error);
    return 'failed';
  }
  const exit = await waitForExit(child, deps, job.name);
  if (exit.kind === 'error') {
    logLaunchError(deps.logger, job.name, exit.error);
    return 'failed';
  }
  if (exit.code !== 0) {
    deps.logger.error(
      `Error executing shell reporter of job ${job.name} with return code ${exit.code}`,
    );
    return 'failed';
  }
  return 'succeeded';
}

type ReporterExit =
  | { readonly kind: 'exited'; readonly code: number }
  | { readonly kind: 'error'; readonly error: unknown };

function waitForExit(
  child: ChildProcess,
  deps: ShellReportDeps,
  jobName: string,
): Promise<ReporterExit> {
  return new Promise((resolve) => {
    let timer: TimerHandle | undefined;
    const pid = child.pid;
    const onAbandon = (): void => void (pid !== undefined && signalProcessGroup(pid, 'SIGKILL'));
    const settle = (exit: ReporterExit): void => {
      timer?.cancel();
      deps.abandon?.removeEventListener('abort', onAbandon);
      resolve(exit);
    };
    child.once('error', (error) => {
      if (child.pid === undefined) settle({ kind: 'error', error });
      else timer?.cancel();
    });
    child.once('exit', (code: number | null, signal: NodeJS.Signals | null) => {
      settle({ kind: 'exited', code: exitCodeFromStatus(code, signal) });
    });
    if (pid === undefined) return;
    if (deps.abandon?.aborted) onAbandon();
    else deps.abandon?.addEventListener('abort', onAbandon, { once: true });
    const { clock } = deps;
    const timeoutMs = deps.timeoutMs ?? SHELL_REPORT_TIMEOUT_MS;
    timer = clock.setTimer(() => {
      deps.logger.error(
        `Shell reporter of job ${jobName} still running after ${formatSeconds(timeoutMs)} seconds, terminating its process group`,
      );
      signalProcessGroup(pid, 'SIGTERM');
      timer = clock.setTimer(() => {
        deps.logger.error(
          `Shell reporter of job ${jobName} did not terminate within ${formatSeconds(SHELL_REPORT_KILL_GRACE_MS)} seconds, killing its process group`,
        );
        signalProcessGroup(pid, 'SIGKILL');
      }, SHELL_REPORT_KILL_GRACE_MS);
    }, timeoutMs);
  });
}

function logLaunchError(logger: Logger, jobName: string, error: unknown): void {
  logger.error(
    { err: error },
    `Cannot run shell reporter of job ${jobName}: ${describeError(error)}`,
  );
}

/** The daemon env plus the reporter's YACRON2_* table. */
export function buildShellReportEnvironment(
  baseEnv: NodeJS.ProcessEnv,
  input: Omit<ShellReportInput, 'report'>,
): Record<string, string> {
  const { job, outcome, scheduleText } = input;
  const usage = input.usage ?? null;
  // The same numbers as the run record: Python's str() of the float seconds and the int bytes.
  const resources = usage === null ? null : renderRunResources(usage, false);
  const env: Record<string, string> = {};
  for (const key of Object.keys(baseEnv)) {
    const value = baseEnv[key];
    if (value !== undefined) env[key] = value;
  }
  const stdout = cutOutput(outcome.stdout);
  const stderr = cutOutput(outcome.stderr);
  Object.assign(env, {
    YACRON2_FAIL_REASON: outcome.failReason ?? '',
    YACRON2_FAILED: outcome.failReason === null ? '0' : '1',
    YACRON2_JOB_NAME: job.name,
    YACRON2_JOB_COMMAND: commandText(job.command),
    YACRON2_JOB_SCHEDULE: scheduleText,
    YACRON2_RETCODE: String(outcome.exitCode),
    YACRON2_STDOUT: stdout.text,
    YACRON2_STDOUT_TRUNCATED: stdout.truncated ? '1' : '0',
    YACRON2_STDERR: stderr.text,
    YACRON2_STDERR_TRUNCATED: stderr.truncated ? '1' : '0',
    YACRON2_CPU_SECONDS: resources === null ? '' : pythonFloatRepr(resources.cpu_total_seconds),
    YACRON2_MAX_RSS_BYTES: resources === null ? '' : String(resources.max_rss_bytes),
  });
  return env;
}

function commandText(command: JobCommand): string {
  return command.kind === 'argv' ? command.argv.join(' ') : command.script;
}

/**
 * The first SHELL_REPORT_OUTPUT_LIMIT code points; truncated also when the capture itself
 * dropped lines. NUL characters cannot travel in an environment variable and are removed.
 */
function cutOutput(stream: CapturedStream | null): { text: string; truncated: boolean } {
  if (stream === null) return { text: '', truncated: false };
  const cut = cutToCodePoints(stream.text, SHELL_REPORT_OUTPUT_LIMIT);
  return {
    text: cut.includes('\0') ? cut.replaceAll('\0', '') : cut,
    truncated: stream.truncated || cut.length < stream.text.length,
  };
}

export function cutToCodePoints(text: string, limit: number): string {
  // A UTF-16 length within the limit cannot hold more code points than the limit.
  if (text.length <= limit) return text;
  let index = 0;
  for (let count = 0; count < limit && index < text.length; count++) {
    const unit = text.charCodeAt(index);
    const isPair =
      unit >= 0xd800 &&
      unit <= 0xdbff &&
      index + 1 < text.length &&
      (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00;
    index += isPair ? 2 : 1;
  }
  return text.slice(0, index);
}
