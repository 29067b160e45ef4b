// The state door: the StateStore contract and its backends. Nothing outside src/state imports
// a file of this folder except through here.
export {
  RECORD_SCHEMA_VERSION,
  type BlobInfo,
  type DeriveMaxOptions,
  type DerivedMax,
  type DescribeOptions,
  type DocumentChange,
  type DocumentDecision,
  type DroppedWriteKind,
  type JsonObject,
  type LeaseResult,
  type LeaseState,
  type ListOptions,
  type MaxValue,
  type QuarantineReason,
  type StateDocument,
  type StateRecord,
  type StateStore,
  type StateTopology,
  type StateTopologySetting,
  type StoreCounts,
  type StoreDescription,
  type StoreInventory,
  type StreamSize,
  type NamespaceSize,
  type SweepOptions,
  type SweepReport,
} from './types.js';
export {
  createStateStore,
  type StateStoreBundle,
  type StateStoreDeps,
  type StateStoreSettings,
} from './create-store.js';
export { FsStateStore, type FsStateStoreDeps, type FsStateStoreOptions } from './fs-store.js';
export { MemoryStateStore, type MemoryStateStoreOptions } from './memory-store.js';
export {
  InstrumentedStateStore,
  type InstrumentedStoreDeps,
  type InstrumentedStoreOptions,
} from './instrumented-store.js';
export { StateMetrics, type StateOp, type StateStatsSnapshot } from './metrics.js';
export { TokenBucket } from './rate-limiter.js';
export { KeyedMutex } from './keyed-mutex.js';
export {
  StateWriteQueue,
  type WriteQueueDeps,
  type WriteQueueOptions,
  type WriteQueueStats,
} from './write-queue.js';
export { SCHEDULING_READ_TIMEOUT_MS, withTimeout } from './with-timeout.js';
export { withLease, type LeaseOutcome, type LeaseRequest } from './with-lease.js';
export { probeLockFidelity } from './lock-probe.js';
export { resolveTopology, isSharedFsType, type TopologyResolution } from './topology.js';
export { encodeName, decodeName } from './name-encoding.js';
export { isHeld as isLeaseHeld } from './lease-logic.js';
export { newInstanceToken } from './record-format.js';
export { artifactStream, dagAdvanceLeaseName, dagRunNamespace, dagXcomScope } from './gc-rules.js';
export { artifactEntryOf, newestArtifactPerName, type ArtifactEntry } from './artifact-records.js';
export { DEFAULT_MAX_RECORD_BYTES } from './store-checks.js';
export {
  createStateInspector,
  INVENTORY_CACHE_MS,
  pythonTypeName,
  redactKvBody,
  type ConcurrencyHoldRow,
  type StateInspector,
  type StateInspectorDeps,
  type StateOverview,
  type StoreView,
} from './inspector.js';
export {
  applyDaemonStateSection,
  type DaemonStateDeps,
  type DaemonStateHandle,
} from './service.js';
