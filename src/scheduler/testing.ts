// The scheduler test door: a scheduler on a FakeClock and a FakeRunner, with its events recorded
// (left out of dist/).
export {
  T0,
  createHarness,
  type Harness,
  type HarnessOptions,
  type RecordedEvent,
} from './test-harness.js';
