// The report door: reporters that turn a finished run into a notification. Subscribed to the
// scheduler's report:* events by daemon.ts; the scheduler never imports them.
export {
  runShellReport,
  buildShellReportEnvironment,
  SHELL_REPORT_OUTPUT_LIMIT,
  type ShellReportDeps,
  type ShellReportInput,
} from './shell.js';
export {
  dispatchReport,
  type ReportHook,
  type ReporterDeps,
  type ReportInput,
} from './dispatch.js';
