// The job API door (spec/http-api.md §B, seed "Job-facing state"): startJobApi and its contract.
// The daemon starts it beside the state store; nothing else of this folder is imported outside.
export { startJobApi } from './start.js';
export type { JobApi, JobApiDeps } from './types.js';
