// The leadership door: the backend-independent seam the scheduler consults ("may this node run
// this job now?"), its verdicts, the decision table, @reboot deferral and the transition logs.
export type * from './types.js';
export { ClusterGate, decideClusterGate, ownershipMoved } from './gate.js';
