// The `logging` section (Python's logging.config dictionary schema) translated into the root
// logger's settings: the compatible subset of docs/configuration.md "logging". Applied as
// dictConfig would (non-incremental: formatters, handlers, loggers and root replace what was
// there, and `disable_existing_loggers`, default true, silences the daemon's loggers the section
// does not name; incremental: only levels and propagation change). What cannot apply here
// (filters, handler classes other than StreamHandler/NullHandler, logger names this daemon does
// not have, record attributes it cannot fill) is collected in `ignored`, for one warning; what
// Python would refuse (a bad version, level, stream or reference) is a LoggingSectionError.
// Pure: no I/O, no logging.
import {
  attributesOf,
  SUPPORTED_ATTRIBUTES,
  validateFormat,
  type FormatStyle,
} from './log-format.js';
import {
  isLoggerName,
  LOGGER_NAMES,
  PY_LEVELS,
  type HandlerSettings,
  type LineFormat,
  type LoggerName,
  type LoggerSettings,
  type LogSettings,
} from './log-settings.js';

export class LoggingSectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoggingSectionError';
  }
}

export interface TranslatedLogging {
  readonly settings: LogSettings;
  /** What was accepted but cannot apply, each naming where it is (for one warning). */
  readonly ignored: readonly string[];
}

type Section = Readonly<Record<string, unknown>>;

const STREAM_HANDLER_CLASSES = new Set(['logging.StreamHandler', 'StreamHandler']);
const NULL_HANDLER_CLASSES = new Set(['logging.NullHandler', 'NullHandler']);
const FORMATTER_KEYS = new Set([
  'format',
  'datefmt',
  'style',
  'validate',
  'class',
  '()',
  'defaults',
]);
const HANDLER_KEYS = new Set(['class', 'level', 'formatter', 'stream', 'filters']);
const LOGGER_KEYS = new Set(['level', 'handlers', 'propagate', 'filters']);
const STREAMS: Readonly<Record<string, HandlerSettings['stream']>> = {
  'ext://sys.stdout': 'stdout',
  'ext://sys.stderr': 'stderr',
};
/** A formatter whose class (or factory) names JSON writes JSON lines (python-json-logger). */
const JSON_FORMATTER = /json/i;
const TRUE_WORDS = new Set(['yes', 'true', 'on', '1', 'y']);
const FALSE_WORDS = new Set(['no', 'false', 'off', '0', 'n']);

function isMap(value: unknown): value is Section {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A map-valued key: absent, empty or null = {}. */
function mapAt(parent: Section, key: string, where: string): Section {
  const value = parent[key];
  if (value === undefined || value === null || value === '') return {};
  if (!isMap(value)) throw new LoggingSectionError(`${where} must be a mapping`);
  return value;
}

function textAt(parent: Section, key: string, where: string): string | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new LoggingSectionError(`${where}.${key} must be a string`);
}

function listAt(parent: Section, key: string, where: string): string[] {
  const value = parent[key];
  if (value === undefined || value === null || value === '') return [];
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new LoggingSectionError(`${where}.${key} must be a list of names`);
  }
  return value as string[];
}

/** A level name as Python spells it (upper case) or a number. */
export function parseLevel(value: unknown, where: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string') {
    if (Object.hasOwn(PY_LEVELS, value)) return PY_LEVELS[value as keyof typeof PY_LEVELS];
    if (/^\d+$/.test(value)) return Number(value);
  }
  throw new LoggingSectionError(`${where}: Unknown level: ${JSON.stringify(value)}`);
}

function levelAt(parent: Section, where: string): number | undefined {
  const value = parent['level'];
  return value === undefined || value === null ? undefined : parseLevel(value, `${where}.level`);
}

function booleanAt(parent: Section, key: string, where: string): boolean | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  const word = typeof value === 'string' ? value.toLowerCase() : undefined;
  if (word !== undefined && TRUE_WORDS.has(word)) return true;
  if (word !== undefined && FALSE_WORDS.has(word)) return false;
  throw new LoggingSectionError(`${where}.${key} must be a boolean (got ${JSON.stringify(value)})`);
}

function unknownKeys(
  entry: Section,
  known: ReadonlySet<string>,
  where: string,
  ignored: string[],
): void {
  for (const key of Object.keys(entry)) if (!known.has(key)) ignored.push(`${where}.${key}`);
}

