// The daemon's logger: pino, JSON lines when stderr is not a terminal, a short readable line
// when it is. Components receive a Logger through their deps; nothing logs via console.
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/** yacron2's level names (Python logging spelling) mapped to pino levels. */
export const LOG_LEVELS = {
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warn',
  WARN: 'warn',
  ERROR: 'error',
  CRITICAL: 'fatal',
} as const;

export type LogLevelName = keyof typeof LOG_LEVELS;

export function isLogLevelName(value: string): value is LogLevelName {
  return Object.hasOwn(LOG_LEVELS, value);
}

export interface LoggerOptions {
  level?: LogLevelName | 'silent';
  /** Where lines go; defaults to process.stderr. */
  destination?: NodeJS.WritableStream;
  /** Human-readable lines instead of JSON; defaults to whether the destination is a TTY. */
  pretty?: boolean;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? process.stderr;
  const level = options.level === 'silent' ? 'silent' : LOG_LEVELS[options.level ?? 'INFO'];
  const pretty = options.pretty ?? (destination as { isTTY?: boolean }).isTTY === true;
  const base = { name: 'yacron2', base: null, level };
  if (!pretty) return pino(base, destination as DestinationStream);
  return pino(base, prettyStream(destination));
}

/** A logger that drops everything (tests and benchmarks). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

const LEVEL_LABELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARNING',
  50: 'ERROR',
  60: 'CRITICAL',
};

function prettyStream(out: NodeJS.WritableStream): DestinationStream {
  return {
    write(line: string): void {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const { level, time, msg, name, ...rest } = record;
      const stamp = new Date(typeof time === 'number' ? time : 0).toISOString().slice(11, 23);
      const label = LEVEL_LABELS[level as number] ?? String(level);
      const extras = Object.entries(rest)
        .filter(([key]) => key !== 'pid' && key !== 'hostname')
        .map(
          ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
        )
        .join(' ');
      out.write(
        `${stamp} ${label}:${String(name ?? 'yacron2')}: ${String(msg ?? '')}${extras ? ' ' + extras : ''}\n`,
      );
    },
  };
}
