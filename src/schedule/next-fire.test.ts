// nextFireTime(): strictly-after semantics, the AND day rule, L items, the 2099 horizon, and
// DST in New York, Berlin and Lord Howe (30-minute shift) in both directions.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { nextFireTime, parseSchedule } from './index.js';
import { bruteForceFires, intlTransitions, intlWall } from './intl-reference.test.js';

const utc = (iso: string): number => Date.parse(iso);

function next(expression: string, fromIso: string, timezone = 'UTC'): string | null {
  const fire = nextFireTime(parseSchedule(expression, { timezone }), utc(fromIso));
  return fire === null ? null : new Date(fire).toISOString();
}

function fires(expression: string, fromIso: string, count: number, timezone = 'UTC'): string[] {
  const schedule = parseSchedule(expression, { timezone });
  const result: string[] = [];
  let from = utc(fromIso);
  for (let i = 0; i < count; i++) {
    const fire = nextFireTime(schedule, from);
    if (fire === null) break;
    result.push(new Date(fire).toISOString());
    from = fire;
  }
  return result;
}

void describe('nextFireTime() reference instant', () => {
  void it('is strictly after the reference and ignores its sub-second part', () => {
    assert.equal(next('* * * * *', '2026-01-07T12:00:30.500Z'), '2026-01-07T12:01:00.000Z');
    assert.equal(next('* * * * *', '2026-01-07T12:01:00.000Z'), '2026-01-07T12:02:00.000Z');
    assert.equal(next('* * * * *', '2026-01-07T12:00:59.999Z'), '2026-01-07T12:01:00.000Z');
  });

  void it('steps whole seconds for 7-field expressions', () => {
    assert.equal(next('* * * * * * *', '2026-01-07T12:00:00.999Z'), '2026-01-07T12:00:01.000Z');
    assert.equal(next('*/20 * * * * * *', '2026-01-07T12:00:40Z'), '2026-01-07T12:01:00.000Z');
  });

  void it('rejects a non-finite reference as a programming error', () => {
    assert.throws(() => nextFireTime(parseSchedule('* * * * *'), Number.NaN), RangeError);
  });
});

void describe('nextFireTime() day rules', () => {
  void it('requires both day of month and day of week when both are restricted (Friday 13th)', () => {
    assert.deepEqual(fires('0 0 13 * 5', '2026-01-01T00:00:00Z', 3), [
      '2026-02-13T00:00:00.000Z',
      '2026-03-13T00:00:00.000Z',
      '2026-11-13T00:00:00.000Z',
    ]);
  });

  void it('fires L on the last day of each month, including a leap February', () => {
    assert.deepEqual(fires('0 0 L * *', '2028-01-15T00:00:00Z', 3), [
      '2028-01-31T00:00:00.000Z',
      '2028-02-29T00:00:00.000Z',
      '2028-03-31T00:00:00.000Z',
    ]);
    assert.equal(next('0 0 L 2 *', '2027-03-01T00:00:00Z'), '2028-02-29T00:00:00.000Z');
  });

  void it('fires L5 on the last Friday of each month', () => {
    assert.deepEqual(fires('0 0 * * L5', '2026-01-01T00:00:00Z', 3), [
      '2026-01-30T00:00:00.000Z',
      '2026-02-27T00:00:00.000Z',
      '2026-03-27T00:00:00.000Z',
    ]);
  });

  void it('fires L0-1 on the last Sunday and the last Monday of each month', () => {
    assert.deepEqual(fires('0 0 * * L0-1', '2026-01-01T00:00:00Z', 4), [
      '2026-01-25T00:00:00.000Z',
      '2026-01-26T00:00:00.000Z',
      '2026-02-22T00:00:00.000Z',
      '2026-02-23T00:00:00.000Z',
    ]);
  });

  void it('combines a weekday list with an L item (Mondays and the last Friday)', () => {
    assert.deepEqual(fires('0 0 * * 1,L5', '2026-01-24T00:00:00Z', 3), [
      '2026-01-26T00:00:00.000Z',
      '2026-01-30T00:00:00.000Z',
      '2026-02-02T00:00:00.000Z',
    ]);
  });

  void it('skips months too short for the day', () => {
    assert.equal(next('0 0 31 * *', '2026-04-01T00:00:00Z'), '2026-05-31T00:00:00.000Z');
    assert.equal(next('0 0 29 2 *', '2026-01-01T00:00:00Z'), '2028-02-29T00:00:00.000Z');
  });
});

