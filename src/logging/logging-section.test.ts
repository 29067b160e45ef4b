import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DAEMON_HANDLER, defaultLogSettings } from './log-settings.js';
import { LoggingSectionError, translateLoggingSection } from './logging-section.js';

const BASE = defaultLogSettings(20);

function translate(section: Record<string, unknown>, current = BASE) {
  return translateLoggingSection(section, BASE, current);
}

function refuses(section: Record<string, unknown>, message: string): void {
  assert.throws(
    () => translate(section),
    (error: unknown) => error instanceof LoggingSectionError && error.message === message,
  );
}

const STDOUT_SECTION = {
  version: 1,
  formatters: { plain: { format: '%(levelname)s %(name)s: %(message)s' } },
  handlers: {
    out: { class: 'logging.StreamHandler', stream: 'ext://sys.stdout', formatter: 'plain' },
  },
  loggers: { yacron2: { level: 'WARNING', handlers: ['out'], propagate: 'no' } },
};

describe('translateLoggingSection', () => {
  test('a level and a stdout handler for yacron2; the root keeps the daemon`s lines', () => {
    const { settings, ignored } = translate(STDOUT_SECTION);
    assert.deepEqual(ignored, []);
    assert.deepEqual(settings.loggers.yacron2, {
      level: 30,
      propagate: false,
      disabled: false,
      handlers: [
        {
          name: 'out',
          stream: 'stdout',
          level: 0,
          format: {
            kind: 'text',
            format: '%(levelname)s %(name)s: %(message)s',
            style: '%',
            datefmt: null,
          },
        },
      ],
    });
    assert.equal(settings.loggers['yacron2.config'].disabled, false, 'a child of a named logger');
    assert.equal(
      settings.loggers.statsd.disabled,
      true,
      'disable_existing_loggers defaults to true',
    );
    assert.equal(settings.loggers.prometheus.disabled, true);
    assert.deepEqual(settings.root, { level: 20, handlers: [DAEMON_HANDLER] });
  });

  test('disable_existing_loggers false keeps every logger; a root entry replaces the root`s handlers', () => {
    const { settings } = translate({
      version: 1,
      disable_existing_loggers: false,
      handlers: {
        err: { class: 'logging.StreamHandler', level: 'ERROR' },
        quiet: { class: 'logging.NullHandler' },
      },
      root: { level: 'DEBUG', handlers: ['err', 'quiet'] },
    });
    assert.ok(Object.values(settings.loggers).every((logger) => !logger.disabled));
    assert.equal(settings.root.level, 10);
    assert.deepEqual(
      settings.root.handlers.map((handler) => [
        handler.name,
        handler.stream,
        handler.level,
        handler.format.kind,
      ]),
      [
        ['err', 'stderr', 40, 'text'],
        ['quiet', 'discard', 0, 'text'],
      ],
    );
    assert.deepEqual(translate({ version: 1, root: {} }).settings.root, {
      level: 20,
      handlers: [],
    });
  });

  test('a JSON formatter (python-json-logger) writes the format`s attributes', () => {
    const { settings } = translate({
      version: 1,
      formatters: {
        json: {
          '()': 'pythonjsonlogger.jsonlogger.JsonFormatter',
          format: '%(asctime)s %(levelname)s %(message)s',
        },
        bare: { class: 'pythonjsonlogger.json.JsonFormatter' },
      },
      handlers: {
        a: { class: 'logging.StreamHandler', formatter: 'json' },
        b: { class: 'logging.StreamHandler', formatter: 'bare' },
      },
      root: { handlers: ['a', 'b'] },
    });
    assert.deepEqual(
      settings.root.handlers.map((handler) => handler.format),
      [
        { kind: 'json', attributes: ['asctime', 'levelname', 'message'], datefmt: null },
        { kind: 'json', attributes: ['message'], datefmt: null },
      ],
    );
  });

  test('what cannot apply here is accepted and named', () => {
    const { settings, ignored } = translate({
      version: 1,
      disable_existing_loggers: false,
      formatters: {
        f: {
          format: '%(asctime)s %(filename)s:%(lineno)d %(message)s',
          datefmt: '%H:%M',
          color: 'yes',
        },
      },
      filters: { only: { name: 'yacron2' } },
      handlers: {
        file: { class: 'logging.handlers.RotatingFileHandler', filename: '/var/log/y.log' },
        out: {
          class: 'logging.StreamHandler',
          formatter: 'f',
          filters: ['only'],
          encoding: 'utf-8',
        },
      },
      loggers: {
        aiohttp: { level: 'ERROR' },
        statsd: { level: 'DEBUG', handlers: ['file', 'out'], filters: ['only'] },
      },
    });
    assert.deepEqual(ignored, [
      'formatters.f.color',
      'formatters.f.format attribute filename (rendered as ?)',
      'formatters.f.format attribute lineno (rendered as ?)',
      'filters',
      'handlers.file (class logging.handlers.RotatingFileHandler)',
      'handlers.out.encoding',
      'handlers.out.filters',
      'loggers.aiohttp (no such logger here; the loggers are yacron2, yacron2.config, statsd, prometheus)',
      'loggers.statsd.filters',
    ]);
    assert.deepEqual(
      settings.loggers.statsd.handlers.map((handler) => handler.name),
      ['out'],
      'the ignored file handler is skipped',
    );
  });

  test('incremental: levels and propagation change, handlers keep their formats', () => {
    const current = translate(STDOUT_SECTION).settings;
    const { settings, ignored } = translate(
      {
        version: 1,
        incremental: true,
        formatters: { other: { format: '%(message)s' } },
        handlers: { out: { level: 'ERROR' } },
        loggers: { yacron2: { level: 'DEBUG', propagate: 'yes' } },
        root: { level: 'CRITICAL' },
      },
      current,
    );
    assert.deepEqual(ignored, ['formatters (incremental)']);
    assert.equal(settings.loggers.yacron2.level, 10);
    assert.equal(settings.loggers.yacron2.propagate, true);
    assert.equal(settings.loggers.yacron2.handlers[0]?.level, 40);
    assert.equal(settings.loggers.yacron2.handlers[0]?.format.kind, 'text');
    assert.equal(settings.loggers.statsd.disabled, true, 'unchanged');
    assert.equal(settings.root.level, 50);
  });

  test('what Python would refuse is an error naming it', () => {
    refuses({ version: 2 }, 'Unsupported version: 2');
    refuses({ version: 1, root: { level: 'info' } }, 'root.level: Unknown level: "info"');
    refuses(
      { version: 1, handlers: { h: { class: 'logging.StreamHandler', formatter: 'nope' } } },
      "Unable to configure handler 'h': Unable to set formatter 'nope'",
    );
    refuses(
      { version: 1, handlers: { h: { level: 'INFO' } } },
      "Unable to configure handler 'h': no class",
    );
    refuses(
      {
        version: 1,
        handlers: { h: { class: 'logging.StreamHandler', stream: 'ext://sys.stdin' } },
      },
      "Unable to configure handler 'h': stream must be ext://sys.stdout or ext://sys.stderr (got 'ext://sys.stdin')",
    );
    refuses(
      { version: 1, loggers: { yacron2: { handlers: ['ghost'] } } },
      "Unable to configure logger 'yacron2': Unable to add handler 'ghost'",
    );
    refuses(
      { version: 1, formatters: { f: { format: 'static text' } } },
      "Unable to configure formatter 'f': Invalid format 'static text' for '%' style",
    );
    refuses(
      { version: 1, formatters: { f: { format: '%(message)s', style: '#' } } },
      "Unable to configure formatter 'f': Style must be one of: %,{,$",
    );
    refuses(
      { version: 1, loggers: { statsd: { propagate: 'maybe' } } },
      'loggers.statsd.propagate must be a boolean (got "maybe")',
    );
    refuses(
      { version: 1, incremental: true, handlers: { h: { level: 'INFO' } } },
      "No handler found with name 'h'",
    );
    refuses({ version: 1, handlers: 'x' }, 'handlers must be a mapping');
  });

  test('numeric levels are accepted as Python accepts ints', () => {
    assert.equal(translate({ version: 1, root: { level: '25' } }).settings.root.level, 25);
  });
});
