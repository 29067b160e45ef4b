// The config door: load a file or directory into a frozen ResolvedConfig, the reload
// signature, and the job identity (digest / job-set id). Nothing outside config/ parses YAML.
export type * from './types.js';
export { loadConfig, type LoadConfigOptions } from './load-config.js';
export { configSignature } from './signature.js';
export {
  computeJobDigest,
  computeJobSetId,
  canonicalJobObject,
  type JobIdentityInput,
} from './fingerprint.js';
export { makeJob, makeConfig, makeSchedule, type MakeJobOverrides } from './make-job.js';
