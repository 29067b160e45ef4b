// The leadership door: the backend-independent seam the scheduler consults ("may this node run
// this job now?"), its verdicts, the decision table, @reboot deferral and the transition logs.
export type * from './types.js';
export { ClusterGate, decideClusterGate, ownershipMoved } from './gate.js';
export {
  DeferredReboots,
  isDeferrableReboot,
  planPendingReboot,
  type RebootCandidate,
  type RebootPassAction,
} from './reboot-deferral.js';
export { LeadershipTransitions, type ConflictKind, type LeadershipEvents } from './transitions.js';
export {
  StaticLeadership,
  StaticLeadershipSource,
  type StaticLeadershipState,
} from './static-leadership.js';
export {
  denialDetail,
  schedulerSeams,
  type SchedulerSeamParts,
  type SchedulerSeams,
} from './scheduler-seams.js';
