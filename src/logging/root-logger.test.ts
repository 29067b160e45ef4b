import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { LoggingSectionApplier } from './logging-applier.js';
import { createRootLogger, type RootLogger } from './root-logger.js';

process.env.TZ = 'UTC';

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
  lines(): string[] {
    return this.text.split('\n').filter(Boolean);
  }
  take(): string[] {
    const lines = this.lines();
    this.text = '';
    return lines;
  }
}

interface Harness {
  readonly root: RootLogger;
  readonly applier: LoggingSectionApplier;
  readonly stdout: Sink;
  readonly stderr: Sink;
}

async function harness(level: 'DEBUG' | 'INFO' | 'WARNING' = 'INFO'): Promise<Harness> {
  const stdout = new Sink();
  const stderr = new Sink();
  const root = await createRootLogger({
    level,
    stdout,
    stderr,
    pretty: false,
    clock: new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0, 5)),
  });
  return { root, applier: new LoggingSectionApplier(root), stdout, stderr };
}

/** The message of each pino JSON line. */
function messages(lines: readonly string[]): string[] {
  return lines.map((line) => String((JSON.parse(line) as { msg: string }).msg));
}

const handler = (stream: string, formatter = 'plain') => ({
  class: 'logging.StreamHandler',
  stream: `ext://sys.${stream}`,
  formatter,
});
const PLAIN = { plain: { format: '%(levelname)s:%(name)s:%(message)s' } };

describe('the root logger', () => {
  test('without a section: the daemon`s JSON lines on stderr at -l`s level, as before', async () => {
    const { root, stderr, stdout } = await harness('INFO');
    root.logger.debug('hidden');
    root.logger.info({ job: 'a' }, 'shown');
    root.logger.warn({ logger: 'statsd' }, 'udp');
    const records = stderr.lines().map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      records.map(({ level, msg, job, logger }) => ({ level, msg, job, logger })),
      [
        { level: 30, msg: 'shown', job: 'a', logger: undefined },
        { level: 40, msg: 'udp', job: undefined, logger: 'statsd' },
      ],
    );
    assert.equal(stdout.text, '');
  });

  test('yacron2 at WARNING to stdout changes what is printed, and where', async () => {
    const { root, applier, stdout, stderr } = await harness('INFO');
    assert.equal(
      applier.apply({
        version: 1,
        formatters: PLAIN,
        handlers: { out: handler('stdout') },
        loggers: { yacron2: { level: 'WARNING', handlers: ['out'], propagate: 'false' } },
      }),
      'applied',
    );
    root.logger.info('Starting job a');
    root.logger.warn('Job a: still running');
    root.logger.error({ logger: 'yacron2.config' }, 'bad file');
    root.logger.warn({ logger: 'statsd' }, 'disabled by disable_existing_loggers');
    assert.deepEqual(stdout.take(), [
      'WARNING:yacron2:Job a: still running',
      'ERROR:yacron2.config:bad file',
    ]);
    assert.deepEqual(stderr.take(), []);
  });

  test('records propagate to every ancestor`s handlers, each with its own level', async () => {
    const { root, applier, stdout, stderr } = await harness('INFO');
    applier.apply({
      version: 1,
      disable_existing_loggers: false,
      formatters: PLAIN,
      handlers: { out: handler('stdout'), err: { ...handler('stderr'), level: 'ERROR' } },
      loggers: { yacron2: { handlers: ['out'] } },
      root: { level: 'DEBUG', handlers: ['err'] },
    });
    root.logger.debug({ logger: 'yacron2.config' }, 'parsed');
    root.logger.error('boom');
    root.logger.info({ logger: 'prometheus' }, 'scrape');
    assert.deepEqual(stdout.take(), ['DEBUG:yacron2.config:parsed', 'ERROR:yacron2:boom']);
    assert.deepEqual(stderr.take(), ['ERROR:yacron2:boom']);
  });

  test('with no handler anywhere, WARNING and above reach stderr as the bare message', async () => {
    const { root, applier, stderr } = await harness('INFO');
    applier.apply({ version: 1, disable_existing_loggers: false, root: { level: 'DEBUG' } });
    root.logger.info('quiet');
    root.logger.warn('last resort');
    assert.deepEqual(stderr.take(), ['last resort']);
  });

  test('a JSON formatter writes one object per line with the call`s fields', async () => {
    const { root, applier, stdout } = await harness('INFO');
    applier.apply({
      version: 1,
      formatters: {
        json: {
          class: 'pythonjsonlogger.jsonlogger.JsonFormatter',
          format: '%(asctime)s %(levelname)s %(name)s %(message)s',
        },
      },
      handlers: { out: handler('stdout', 'json') },
      root: { handlers: ['out'] },
      loggers: { yacron2: {} },
    });
    root.logger.warn({ job: 'backup', err: new Error('disk full') }, 'Job backup failed');
    const [line] = stdout.take();
    const record = JSON.parse(line ?? '{}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(record), [
      'asctime',
      'levelname',
      'name',
      'message',
      'job',
      'err',
    ]);
    assert.equal(record.asctime, '2026-01-01 12:00:00,005');
    assert.equal(record.levelname, 'WARNING');
    assert.equal(record.message, 'Job backup failed');
    assert.deepEqual((record.err as Record<string, unknown>).message, 'disk full');
  });

  test('a reload that changes the section takes effect; removing it returns to the defaults', async () => {
    const { root, applier, stdout, stderr } = await harness('INFO');
    const section = (level: string) => ({
      version: 1,
      formatters: PLAIN,
      handlers: { out: handler('stdout') },
      loggers: { yacron2: { level, handlers: ['out'], propagate: 'no' } },
    });
    applier.apply(section('WARNING'));
    root.logger.info('one');
    assert.equal(applier.apply(section('WARNING')), 'unchanged');
    assert.equal(applier.apply(section('INFO')), 'applied');
    root.logger.info('two');
    assert.deepEqual(stdout.take(), ['INFO:yacron2:two']);
    assert.equal(applier.apply(null), 'applied');
    root.logger.info('three');
    assert.deepEqual(stdout.take(), []);
    assert.deepEqual(messages(stderr.take()), ['three']);
  });

  test('a failing section is logged, changes nothing, and is tried again', async () => {
    const { root, applier, stderr } = await harness('INFO');
    const bad = { version: 1, root: { level: 'loud' } };
    assert.equal(applier.apply(bad), 'failed');
    assert.equal(applier.apply(bad), 'failed', 'not recorded as applied: retried');
    root.logger.info('still the defaults');
    assert.deepEqual(messages(stderr.take()), [
      'Error while configuring logging: root.level: Unknown level: "loud"',
      'Error while configuring logging: root.level: Unknown level: "loud"',
      'still the defaults',
    ]);
  });

  test('what cannot apply is named in one warning', async () => {
    const { applier, stderr } = await harness('INFO');
    applier.apply({
      version: 1,
      disable_existing_loggers: false,
      filters: { f: {} },
      handlers: { file: { class: 'logging.FileHandler', filename: 'x.log' } },
    });
    assert.deepEqual(messages(stderr.take()), [
      'The logging section is applied without what this daemon cannot do: filters; handlers.file (class logging.FileHandler)',
    ]);
  });
});
