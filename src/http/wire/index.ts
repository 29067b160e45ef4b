// The wire door: every JSON body the control API answers (docs/http-api.md "Routes"), declared
// once. The server's renderers (src/http) return these types and the dashboard (src/web) reads
// them, so a change to a body is a type error on both sides. Types only, and imports of types
// only: the browser bundle takes this folder with `import type`, which leaves no code behind.
export type {
  ClusterDisabledWire,
  ClusterWire,
  Distribution,
  FleetDisabledWire,
  FleetJobWire,
  FleetNodeWire,
  FleetWire,
  GossipClusterWire,
  LeaseBackend,
  LeaseClusterWire,
  NodeStatsWire,
  PeerWire,
} from './cluster.js';
export type {
  DagBackfillWire,
  DagCancelWire,
  DagDecisionWire,
  DagLatestRunWire,
  DagRunSummaryWire,
  DagRunsWire,
  DagTaskWire,
  DagTriggerWire,
  DagWire,
  RunDocumentWire,
  RunEndWire,
  RunKind,
  RunState,
  TaskEntryWire,
  TaskState,
  XcomEntry,
  XcomWire,
} from './dags.js';
export type {
  JobClusterFields,
  JobObject,
  JobSetIdWire,
  JobSlotField,
  JobView,
  JobWire,
  RetryView,
  StatusEntry,
} from './jobs.js';
export type {
  CurrentUsageWire,
  FinishedRunWire,
  JobResourcesWire,
  LiveRunWire,
  NodeHistoryPointWire,
  NodeHistoryWire,
  NodeResourcesWire,
  NodeWire,
  RunningResourcesWire,
  RunResourcesWire,
  UsagePointWire,
} from './resources.js';
export type {
  ArchivedLineWire,
  ArchiveEntryWire,
  ArchiveHeaderWire,
  JobArchivesWire,
} from './output.js';
export type { JobRuns, RunRecord, RunRecordOutcome, RunResourcesRecord, RunStats } from './runs.js';
export type {
  PrefixWire,
  StateDocumentsWire,
  StateOpWire,
  StateOverviewWire,
  StateRecordsWire,
  StateRetryWire,
  StateStatsWire,
  StateWire,
} from './state.js';
export type { TrendSource, TrendWindows, TrendsView } from './trends.js';
