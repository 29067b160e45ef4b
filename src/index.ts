// The library surface of the yacron2 package: the cron engine, the configuration loader and the
// cluster election functions (a node of any implementation must compute them identically).
// Everything else is internal to the daemon.
export {
  parseSchedule,
  nextFireTime,
  matchesAt,
  schedulesEqual,
  renderScheduleObject,
  type Schedule,
  type ScheduleObject,
} from './schedule/index.js';
export { loadConfig, computeJobSetId } from './config/index.js';
export type { ResolvedConfig, ResolvedJob } from './config/index.js';
export { YacronError, type ErrorCode } from './common/index.js';
export {
  quorumSize,
  electLeader,
  electAvailableLeader,
  hrwScore,
  hrwOwner,
  electJobOwner,
  electAvailableJobOwner,
} from './cluster/index.js';
