// The cluster door: the gossip backend (docs/clustering.md). The election functions every node
// must compute identically, the timer-free GossipNode and its GossipManager, the supervisor that
// owns the manager across reloads (the LeadershipSource the gate reads), the PeerTransport seam
// with its mTLS and in-memory implementations, and the views behind GET /cluster and metrics.
export {
  electAvailableJobOwner,
  electAvailableLeader,
  electJobOwner,
  electLeader,
  hrwOwner,
  hrwScore,
  quorumSize,
} from './elect.js';
export {
  PEER_STATUSES,
  FINGERPRINT_SCHEME,
  type Distribution,
  type JobSummary,
  type JobSummaryLast,
  type MemberEntry,
  type NodeStatsReading,
  type PeerObservation,
  type PeerStatus,
  type PeerView,
} from './types.js';
export { GossipNode, type GossipNodeDeps, type GossipSettings } from './gossip-node.js';
export {
  parsePeerBody,
  parsePeerPayload,
  MAX_PEER_BODY_BYTES,
  type ParsedPeerBody,
  type ParsedPeerPayload,
} from './payload-parse.js';
export type {
  JobSummariesWire,
  JobSummaryLastWire,
  JobSummaryWire,
  PeerMemberWire,
  PeerPayload,
  RebootRanPayload,
} from './peer-payload.js';
export { GossipManager, type GossipManagerSettings } from './gossip-manager.js';
export { ClusterSupervisor, type ClusterSupervisorDeps } from './supervisor.js';
export {
  clusterMetricsView,
  describeCluster,
  type ClusterStatus,
  type GossipClusterStatus,
  type PeerStatusReport,
} from './cluster-status.js';
export { describeLeaseCluster, leaseMetricsView, type LeaseClusterStatus } from './lease-status.js';
export { describeFleet, type FleetNode, type FleetStatus } from './fleet-status.js';
export { AdvertisedNamesMemo, jobSummaries } from './job-summaries.js';
export { summariesToWire } from './summary-wire/index.js';
export { jobClusterFields, type JobElectionFields } from './job-cluster-fields.js';
export { MemoryNetwork, MemoryTransport, type LinkState } from './memory-transport.js';
export { TlsPeerTransport, type TlsTransportOptions } from './tls-transport.js';
export {
  loadTlsMaterial,
  snapshotTlsFiles,
  sameTlsFiles,
  validateTlsFiles,
  type TlsFileSnapshot,
  type TlsMaterial,
  type TlsValidation,
} from './tls-material.js';
export type {
  OutgoingPeerRequest,
  PeerExchange,
  PeerListener,
  PeerRequest,
  PeerRequestHandler,
  PeerResponse,
  PeerTransport,
} from './transport.js';
