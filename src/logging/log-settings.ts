// What the daemon's reconfigurable root logger can be told (the `logging` section translated,
// docs/configuration.md "logging"): Python logging's model cut down to what applies here: the
// daemon's four logger names with a level, handlers, propagation and a disabled flag, and
// handlers that write one stream in one line format. Types and the defaults only.
import type { FormatStyle } from './log-format.js';

/** The reference's logger names, the only ones this daemon logs under. */
export const LOGGER_NAMES = ['yacron2', 'yacron2.config', 'statsd', 'prometheus'] as const;
export type LoggerName = (typeof LOGGER_NAMES)[number];

/** Python level numbers. */
export const PY_LEVELS = {
  NOTSET: 0,
  DEBUG: 10,
  INFO: 20,
  WARN: 30,
  WARNING: 30,
  ERROR: 40,
  FATAL: 50,
  CRITICAL: 50,
} as const;

/** Above every level: nothing passes (`-l` silent, for tests). */
export const SILENT_LEVEL = 100;

export type LineFormat =
  /** The daemon's own lines: pino JSON, or the short terminal line on a TTY. */
  | { readonly kind: 'daemon' }
  /** A Python logging format. */
  | {
      readonly kind: 'text';
      readonly format: string;
      readonly style: FormatStyle;
      readonly datefmt: string | null;
    }
  /** One JSON object per line: the format's attributes in order, then the call's fields. */
  | {
      readonly kind: 'json';
      readonly attributes: readonly string[];
      readonly datefmt: string | null;
    };

export interface HandlerSettings {
  readonly name: string;
  readonly stream: 'stdout' | 'stderr' | 'discard';
  /** Records below this level are not written (0: all). */
  readonly level: number;
  readonly format: LineFormat;
}

export interface LoggerSettings {
  /** 0 (NOTSET): the parent's level applies. */
  readonly level: number;
  readonly handlers: readonly HandlerSettings[];
  readonly propagate: boolean;
  readonly disabled: boolean;
}

export interface LogSettings {
  readonly root: { readonly level: number; readonly handlers: readonly HandlerSettings[] };
  readonly loggers: Readonly<Record<LoggerName, LoggerSettings>>;
}

/** The handler the daemon has without a `logging` section: its own lines on stderr. */
export const DAEMON_HANDLER: HandlerSettings = Object.freeze({
  name: '(daemon)',
  stream: 'stderr',
  level: 0,
  format: Object.freeze({ kind: 'daemon' }),
});

const UNSET_LOGGER: LoggerSettings = Object.freeze({
  level: 0,
  handlers: [],
  propagate: true,
  disabled: false,
});

/** No section: the root at `-l`'s level writing the daemon's lines to stderr. */
export function defaultLogSettings(rootLevel: number): LogSettings {
  const loggers = {} as Record<LoggerName, LoggerSettings>;
  for (const name of LOGGER_NAMES) loggers[name] = UNSET_LOGGER;
  return { root: { level: rootLevel, handlers: [DAEMON_HANDLER] }, loggers };
}

/** `yacron2.config` -> `yacron2`; a top-level name -> null (the root). */
export function parentOf(name: LoggerName): LoggerName | null {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return null;
  const parent = name.slice(0, dot);
  return (LOGGER_NAMES as readonly string[]).includes(parent) ? (parent as LoggerName) : null;
}

export function isLoggerName(name: string): name is LoggerName {
  return (LOGGER_NAMES as readonly string[]).includes(name);
}
