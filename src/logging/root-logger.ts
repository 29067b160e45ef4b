// The daemon's root logger, reconfigurable at run time by the `logging` section: every log call
// is routed as Python's logging routes a record (the logger named by the call's `logger` field,
// `yacron2` by default: its effective level, then the handlers of it and its ancestors while
// they propagate; nothing to write to -> Python's last resort, WARNING and above to stderr as
// the bare message). Without a section the root writes the daemon's own lines (pino) to stderr
// at `-l`'s level, exactly as before. Routing plans are computed once per configure(), so a
// call costs a map lookup and a level comparison.
import { systemClock, type Clock } from '../common/index.js';
import { attributeValue, formatRecord, type LogRecord } from './log-format.js';
import {
  defaultLogSettings,
  isLoggerName,
  LOGGER_NAMES,
  parentOf,
  PY_LEVELS,
  SILENT_LEVEL,
  type HandlerSettings,
  type LineFormat,
  type LoggerName,
  type LogSettings,
} from './log-settings.js';
import { createLogger, type LogLevelName, type LogMethod, type Logger } from './logger.js';

export interface RootLoggerOptions {
  /** `-l`: the root's level while no section sets one. */
  readonly level?: LogLevelName | 'silent';
  readonly stdout?: NodeJS.WritableStream;
  readonly stderr?: NodeJS.WritableStream;
  /** The daemon's lines as the short terminal form; default: whether stderr is a TTY. */
  readonly pretty?: boolean;
  readonly clock?: Clock;
}

export interface RootLogger {
  readonly logger: Logger;
  /** What a section starts from: `-l`'s level, the daemon's lines on stderr. */
  readonly base: LogSettings;
  /** What is applied now. */
  readonly current: LogSettings;
  configure(settings: LogSettings): void;
}

interface Plan {
  readonly disabled: boolean;
  readonly level: number;
  /** The handlers a record meets, in order (the logger's, then its ancestors' while propagating). */
  readonly handlers: readonly HandlerSettings[];
}

const METHOD_LEVELS = { debug: 10, info: 20, warn: 30, error: 40, fatal: 50 } as const;
type MethodName = keyof typeof METHOD_LEVELS;
const NO_FIELDS: Readonly<Record<string, unknown>> = Object.freeze({});

function planFor(settings: LogSettings, name: LoggerName): Plan {
  let level = 0;
  const handlers: HandlerSettings[] = [];
  let propagating = true;
  for (let node: LoggerName | null = name; node !== null; node = parentOf(node)) {
    const logger = settings.loggers[node];
    if (level === 0) level = logger.level;
    if (propagating) {
      handlers.push(...logger.handlers);
      propagating = logger.propagate;
    }
  }
  if (level === 0) level = settings.root.level;
  if (propagating) handlers.push(...settings.root.handlers);
  return { disabled: settings.loggers[name].disabled, level, handlers };
}

function serialiseField(value: unknown): unknown {
  if (value instanceof Error)
    return { type: value.name, message: value.message, stack: value.stack };
  return value;
}

function jsonLine(record: LogRecord, format: Extract<LineFormat, { kind: 'json' }>): string {
  const out: Record<string, unknown> = {};
  for (const attribute of format.attributes) {
    out[attribute] = attributeValue(record, attribute, format.datefmt) ?? null;
  }
  for (const [key, value] of Object.entries(record.fields)) {
    if (key !== 'logger' && !(key in out)) out[key] = serialiseField(value);
  }
  return `${JSON.stringify(out)}\n`;
}

export async function createRootLogger(options: RootLoggerOptions = {}): Promise<RootLogger> {
  const clock = options.clock ?? systemClock;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const startMs = clock.now();
  // The daemon's own lines; the level is decided here, so pino lets everything through.
  const daemon = await createLogger({
    level: 'DEBUG',
    destination: stderr,
    ...(options.pretty !== undefined ? { pretty: options.pretty } : {}),
  });
  const rootLevel =
    options.level === undefined
      ? PY_LEVELS.INFO
      : options.level === 'silent'
        ? SILENT_LEVEL
        : PY_LEVELS[options.level];
  const base = defaultLogSettings(rootLevel);
  let current = base;
  let plans = new Map<LoggerName, Plan>();

  const configure = (settings: LogSettings): void => {
    const next = new Map<LoggerName, Plan>();
    for (const name of LOGGER_NAMES) next.set(name, planFor(settings, name));
    plans = next;
    current = settings;
  };
  configure(base);

  const write = (stream: HandlerSettings['stream'], line: string): void => {
    if (stream === 'stdout') stdout.write(line);
    else if (stream === 'stderr') stderr.write(line);
  };

  const emit = (method: MethodName, first: string | object, second?: string): void => {
    const levelno = METHOD_LEVELS[method];
    const fields = typeof first === 'string' ? NO_FIELDS : (first as Record<string, unknown>);
    const message = typeof first === 'string' ? first : (second ?? '');
    const named = fields['logger'];
    const name: LoggerName = typeof named === 'string' && isLoggerName(named) ? named : 'yacron2';
    const plan = plans.get(name);
    if (plan === undefined || plan.disabled || levelno < plan.level) return;
    if (plan.handlers.length === 0) {
      if (levelno >= PY_LEVELS.WARNING) stderr.write(`${message}\n`);
      return;
    }
    let record: LogRecord | undefined;
    const recordOf = (): LogRecord => {
      const nowMs = clock.now();
      record ??= { name, levelno, message, createdMs: nowMs, relativeMs: nowMs - startMs, fields };
      return record;
    };
    for (const handler of plan.handlers) {
      if (levelno < handler.level || handler.stream === 'discard') continue;
      const { format } = handler;
      switch (format.kind) {
        case 'daemon':
          daemon[method](fields, message);
          break;
        case 'text':
          write(
            handler.stream,
            `${formatRecord(recordOf(), format.format, format.style, format.datefmt)}\n`,
          );
          break;
        case 'json':
          write(handler.stream, jsonLine(recordOf(), format));
          break;
      }
    }
  };

  const method =
    (name: MethodName): LogMethod =>
    (first: string | object, second?: string) =>
      emit(name, first, second);
  const logger: Logger = {
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    fatal: method('fatal'),
  };
  return {
    logger,
    base,
    get current() {
      return current;
    },
    configure,
  };
}
