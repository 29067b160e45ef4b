// The leadership door: the backend-independent seam the scheduler consults ("may this node run
// this job now?"), its verdicts, the decision table, @reboot deferral and the transition logs.
export type * from './types.js';
export { ClusterGate, decideClusterGate, leadershipDistribution, ownershipMoved } from './gate.js';
export {
  DeferredReboots,
  isDeferrableReboot,
  planPendingReboot,
  type RebootCandidate,
  type RebootPassAction,
} from './reboot-deferral.js';
export { LeadershipTransitions, type ConflictKind, type LeadershipEvents } from './transitions.js';
export {
  denialDetail,
  schedulerSeams,
  type SchedulerSeamParts,
  type SchedulerSeams,
} from './scheduler-seams.js';
export {
  decodeRanSet,
  displayHolder,
  encodeRanSet,
  formatMicroTime,
  parseMicroTime,
  type LeaseClient,
  type LeaseDetails,
  type RanSetMarks,
  type RoundOutcome,
  type RoundTiming,
  type StoredRanSet,
} from './lease-client.js';
export { LeaseElector, type LeaseElectorDeps, type LeaseElectorOptions } from './lease-elector.js';
export {
  createLeaseClient,
  type LeaseClientDeps,
  type ResolvedLeaseCluster,
} from './lease-backends.js';
export { MemoryLeaseClient, MemoryLeaseStore, type MemoryLeaseOptions } from './backends/memory.js';
// The etcd, Kubernetes and filesystem clients are imported by createLeaseClient when configured.
export type { EtcdLeaseOptions } from './backends/etcd.js';
export type { KubernetesLeaseOptions } from './backends/kubernetes.js';
export type { FilesystemLeaseOptions } from './backends/filesystem.js';