function translateFormatter(name: string, entry: Section, ignored: string[]): LineFormat {
  const where = `formatters.${name}`;
  unknownKeys(entry, FORMATTER_KEYS, where, ignored);
  const className = textAt(entry, 'class', where) ?? textAt(entry, '()', where);
  const styleText = textAt(entry, 'style', where) ?? '%';
  if (styleText !== '%' && styleText !== '{' && styleText !== '$') {
    throw new LoggingSectionError(
      `Unable to configure formatter '${name}': Style must be one of: %,{,$`,
    );
  }
  const style: FormatStyle = styleText;
  const datefmt = textAt(entry, 'datefmt', where) ?? null;
  const format = textAt(entry, 'format', where);
  const validate = booleanAt(entry, 'validate', where) ?? true;
  if (format !== undefined && validate) {
    const problem = validateFormat(format, style);
    if (problem !== null) {
      throw new LoggingSectionError(`Unable to configure formatter '${name}': ${problem}`);
    }
  }
  if (format !== undefined) {
    const missing = attributesOf(format, style).filter((attr) => !SUPPORTED_ATTRIBUTES.has(attr));
    for (const attr of missing) ignored.push(`${where}.format attribute ${attr} (rendered as ?)`);
  }
  if (className !== undefined && entry['defaults'] !== undefined) ignored.push(`${where}.defaults`);
  if (className !== undefined && JSON_FORMATTER.test(className)) {
    return {
      kind: 'json',
      attributes: format === undefined ? ['message'] : attributesOf(format, style),
      datefmt,
    };
  }
  if (className !== undefined && className !== 'logging.Formatter') {
    ignored.push(`${where} (class ${className}: formatted as logging.Formatter)`);
  }
  return {
    kind: 'text',
    format: format ?? '%(message)s',
    style: format === undefined ? '%' : style,
    datefmt,
  };
}

const PLAIN_FORMAT: LineFormat = { kind: 'text', format: '%(message)s', style: '%', datefmt: null };

/** A handler, or null when its class cannot apply here (then ignored). */
function translateHandler(
  name: string,
  entry: Section,
  formatters: ReadonlyMap<string, LineFormat>,
  ignored: string[],
): HandlerSettings | null {
  const where = `handlers.${name}`;
  const className = textAt(entry, 'class', where);
  if (className === undefined) {
    throw new LoggingSectionError(`Unable to configure handler '${name}': no class`);
  }
  const isStream = STREAM_HANDLER_CLASSES.has(className);
  if (!isStream && !NULL_HANDLER_CLASSES.has(className)) {
    ignored.push(`${where} (class ${className})`);
    return null;
  }
  unknownKeys(entry, HANDLER_KEYS, where, ignored);
  if (listAt(entry, 'filters', where).length > 0) ignored.push(`${where}.filters`);
  const level = levelAt(entry, where) ?? 0;
  const formatterName = textAt(entry, 'formatter', where);
  let format = PLAIN_FORMAT;
  if (formatterName !== undefined) {
    const found = formatters.get(formatterName);
    if (found === undefined) {
      throw new LoggingSectionError(
        `Unable to configure handler '${name}': Unable to set formatter '${formatterName}'`,
      );
    }
    format = found;
  }
  if (!isStream) return { name, stream: 'discard', level, format };
  const streamText = textAt(entry, 'stream', where) ?? 'ext://sys.stderr';
  const stream = STREAMS[streamText];
  if (stream === undefined) {
    throw new LoggingSectionError(
      `Unable to configure handler '${name}': stream must be ext://sys.stdout or ext://sys.stderr (got '${streamText}')`,
    );
  }
  return { name, stream, level, format };
}

/** The handlers a logger names; unknown names are an error, ignored (unsupported) ones skipped. */
function handlersOf(
  owner: string,
  names: readonly string[],
  handlers: ReadonlyMap<string, HandlerSettings | null>,
): HandlerSettings[] {
  const out: HandlerSettings[] = [];
  for (const name of names) {
    const handler = handlers.get(name);
    if (handler === undefined) {
      throw new LoggingSectionError(
        `Unable to configure ${owner}: Unable to add handler '${name}'`,
      );
    }
    if (handler !== null) out.push(handler);
  }
  return out;
}

