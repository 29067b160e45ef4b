// The common door: clock, errors, events and small async helpers shared by every layer (the
// logger is src/logging's).
export {
  systemClock,
  sleepWith,
  setChunkedTimer,
  normaliseDelayMs,
  MAX_TIMER_CHUNK_MS,
  type Clock,
  type TimerHandle,
  type TimerHost,
} from './clock.js';
export { FakeClock, flushMicrotasks } from './fake-clock.js';
export {
  ERROR_CODES,
  YacronError,
  isYacronError,
  describeError,
  type ErrorCode,
} from './errors.js';
export { TypedEmitter, type EventMap, type Listener } from './events.js';
export { createDeferred, type Deferred } from './deferred.js';
export { TaskSet } from './task-set.js';
export { settlesWithin } from './settle-within.js';
export { secondsToMs, msToSeconds, formatSeconds } from './duration.js';
export { deepFreeze } from './deep-freeze.js';
export { readPackageVersion } from './package-version.js';
export {
  PyFloat,
  pyFloat,
  RawPythonJson,
  dumpPythonJson,
  pythonFloatRepr,
  pythonJsonString,
  compareCodePoints,
  pythonIsoformatUtc,
} from './python-json.js';
export { Swappable, type Provider } from './swappable.js';
export { HTTP_STATUS, httpStatusOf } from './http-status.js';
export { formatIsoUtc, parseIsoInstantMs } from './iso-time.js';
export {
  atMostCodePoints,
  codePointLength,
  isPythonPrintable,
  minByCodePoint,
  pythonAscii,
  pythonRepr,
  sortByCodePoint,
} from './python-text.js';
export { seededRandom } from './seeded-random.js';
export { crc32 } from './crc32.js';
export { REDACTED, replaceOrder, replaceValues } from './replace-values.js';
export { compactHeap, keepYoungGenerationSmall } from './heap.js';
export {
  guardConnections,
  serverTimeouts,
  type ConnectionLimits,
  type WarningSink,
} from './connection-guard.js';
export { MONTH_NAMES, WEEKDAY_NAMES } from './calendar-names.js';
export { SseParser, type SseEvent, type SseStep } from './sse-parser.js';
