// The config door: load a file or directory into a frozen ResolvedConfig, the reload
// signature, and the job identity (job-set id). Nothing outside config/ parses YAML.
// (Test factories — makeJob, makeConfig, makeSchedule — are behind the test door, testing.ts.)
export type * from './types.js';
export { loadConfig, type LoadConfigOptions } from './load-config.js';
export { configSignature } from './signature.js';
export type {
  DagOnMissed,
  DagTaskType,
  ResolvedDag,
  ResolvedDagTask,
  TriggerRule,
} from './dag-schema.js';
export { computeJobSetId } from './fingerprint.js';
export {
  DEFAULT_BODY_TEMPLATE,
  DEFAULT_SENTRY_BODY_TEMPLATE,
  DEFAULT_SUBJECT_TEMPLATE,
} from './report-schema.js';
export { MIN_LEASE_TTL_SECONDS, MAX_LEASE_TTL_SECONDS } from './state-section.js';