function translateFull(section: Section, base: LogSettings, ignored: string[]): LogSettings {
  const formatters = new Map<string, LineFormat>();
  for (const [name, entry] of Object.entries(mapAt(section, 'formatters', 'formatters'))) {
    formatters.set(name, translateFormatter(name, isMap(entry) ? entry : {}, ignored));
  }
  if (Object.keys(mapAt(section, 'filters', 'filters')).length > 0) ignored.push('filters');
  const handlers = new Map<string, HandlerSettings | null>();
  for (const [name, entry] of Object.entries(mapAt(section, 'handlers', 'handlers'))) {
    handlers.set(name, translateHandler(name, isMap(entry) ? entry : {}, formatters, ignored));
  }

  const loggers = { ...base.loggers } as Record<LoggerName, LoggerSettings>;
  const named: string[] = [];
  for (const [name, raw] of Object.entries(mapAt(section, 'loggers', 'loggers'))) {
    const where = `loggers.${name}`;
    named.push(name);
    if (!isLoggerName(name)) {
      ignored.push(`${where} (no such logger here; the loggers are ${LOGGER_NAMES.join(', ')})`);
      continue;
    }
    const entry = isMap(raw) ? raw : {};
    unknownKeys(entry, LOGGER_KEYS, where, ignored);
    if (listAt(entry, 'filters', where).length > 0) ignored.push(`${where}.filters`);
    loggers[name] = {
      level: levelAt(entry, where) ?? loggers[name].level,
      handlers: handlersOf(`logger '${name}'`, listAt(entry, 'handlers', where), handlers),
      propagate: booleanAt(entry, 'propagate', where) ?? true,
      disabled: false,
    };
  }
  // dictConfig silences the existing loggers the section does not name (nor an ancestor of).
  if (booleanAt(section, 'disable_existing_loggers', 'logging') ?? true) {
    for (const name of LOGGER_NAMES) {
      const kept = named.some(
        (configured) => name === configured || name.startsWith(`${configured}.`),
      );
      if (!kept) loggers[name] = { ...loggers[name], disabled: true };
    }
  }

  let root = base.root;
  const rootEntry = section['root'];
  if (rootEntry !== undefined && rootEntry !== null) {
    const entry = isMap(rootEntry) ? rootEntry : {};
    unknownKeys(entry, LOGGER_KEYS, 'root', ignored);
    if (listAt(entry, 'filters', 'root').length > 0) ignored.push('root.filters');
    root = {
      level: levelAt(entry, 'root') ?? base.root.level,
      handlers: handlersOf('root logger', listAt(entry, 'handlers', 'root'), handlers),
    };
  }
  return { root, loggers };
}

/** Incremental: levels and propagation only, on top of what is applied now. */
function translateIncremental(
  section: Section,
  current: LogSettings,
  ignored: string[],
): LogSettings {
  for (const key of ['formatters', 'filters'] as const) {
    if (Object.keys(mapAt(section, key, key)).length > 0) ignored.push(`${key} (incremental)`);
  }
  const known = new Map<string, HandlerSettings>();
  const collect = (list: readonly HandlerSettings[]): void => {
    for (const handler of list) known.set(handler.name, handler);
  };
  collect(current.root.handlers);
  for (const name of LOGGER_NAMES) collect(current.loggers[name].handlers);
  const relevelled = new Map<string, HandlerSettings>();
  for (const [name, raw] of Object.entries(mapAt(section, 'handlers', 'handlers'))) {
    const handler = known.get(name);
    if (handler === undefined) {
      throw new LoggingSectionError(`No handler found with name '${name}'`);
    }
    const level = levelAt(isMap(raw) ? raw : {}, `handlers.${name}`);
    if (level !== undefined) relevelled.set(name, { ...handler, level });
  }
  const swap = (list: readonly HandlerSettings[]): HandlerSettings[] =>
    list.map((handler) => relevelled.get(handler.name) ?? handler);
  const loggers = {} as Record<LoggerName, LoggerSettings>;
  for (const name of LOGGER_NAMES) {
    loggers[name] = { ...current.loggers[name], handlers: swap(current.loggers[name].handlers) };
  }
  for (const [name, raw] of Object.entries(mapAt(section, 'loggers', 'loggers'))) {
    if (!isLoggerName(name)) {
      ignored.push(`loggers.${name} (no such logger here)`);
      continue;
    }
    const entry = isMap(raw) ? raw : {};
    loggers[name] = {
      ...loggers[name],
      level: levelAt(entry, `loggers.${name}`) ?? loggers[name].level,
      propagate: booleanAt(entry, 'propagate', `loggers.${name}`) ?? loggers[name].propagate,
      disabled: false,
    };
  }
  const rootEntry = isMap(section['root']) ? section['root'] : {};
  return {
    root: {
      level: levelAt(rootEntry, 'root') ?? current.root.level,
      handlers: swap(current.root.handlers),
    },
    loggers,
  };
}

/**
 * Translate the section. `base` is what a section starts from (the daemon's defaults at `-l`'s
 * level); `current` what is applied now (incremental sections change it).
 */
export function translateLoggingSection(
  section: Section,
  base: LogSettings,
  current: LogSettings,
): TranslatedLogging {
  const version = section['version'];
  if (version !== 1 && version !== '1') {
    throw new LoggingSectionError(`Unsupported version: ${String(version)}`);
  }
  const ignored: string[] = [];
  const incremental = booleanAt(section, 'incremental', 'logging') ?? false;
  const settings = incremental
    ? translateIncremental(section, current, ignored)
    : translateFull(section, base, ignored);
  return { settings, ignored };
}
