// Routes a finished run to the reporters configured for a hook (onFailure / onPermanentFailure
// / onSuccess). Reports run as background tasks: a slow or failing reporter never delays
// reaping other runs or the next fire; the TaskSet's close() waits for the ones still running.
import type { Logger, TaskSet } from '../common/index.js';
import type { ReportBlock, ResolvedJob } from '../config/index.js';
import type { RunOutcome } from '../runner/index.js';
import { runShellReport } from './shell.js';

export type ReportHook = 'failure' | 'permanent-failure' | 'success';

export interface ReporterDeps {
  readonly logger: Logger;
  readonly baseEnv: NodeJS.ProcessEnv;
  readonly tasks: TaskSet;
}

export interface ReportInput {
  /** The config the run was launched under (not a reloaded one). */
  readonly job: ResolvedJob;
  readonly outcome: RunOutcome;
}

const BLOCK_OF_HOOK: Record<ReportHook, (job: ResolvedJob) => ReportBlock> = {
  failure: (job) => job.onFailureReport,
  'permanent-failure': (job) => job.onPermanentFailureReport,
  success: (job) => job.onSuccessReport,
};

/** Start every reporter configured for `hook` in the background. */
export function dispatchReport(deps: ReporterDeps, hook: ReportHook, input: ReportInput): void {
  const { job, outcome } = input;
  const shell = BLOCK_OF_HOOK[hook](job).shell;
  if (shell?.command) {
    const scheduleText = job.schedule.kind === 'reboot' ? '@reboot' : job.schedule.text;
    deps.tasks.run(() =>
      runShellReport(
        { logger: deps.logger, baseEnv: deps.baseEnv },
        { job, outcome, report: shell, scheduleText },
      ),
    );
  }
}
