// `yacron2 logs` flags: defaults, the combinations refused, --last's range; and the lines it
// prints (headers, output lines).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLogsArgs } from './logs-args.js';
import { archiveHeaderLine, outputLine, recordHeaderLine } from './logs-format.js';

void test('defaults: the newest archive; --follow alone prints none first', () => {
  assert.deepEqual(parseLogsArgs('etl', {}), {
    kind: 'ok',
    request: { job: 'etl', archives: { kind: 'last', count: 1 }, follow: false },
  });
  assert.deepEqual(parseLogsArgs('etl', { follow: true }), {
    kind: 'ok',
    request: { job: 'etl', archives: { kind: 'none' }, follow: true },
  });
  assert.deepEqual(parseLogsArgs('etl', { follow: true, last: '3' }), {
    kind: 'ok',
    request: { job: 'etl', archives: { kind: 'last', count: 3 }, follow: true },
  });
  assert.deepEqual(parseLogsArgs('etl', { run: 'abc' }), {
    kind: 'ok',
    request: { job: 'etl', archives: { kind: 'run', id: 'abc' }, follow: false },
  });
});

void test('usage errors: --run with --last or --follow, --last outside 1..100, an empty job', () => {
  const usage = (message: string) => ({ kind: 'usage', message });
  assert.deepEqual(
    parseLogsArgs('etl', { run: 'a', last: '2' }),
    usage('--run and --last cannot be combined'),
  );
  assert.deepEqual(
    parseLogsArgs('etl', { run: 'a', follow: true }),
    usage('--run and --follow cannot be combined'),
  );
  assert.deepEqual(parseLogsArgs('etl', { run: '' }), usage('--run must name an archive id'));
  assert.deepEqual(parseLogsArgs('', {}), usage('JOB must not be empty'));
  for (const last of ['0', '101', '-1', '1.5', 'x', '']) {
    assert.deepEqual(
      parseLogsArgs('etl', { last }),
      usage(`--last must be an integer from 1 to 100, got '${last}'`),
      last,
    );
  }
  assert.equal(parseLogsArgs('etl', { last: '100' }).kind, 'ok');
});

void test('the header lines and output lines', () => {
  const header = {
    finished_at: '2026-06-20T03:04:10.500000+00:00',
    outcome: 'failure' as const,
    exit_code: 3,
    redacted: false,
    dropped_lines: 0,
  };
  assert.equal(
    archiveHeaderLine('etl', 'a1', header),
    '== etl run a1 finished 2026-06-20T03:04:10.500000+00:00: failure (exit 3) ==\n',
  );
  assert.equal(
    archiveHeaderLine('etl', 'a1', {
      ...header,
      redacted: true,
      dropped_lines: 1,
      exit_code: null,
    }),
    '== etl run a1 finished 2026-06-20T03:04:10.500000+00:00: failure (no exit code) (redacted) (1 line dropped) ==\n',
  );
  assert.match(
    archiveHeaderLine('etl', 'a1', { ...header, dropped_lines: 12 }),
    /\(12 lines dropped\) ==\n$/,
  );
  assert.equal(
    recordHeaderLine('etl', { outcome: 'success', exit_code: 0, finished_at: null }),
    '== etl run finished: success (exit 0) ==\n',
  );
  assert.equal(outputLine('a\n'), 'a\n');
  assert.equal(outputLine('a'), 'a\n');
  assert.equal(outputLine(''), '\n');
});
