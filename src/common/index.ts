// The common door: clock, errors, logger, events and small async helpers shared by every layer.
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
export {
  createLogger,
  createLineLogger,
  silentLogger,
  isLogLevelName,
  LOG_LEVELS,
  type Logger,
  type LogLevelName,
} from './logger.js';
export { createRootLogger, type RootLogger, type RootLoggerOptions } from './root-logger.js';
export { LoggingSectionApplier, type LoggingApplyResult } from './logging-applier.js';
export {
  LoggingSectionError,
  translateLoggingSection,
  type TranslatedLogging,
} from './logging-section.js';
export {
  defaultLogSettings,
  LOGGER_NAMES,
  type HandlerSettings,
  type LineFormat,
  type LoggerName,
  type LoggerSettings,
  type LogSettings,
} from './log-settings.js';
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
export { guardConnections, serverTimeouts, type ConnectionLimits } from './connection-guard.js';
