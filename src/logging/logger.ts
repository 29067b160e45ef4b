// The daemon's logger. Components depend on the small Logger interface; the real one is pino
// (JSON lines when stderr is not a terminal, a short readable line when it is), loaded lazily
// so commands that never log much (`-v`, `next`, the job-facing commands) do not pay for it.
import type { DestinationStream } from 'pino';
import { systemClock } from '../common/index.js';

export interface LogMethod {
  (message: string): void;
  (fields: object, message: string): void;
}

export interface Logger {
  readonly debug: LogMethod;
  readonly info: LogMethod;
  readonly warn: LogMethod;
  readonly error: LogMethod;
  readonly fatal: LogMethod;
}

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

export async function createLogger(options: LoggerOptions = {}): Promise<Logger> {
  const { pino } = await import('pino');
  const destination = options.destination ?? process.stderr;
  const level = options.level === 'silent' ? 'silent' : LOG_LEVELS[options.level ?? 'INFO'];
  const pretty = options.pretty ?? (destination as { isTTY?: boolean }).isTTY === true;
  const base = { name: 'yacron2', base: null, level };
  const stream = pretty ? prettyStream(destination) : (destination as DestinationStream);
  const logger: Logger = pino(base, stream);
  return logger;
}

const PINO_LEVEL_NUMBERS = { debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;

/**
 * The same lines as createLogger, without loading pino: for one-shot commands (`-v`,
 * `--job-set-id`) that print a line or two, where pino's ~20 ms import is most of the cost.
 */
export function createLineLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? process.stderr;
  const pretty = options.pretty ?? (destination as { isTTY?: boolean }).isTTY === true;
  const stream = pretty ? prettyStream(destination) : (destination as DestinationStream);
  const threshold =
    options.level === 'silent' ? Infinity : PINO_LEVEL_NUMBERS[LOG_LEVELS[options.level ?? 'INFO']];
  const method =
    (level: number): LogMethod =>
    (first: string | object, second?: string) => {
      if (level < threshold) return;
      const fields = typeof first === 'string' ? {} : first;
      const msg = typeof first === 'string' ? first : second;
      stream.write(`${JSON.stringify({ level, time: systemClock.now(), ...fields, msg })}\n`);
    };
  return {
    debug: method(PINO_LEVEL_NUMBERS.debug),
    info: method(PINO_LEVEL_NUMBERS.info),
    warn: method(PINO_LEVEL_NUMBERS.warn),
    error: method(PINO_LEVEL_NUMBERS.error),
    fatal: method(PINO_LEVEL_NUMBERS.fatal),
  };
}

const discard: LogMethod = () => undefined;

/** A logger that drops everything (tests and benchmarks). */
export function silentLogger(): Logger {
  return { debug: discard, info: discard, warn: discard, error: discard, fatal: discard };
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
        .map(
          ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
        )
        .join(' ');
      out.write(
        `${stamp} ${label}:${typeof name === 'string' ? name : 'yacron2'}: ${typeof msg === 'string' ? msg : ''}${extras ? ' ' + extras : ''}\n`,
      );
    },
  };
}
