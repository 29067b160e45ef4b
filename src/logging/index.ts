// The logging door: the small Logger interface every component depends on and its pino-backed
// implementations, and the daemon's root logger that the `logging` section (docs/configuration.md
// "logging") reconfigures at run time: Python logging's routing, formats and settings.
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
