// The one recording Logger for tests that assert on log lines. It is a real pino logger (what the
// daemon logs through) whose JSON lines are parsed back as they are written, synchronously: a
// line's fields are what the daemon would write (errors through pino's serializer), so a test
// that looks for a leaked secret in a line sees everything the line carries.
import { pino } from 'pino';
import type { Logger } from './logger.js';

export interface LoggedLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  readonly message: string;
  /** The line's other fields, as written (no level, message or time). */
  readonly fields: Record<string, unknown>;
}

export interface RecordingLogger extends Logger {
  readonly lines: LoggedLine[];
  /** Lines of `level` (warn by default). */
  at(level?: LoggedLine['level']): LoggedLine[];
  /** The messages of the lines of `level` (every line's when absent), in order. */
  messages(level?: LoggedLine['level']): string[];
}

const LEVELS: readonly LoggedLine['level'][] = ['debug', 'info', 'warn', 'error', 'fatal'];

export function recordingLogger(): RecordingLogger {
  const lines: LoggedLine[] = [];
  const destination = {
    write(text: string): void {
      const { level, msg, ...fields } = JSON.parse(text) as Record<string, unknown>;
      const name = LEVELS.find((label) => logger.levels.values[label] === level);
      if (name === undefined) throw new Error(`Cannot record a log line: level ${String(level)}`);
      lines.push({ level: name, message: typeof msg === 'string' ? msg : '', fields });
    },
  };
  const logger = pino({ level: 'debug', base: null, timestamp: false }, destination);
  const at = (level: LoggedLine['level'] = 'warn'): LoggedLine[] =>
    lines.filter((line) => line.level === level);
  return {
    lines,
    at,
    messages: (level) => (level === undefined ? lines : at(level)).map((line) => line.message),
    debug: logger.debug.bind(logger),
    info: logger.info.bind(logger),
    warn: logger.warn.bind(logger),
    error: logger.error.bind(logger),
    fatal: logger.fatal.bind(logger),
  };
}