void describe('nextFireTime() 2099 horizon', () => {
  void it('returns null when the next fire would be after 2099', () => {
    assert.equal(next('* * * * *', '2099-12-31T23:59:00Z'), null);
    assert.equal(next('59 59 23 31 12 * 2099', '2099-12-31T23:59:58Z'), '2099-12-31T23:59:59.000Z');
    assert.equal(next('59 59 23 31 12 * 2099', '2099-12-31T23:59:59Z'), null);
  });

  void it('applies the horizon to the wall year of the schedule zone', () => {
    // 23:30 JST on 2099-12-31: the next hour is 2100-01-01 00:00 JST, past the horizon.
    assert.equal(next('0 * * * *', '2099-12-31T14:30:00Z', 'Asia/Tokyo'), null);
    assert.equal(
      next('0 * * * *', '2099-12-31T13:30:00Z', 'Asia/Tokyo'),
      '2099-12-31T14:00:00.000Z',
    );
  });

  void it('returns null for a past year and for an impossible date', () => {
    assert.equal(next('0 0 1 1 * 2020', '2026-01-01T00:00:00Z'), null);
    assert.equal(next('0 0 30 2 *', '2026-01-01T00:00:00Z'), null);
    assert.equal(next('0 0 31 11 * *', '2026-01-01T00:00:00Z', 'Europe/Berlin'), null);
  });

  void it('jumps straight to a far year', () => {
    assert.equal(next('0 0 1 1 * 2099', '1970-01-01T00:00:00Z'), '2099-01-01T00:00:00.000Z');
    assert.equal(
      next('0 0 1 1 * 2099', '2026-01-01T00:00:00Z', 'America/New_York'),
      '2099-01-01T05:00:00.000Z',
    );
  });
});

