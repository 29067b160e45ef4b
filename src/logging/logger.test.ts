import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLineLogger, createLogger } from './logger.js';

function sink(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString('utf8');
      callback();
    },
  });
  const lines = (): Record<string, unknown>[] =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { stream, lines };
}

test('createLineLogger writes the same fields as the pino logger and honours the level', async () => {
  const line = sink();
  const lineLogger = createLineLogger({
    level: 'WARNING',
    destination: line.stream,
    pretty: false,
  });
  lineLogger.info('dropped below WARNING');
  lineLogger.warn({ job: 'a' }, 'kept');
  const pino = sink();
  const pinoLogger = await createLogger({
    level: 'WARNING',
    destination: pino.stream,
    pretty: false,
  });
  pinoLogger.info('dropped below WARNING');
  pinoLogger.warn({ job: 'a' }, 'kept');
  const strip = (record: Record<string, unknown>): Record<string, unknown> => ({
    ...record,
    time: 0,
  });
  assert.deepEqual(line.lines().map(strip), [{ level: 40, time: 0, job: 'a', msg: 'kept' }]);
  assert.deepEqual(line.lines().map(strip), pino.lines().map(strip));
});
