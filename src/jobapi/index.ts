// The job API door (docs/job-state.md, docs/http-api.md "The job API"): startJobApi and its
// contract. The daemon starts it beside the state store; nothing else of this folder is imported
// outside.
export { startJobApi } from './start.js';
export type { JobApi, JobApiDeps } from './types.js';
