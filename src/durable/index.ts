// The durable door: the scheduler's collaborator for the `state` section and its pure parts.
export { createDurableState, createDurableProcessState, pidAlive } from './attach.js';
export type { AttachDurableDeps, DurableBackend } from './attach.js';
export { DurableState, COUNTER_SNAPSHOT_INTERVAL_MS } from './durable-state.js';
export type {
  BootInfo,
  CounterSnapshots,
  DurableDeps,
  DurableProcessState,
} from './durable-state.js';
export { planCatchup, catchupJitterOffsetMs, newestSlots, RUN_ALL_CAP } from './catchup-plan.js';
export type { ResumeCluster, TrendRuns } from './types.js';
export {
  listArchives,
  readArchive,
  MAX_ARCHIVE_LIST,
  MAX_SERVED_LINES,
  type ArchiveEntry,
  type ArchiveHeader,
  type ArchiveLookup,
  type ArchivedOutputLine,
} from './archive-reader.js';
export { redactSecrets } from './redact.js';
export { StoreRetryJournal, planRetryResume, type RetryResume } from './retry-journal.js';
