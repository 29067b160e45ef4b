// The scheduler door: createScheduler, its ports, event map and snapshot types, the pure
// admission decision, the one run start a DAG task's attempt shares with a job's launch, plus the FakeRunner test seam (job factories: config/testing.ts) other
// layers' tests build schedulers with.
export { createScheduler, MAX_SLEEP_MS } from './scheduler.js';
export type {
  ClusterPort,
  ClusterSlotPort,
  DurableCollaborator,
  DurableOutcome,
  DurablePort,
  GateRequest,
  GateResult,
  LeadershipGate,
  RebootVerdict,
  RetryDueVerdict,
  RetryGateResult,
  RetryJournal,
  RetrySettleReason,
  RunContext,
  RunEnvironment,
  RunEnvironmentHook,
  RunEnvironmentSource,
  RunMonitor,
  SlotClaim,
  SlotClaimRequest,
  SlotHold,
  SpawnedRun,
} from './ports.js';
export type {
  ConcurrencyDecision,
  ClockJumpedEvent,
  ConfigAppliedEvent,
  DurableHost,
  BackfillGate,
  FireSkippedEvent,
  JobState,
  LoopWokeEvent,
  ManualStartResult,
  ReportEvent,
  RetryAbandonedEvent,
  RetryDiscardedEvent,
  RetryScheduledEvent,
  RetryState,
  RunDisposition,
  RunFinishedEvent,
  RunOutputEvent,
  RunStartedEvent,
  JobTrigger,
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
} from './types.js';
export {
  summarizeRun,
  CANCELLED_FAIL_REASON,
  HISTORY_LIMIT,
  HISTORY_SUMMARY_LIMIT,
  type RunResources,
  type RunSummary,
  type RunSummaryOutcome,
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
export {
  newRunId,
  startRun,
  type FinishedRun,
  type RunStartDeps,
  type RunStartRequest,
  type StartedRun,
} from './run-start.js';
export { FakeRunner, FakeRun, type FakeResult, type FakeRunnerOptions } from './fake-runner.js';
