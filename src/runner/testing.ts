// The runner test door: a fully defaulted job on the fixture scripts, a log-capturing logger and
// process probes, for the runner's and the reporters' tests (left out of dist/).
export {
  FIXTURES,
  NODE,
  fixture,
  makeJob,
  LEVEL,
  recordingLogger,
  TextSink,
  isProcessAlive,
  type LogRecord,
} from './test-job-fixture.js';
