// The runner test door: a fully defaulted job on the fixture scripts, an output sink and process
// probes, a RunOutcome from a flat fixture record, for the runner's and the reporters' tests
// (left out of dist/).
export { FIXTURES, NODE, fixture, makeJob, TextSink, isProcessAlive } from './test-job-fixture.js';
export { runOutcome, type LooseOutcome } from './test-outcome.js';
