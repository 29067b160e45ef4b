// `yacron2 next` through runNext() with a capturing io: output format, DST, horizon, @reboot
// and the error paths.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import type { CommandIo } from '../io.js';
import { parseIsoInstant, runNext, type NextOptions } from './next.js';

interface Captured {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(options: NextOptions): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
  };
  const code = await runNext(options, io);
  return { code, stdout, stderr };
}

void describe('runNext()', () => {
  void it('prints local time, zone, offset and UTC; a skipped 02:30 shows at 03:30 EDT', async () => {
    const result = await run({
      expression: '30 2 * * *',
      tz: 'America/New_York',
      from: '2026-03-07T00:00:00Z',
      count: 3,
    });
    assert.equal(result.code, 0);
    assert.equal(result.stderr, '');
    assert.equal(
      result.stdout,
      [
        '2026-03-07 02:30:00 EST (-05:00)  2026-03-07T07:30:00Z',
        '2026-03-08 03:30:00 EDT (-04:00)  2026-03-08T07:30:00Z',
        '2026-03-09 02:30:00 EDT (-04:00)  2026-03-09T06:30:00Z',
        '',
      ].join('\n'),
    );
  });

  void it('starts from nowMs when --from is absent, and defaults to UTC', async () => {
    const result = await run({
      expression: '*/20 * * * * * *',
      count: 2,
      nowMs: Date.parse('2026-01-07T12:00:30.500Z'),
    });
    assert.equal(result.code, 0);
    assert.equal(
      result.stdout,
      '2026-01-07 12:00:40 UTC (+00:00)  2026-01-07T12:00:40Z\n' +
        '2026-01-07 12:01:00 UTC (+00:00)  2026-01-07T12:01:00Z\n',
    );
  });

  void it('prefers --from over nowMs and accepts an offset in it', async () => {
    const result = await run({
      expression: '@hourly',
      from: '2026-01-07T12:30:00+01:00',
      count: 1,
      nowMs: 0,
    });
    assert.equal(result.stdout, '2026-01-07 12:00:00 UTC (+00:00)  2026-01-07T12:00:00Z\n');
  });

  void it('prints half-hour offsets (Lord Howe) and stops at the 2099 horizon', async () => {
    const lordHowe = await run({
      expression: '0 3 * * *',
      tz: 'Australia/Lord_Howe',
      from: '2026-10-02T00:00:00Z',
      count: 1,
    });
    assert.match(
      lordHowe.stdout,
      /^2026-10-03 03:00:00 \S+ \(\+10:30\) {2}2026-10-02T16:30:00Z\n$/,
    );

    const horizon = await run({
      expression: '59 59 23 31 12 * 2099',
      from: '2099-01-01T00:00:00Z',
      count: 3,
    });
    assert.equal(horizon.code, 0);
    assert.equal(
      horizon.stdout,
      '2099-12-31 23:59:59 UTC (+00:00)  2099-12-31T23:59:59Z\n' +
        'no further fire time before the end of 2099\n',
    );
  });

  void it('explains @reboot and exits 0', async () => {
    const result = await run({ expression: '@reboot', count: 5, nowMs: 0 });
    assert.equal(result.code, 0);
    assert.equal(
      result.stdout,
      '@reboot is not a recurring schedule: the job runs once, when the daemon starts.\n',
    );
  });

  void it('reports an invalid expression on stderr and exits 1', async () => {
    const result = await run({ expression: '61 * * * *', count: 1, nowMs: 0 });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      "yacron2 next: invalid schedule '61 * * * *': minute 61 is out of range 0-59\n",
    );
  });

  void it('reports an unknown zone on stderr and exits 1', async () => {
    const result = await run({ expression: '* * * * *', tz: 'Mars/Olympus', count: 1, nowMs: 0 });
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'yacron2 next: unknown timezone: Mars/Olympus\n');
  });

  void it('reports a malformed or impossible --from on stderr and exits 1', async () => {
    for (const from of ['yesterday', '2026-02-30T00:00:00Z', '2026-03-08T00:00:00']) {
      const result = await run({ expression: '* * * * *', from, count: 1 });
      assert.equal(result.code, 1, from);
      assert.equal(
        result.stderr,
        `yacron2 next: Cannot parse --from '${from}': expected an ISO 8601 instant such as 2026-03-08T00:00:00Z\n`,
      );
    }
  });

  void it('rejects a count below 1', async () => {
    const result = await run({ expression: '* * * * *', count: 0, nowMs: 0 });
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'yacron2 next: the count must be a whole number >= 1, got 0\n');
  });
});

void describe('parseIsoInstant()', () => {
  void it('reads Z, offsets and fractions', () => {
    assert.equal(parseIsoInstant('2026-03-08T07:30:00Z'), Date.parse('2026-03-08T07:30:00Z'));
    assert.equal(parseIsoInstant('2026-03-08T02:30-05:00'), Date.parse('2026-03-08T07:30:00Z'));
    assert.equal(
      parseIsoInstant('2026-03-08 07:30:00.250z'),
      Date.parse('2026-03-08T07:30:00.250Z'),
    );
    assert.equal(parseIsoInstant('2026-03-08T13:00:00+0530'), Date.parse('2026-03-08T07:30:00Z'));
  });

  void it('rejects a time without a zone designator and impossible dates', () => {
    assert.equal(parseIsoInstant('2026-03-08T07:30:00'), null);
    assert.equal(parseIsoInstant('2026-13-01T00:00:00Z'), null);
    assert.equal(parseIsoInstant('2026-01-01T24:00:00Z'), null);
  });
});
