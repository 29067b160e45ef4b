// The test door of dags/ (never built into dist/): ResolvedDags and run documents in memory.
export { makeDag, makeRun, makeTask, type TaskSpec } from './test-dag-fixture.js';
