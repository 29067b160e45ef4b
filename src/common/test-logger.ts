// A Logger that records what it is given, for tests that assert on warnings.
import type { LogMethod, Logger } from './logger.js';

export interface LoggedLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

export interface RecordingLogger extends Logger {
  readonly lines: LoggedLine[];
  /** Lines of `level` (warn by default). */
  at(level?: LoggedLine['level']): LoggedLine[];
}

export function recordingLogger(): RecordingLogger {
  const lines: LoggedLine[] = [];
  const method =
    (level: LoggedLine['level']): LogMethod =>
    (first: object | string, second?: string) => {
      if (typeof first === 'string') lines.push({ level, message: first, fields: {} });
      else lines.push({ level, message: second ?? '', fields: first as Record<string, unknown> });
    };
  return {
    lines,
    at: (level = 'warn') => lines.filter((line) => line.level === level),
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    fatal: method('fatal'),
  };
}
