// The scheduler test door: the FakeRunner (no processes), and a scheduler on a FakeClock and a
// FakeRunner with its events recorded (left out of dist/; fake-runner.ts itself is built, for the
// benches).
export {
  T0,
  createHarness,
  type Harness,
  type HarnessOptions,
  type RecordedEvent,
} from './test-harness.js';
export { FakeRunner, FakeRun, type FakeResult, type FakeRunnerOptions } from './fake-runner.js';
