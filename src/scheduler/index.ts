// The scheduler door: createScheduler, its event map and view types, plus the test seams
// (FakeRunner, makeJob) that other layers' tests build schedulers with.
export { createScheduler, MAX_SLEEP_MS } from './scheduler.js';
export type {
  DurableCollaborator,
  DurableOutcome,
  DurablePort,
  GateRequest,
  GateResult,
  LeadershipGate,
  RebootVerdict,
  RetryJournal,
  RetrySettleReason,
  RunContext,
  RunEnvironmentHook,
  RunEnvironmentSource,
} from './ports.js';
export type {
  ConcurrencyDecision,
  ClockJumpedEvent,
  ConfigAppliedEvent,
  DurableHost,
  FireSkippedEvent,
  JobRuns,
  JobView,
  LoopWokeEvent,
  ManualStartResult,
  ReportEvent,
  RetryDiscardedEvent,
  RetryScheduledEvent,
  RetryView,
  RunDisposition,
  RunFinishedEvent,
  RunOutputEvent,
  RunRecord,
  RunRecordOutcome,
  RunResources,
  RunStartedEvent,
  RunStats,
  RunTrigger,
  ScheduleLateEvent,
  Scheduler,
  SchedulerControl,
  SchedulerDeps,
  SchedulerView,
  SchedulerEvents,
  ShutdownFinishedEvent,
  ShutdownStartedEvent,
  SkipReason,
  StatusEntry,
} from './types.js';
export {
  buildRunRecord,
  computeRunStats,
  formatIsoUtc,
  CANCELLED_FAIL_REASON,
  HISTORY_LIMIT,
} from './history.js';
export { checkEnabled, checkOnlyIfLastSucceeded, decideConcurrency } from './gates.js';
export {
  decide,
  RUN_VERDICT,
  type Admission,
  type AdmissionFacts,
  type AdmissionPlan,
  type LadderUse,
} from './admission.js';
export { LATE_WAKE_THRESHOLD_MS } from './fire-plan.js';
export { FakeRunner, FakeRun, type FakeResult, type FakeRunnerOptions } from './fake-runner.js';
// Test seams re-exported for other layers' tests (they live in config/, below the runner).
export { makeJob, makeConfig, makeSchedule, type MakeJobOverrides } from '../config/index.js';