void describe('nextFireTime() DST in America/New_York', () => {
  const ny = 'America/New_York';

  void it('fires a skipped 02:30 at 03:30 EDT on New York spring-forward', () => {
    assert.equal(next('30 2 * * *', '2026-03-08T05:00:00Z', ny), '2026-03-08T07:30:00.000Z');
  });

  void it('fires a skipped 02:00 at 03:00 EDT, once, also when 03:00 matches', () => {
    assert.equal(next('0 2 * * *', '2026-03-08T05:00:00Z', ny), '2026-03-08T07:00:00.000Z');
    assert.deepEqual(fires('0 2,3 * * *', '2026-03-08T05:00:00Z', 2, ny), [
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:00:00.000Z',
    ]);
  });

  void it('still fires a skipped 02:45 when asked from 03:10 EDT, just after the jump', () => {
    assert.equal(next('45 2 * * *', '2026-03-08T07:10:00Z', ny), '2026-03-08T07:45:00.000Z');
  });

  void it('runs */5 straight through the jump without repeats', () => {
    assert.deepEqual(fires('*/5 * * * *', '2026-03-08T06:50:00Z', 4, ny), [
      '2026-03-08T06:55:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T07:05:00.000Z',
      '2026-03-08T07:10:00.000Z',
    ]);
  });

  void it('fires a repeated 01:30 only on its first pass (EDT) on fall-back', () => {
    assert.deepEqual(fires('30 1 * * *', '2026-11-01T04:00:00Z', 2, ny), [
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
  });

  void it('never fires in the second pass: from 01:45 EST */5 next fires at 02:00 EST', () => {
    // The legacy engine answered 01:50 EDT, 55 minutes in the past (golden: -3300 s).
    assert.equal(next('*/5 * * * *', '2026-11-01T06:45:00Z', ny), '2026-11-01T07:00:00.000Z');
    assert.equal(next('*/2 * * * * * *', '2026-11-01T06:45:00Z', ny), '2026-11-01T07:00:00.000Z');
  });

  void it('skips the second pass when asked from the first: from 01:45 EDT :05 fires at 02:05 EST', () => {
    assert.equal(next('5 * * * *', '2026-11-01T05:45:00Z', ny), '2026-11-01T07:05:00.000Z');
    assert.equal(next('*/5 * * * *', '2026-11-01T05:45:00Z', ny), '2026-11-01T05:50:00.000Z');
  });

  void it('counts the 25-hour fall-back day for a daily midnight job', () => {
    assert.equal(next('0 0 * * *', '2026-11-01T04:00:00Z', ny), '2026-11-02T05:00:00.000Z');
  });
});

void describe('nextFireTime() DST in Europe/Berlin', () => {
  const berlin = 'Europe/Berlin';

  void it('fires a skipped 02:30 at 03:30 CEST on spring-forward', () => {
    assert.equal(next('30 2 * * *', '2026-03-28T23:00:00Z', berlin), '2026-03-29T01:30:00.000Z');
  });

  void it('fires a repeated 02:30 only on its first pass (CEST) on fall-back', () => {
    assert.deepEqual(fires('30 2 * * *', '2026-10-24T22:00:00Z', 2, berlin), [
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  void it('from 02:30 CET (second pass) */5 next fires at 03:00 CET', () => {
    assert.equal(next('*/5 * * * *', '2026-10-25T01:30:00Z', berlin), '2026-10-25T02:00:00.000Z');
  });
});

void describe('nextFireTime() DST in Australia/Lord_Howe (30-minute shift)', () => {
  const lordHowe = 'Australia/Lord_Howe';

  void it('fires a skipped 02:15 at 02:45 (+11) on spring-forward (02:00 -> 02:30)', () => {
    assert.equal(next('15 2 * * *', '2026-10-03T13:00:00Z', lordHowe), '2026-10-03T15:45:00.000Z');
  });

  void it('fires a real 02:40 before the shifted 02:20 (02:50), each once', () => {
    assert.deepEqual(fires('20,40 2 * * *', '2026-10-03T13:00:00Z', 3, lordHowe), [
      '2026-10-03T15:40:00.000Z',
      '2026-10-03T15:50:00.000Z',
      '2026-10-04T15:20:00.000Z',
    ]);
    assert.equal(intlWall(lordHowe, utc('2026-10-03T15:40:00Z')), '2026-10-04T02:40:00');
  });

  void it('fires a repeated 01:45 only on its first pass (+11) on fall-back (02:00 -> 01:30)', () => {
    assert.deepEqual(fires('45 1 * * *', '2026-04-04T13:00:00Z', 2, lordHowe), [
      '2026-04-04T14:45:00.000Z',
      '2026-04-05T15:15:00.000Z',
    ]);
  });

  void it('from 01:40 (+10:30, second pass) */5 next fires at 02:00 (+10:30)', () => {
    assert.equal(next('*/5 * * * *', '2026-04-04T15:10:00Z', lordHowe), '2026-04-04T15:30:00.000Z');
  });
});

void describe('nextFireTime() agrees with a tick-by-tick reference around every 2026 transition', () => {
  const zones = [
    'America/New_York',
    'Europe/Berlin',
    'Australia/Lord_Howe',
    'America/Santiago', // changes at midnight: the day starts at 01:00
    'Pacific/Chatham', // +12:45 / +13:45
  ];
  const minuteExpressions = [
    '* * * * *',
    '*/7 * * * *',
    '15,45 * * * *',
    '30 2 * * *',
    '20,40 1,2 * * *',
    '0 0 * * *',
    '59 23,0,1 * * *',
  ];
  const windowMs = 12 * 3_600_000;
  for (const zone of zones) {
    for (const transition of intlTransitions(zone, 2026)) {
      const from = transition - windowMs / 2;
      const to = transition + windowMs / 2;
      for (const expression of minuteExpressions) {
        void it(`'${expression}' in ${zone} around ${new Date(transition).toISOString()}`, () => {
          const expected = bruteForceFires(expression, zone, from, to, 60_000);
          const schedule = parseSchedule(expression, { timezone: zone });
          for (let t = from; t < to; t += 60_000) {
            for (const reference of [t, t + 29_999]) {
              const want = expected.find((fire) => fire > reference);
              if (want === undefined) continue;
              assert.equal(nextFireTime(schedule, reference), want, `from ${reference}`);
            }
          }
        });
      }
      void it(`'*/20 * * * * * *' in ${zone} around ${new Date(transition).toISOString()}`, () => {
        const expression = '*/20 * * * * * *';
        const near = 45 * 60_000;
        const expected = bruteForceFires(
          expression,
          zone,
          transition - near,
          transition + near,
          1000,
        );
        const schedule = parseSchedule(expression, { timezone: zone });
        for (let t = transition - near; t < transition + near; t += 7_000) {
          const want = expected.find((fire) => fire > t);
          if (want === undefined) continue;
          assert.equal(nextFireTime(schedule, t), want, `from ${t}`);
        }
      });
    }
  }
});
