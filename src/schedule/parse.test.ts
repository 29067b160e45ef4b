// parseSchedule(): the grammar of docs/schedules.md "Fields" (layouts, lists, ranges, steps, names,
// L items, nicknames) and the exact YC_ERR_SCHEDULE_INVALID reasons.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { isYacronError } from '../common/index.js';
import { matchesAt, nextFireTime, parseSchedule, schedulesEqual } from './index.js';

function assertInvalid(expression: string, reason: string): void {
  assert.throws(
    () => parseSchedule(expression),
    (error: unknown) =>
      isYacronError(error, 'YC_ERR_SCHEDULE_INVALID') &&
      error.message === `invalid schedule '${expression}': ${reason}`,
  );
}

function assertSame(a: string, b: string): void {
  assert.ok(schedulesEqual(parseSchedule(a), parseSchedule(b)), `'${a}' should equal '${b}'`);
}

const utc = (iso: string): number => Date.parse(iso);

void describe('parseSchedule() layouts', () => {
  void it('normalises the expression: lower-cased, trimmed, whitespace runs collapsed', () => {
    const schedule = parseSchedule('  0\t12  * *\nMON-FRI ');
    assert.equal(schedule.expression, '0 12 * * mon-fri');
    assert.equal(schedule.timezone, 'UTC');
    assert.equal(schedule.hasSeconds, false);
  });

  void it('reads 5 fields as min hour dom mon dow with second 0 and any year', () => {
    assertSame('30 4 * * *', '0 30 4 * * * *');
  });

  void it('reads the 6th field as the YEAR, not seconds', () => {
    const schedule = parseSchedule('0 0 1 1 * 2030');
    assert.equal(schedule.hasSeconds, false);
    assert.equal(nextFireTime(schedule, utc('2026-01-01T00:00:00Z')), utc('2030-01-01T00:00:00Z'));
  });

  void it('reads 7 fields as sec min hour dom mon dow year and flags second granularity', () => {
    const schedule = parseSchedule('15 0 0 1 1 * 2030');
    assert.equal(schedule.hasSeconds, true);
    assert.equal(nextFireTime(schedule, utc('2026-01-01T00:00:00Z')), utc('2030-01-01T00:00:15Z'));
  });

  void it('rejects 4 and 8 fields', () => {
    assertInvalid('* * * *', 'expected 5, 6 or 7 fields, got 4');
    assertInvalid('* * * * * * * *', 'expected 5, 6 or 7 fields, got 8');
  });

  void it('rejects an empty expression', () => {
    assertInvalid('  ', 'the expression is empty');
  });
});

void describe('parseSchedule() nicknames', () => {
  void it('expands the nicknames case-insensitively', () => {
    assertSame('@YEARLY', '0 0 1 1 *');
    assertSame('@annually', '0 0 1 1 *');
    assertSame('@Monthly', '0 0 1 * *');
    assertSame('@weekly', '0 0 * * 0');
    assertSame('@daily', '0 0 * * *');
    assertSame('@hourly', '0 * * * *');
    assert.equal(parseSchedule(' @Daily ').expression, '@daily');
  });

  void it('rejects @reboot: it is not a cron expression', () => {
    assertInvalid(
      '@reboot',
      '@reboot is not a cron expression (it runs once at daemon start-up, not on a schedule)',
    );
  });

  void it('rejects @midnight (only the crontab loader maps it to @daily)', () => {
    assertInvalid('@midnight', "@midnight is only accepted in crontab files; use '@daily'");
  });

  void it('rejects unknown nicknames', () => {
    assertInvalid(
      '@minutely',
      "unknown nickname '@minutely' (use @yearly, @annually, @monthly, @weekly, @daily or @hourly)",
    );
  });
});

void describe('parseSchedule() ranges and values', () => {
  void it('reports the field and its range for an out-of-range value', () => {
    assertInvalid('61 * * * *', 'minute 61 is out of range 0-59');
    assertInvalid('60 * * * * * *', 'second 60 is out of range 0-59');
    assertInvalid('0 24 * * *', 'hour 24 is out of range 0-23');
    assertInvalid('0 0 0 * *', 'day of month 0 is out of range 1-31');
    assertInvalid('0 0 32 * *', 'day of month 32 is out of range 1-31');
    assertInvalid('0 0 * 13 *', 'month 13 is out of range 1-12');
    assertInvalid('0 0 * * 8', 'day of week 8 is out of range 0-7');
    assertInvalid('0 0 1 1 * 1969', 'year 1969 is out of range 1970-2099');
    assertInvalid('0 0 1 1 * 2026-2100', 'year 2100 is out of range 1970-2099');
  });

  void it('accepts leading zeros', () => {
    assertSame('05 08 * * *', '5 8 * * *');
  });

  void it('rejects a reversed range', () => {
    assertInvalid('5-1 * * * *', 'minute range 5-1 is reversed');
    assertInvalid('0 0 * * fri-mon', 'day of week range fri-mon is reversed');
  });

  void it('reads a day-of-week range ending in 0/sun as ending in 7', () => {
    assertSame('0 0 * * sat-sun', '0 0 * * 6,0');
    assertSame('0 0 * * 6-0', '0 0 * * 6,7');
    assertSame('0 0 * * 0-0', '0 0 * * *');
    assertSame('0 0 * * sun-sun', '0 0 * * *');
    assertSame('0 0 * * 7-7', '0 0 * * 0');
  });

  void it('accepts month and weekday names in any case, also in ranges', () => {
    assertSame('0 0 * JAN-Mar * ', '0 0 * 1-3 *');
    assertSame('0 0 * * Mon-FRI', '0 0 * * 1-5');
    assertSame('0 0 * dec sun', '0 0 * 12 0');
  });

  void it('rejects names in the wrong field and unknown words', () => {
    assertInvalid('0 0 * mon *', "'mon' is not a valid month value");
    assertInvalid('x * * * *', "'x' is not a valid minute value");
  });

  void it('rejects empty list items', () => {
    assertInvalid('* * * * *,', "empty item in day of week list '*,'");
    assertInvalid('1,,2 * * * *', "empty item in minute list '1,,2'");
  });

  void it('rejects malformed ranges', () => {
    assertInvalid('1- * * * *', 'missing value in minute');
    assertInvalid('1-2-3 * * * *', "'1-2-3' is not a valid minute range");
  });
});

void describe('parseSchedule() steps', () => {
  void it('expands */n, a-b/n and a/n (a/n runs to the end of the field)', () => {
    assertSame('*/15 * * * *', '0,15,30,45 * * * *');
    assertSame('10-30/10 * * * *', '10,20,30 * * * *');
    assertSame('50/3 * * * *', '50,53,56,59 * * * *');
    assertSame('0 0 1 3/4 *', '0 0 1 3,7,11 *');
    assertSame('0 0 1 1 * */129', '0 0 1 1 * 1970,2099');
  });

  void it('expands * in day of week as 0-6, and a/n in day of week up to 6 (explicit ranges may reach 7)', () => {
    assertSame('0 0 * * */2', '0 0 * * 0,2,4,6');
    assertSame('0 0 * * 5/2', '0 0 * * 5');
    assertSame('0 0 * * 4-7/3', '0 0 * * 4,0');
    assertSame('0 0 * * mon-fri/2', '0 0 * * 1,3,5');
  });

  void it('rejects a step whose start plus step leaves the field', () => {
    assertInvalid('0 0 * */12 *', 'step 12 is too large for month');
    assertInvalid('0 0 */31 * *', 'step 31 is too large for day of month');
    assertInvalid('50-59/15 * * * *', 'step 15 is too large for minute');
    assertInvalid('58/5 * * * *', 'step 5 is too large for minute');
    assertInvalid('*/60 * * * *', 'step 60 is too large for minute');
    assertInvalid('* */24 * * *', 'step 24 is too large for hour');
    assertInvalid('0 0 * * 7/2', 'step 2 is too large for day of week');
    assertInvalid('0 0 1 1 * */130', 'step 130 is too large for year');
  });

  void it('rejects a zero step, a non-numeric step and a second slash', () => {
    assertInvalid('*/0 * * * *', 'step 0 in minute must be at least 1');
    assertInvalid('*/a * * * *', "step 'a' in minute is not a whole number");
    assertInvalid('*/5/3 * * * *', "'*/5/3' has more than one '/' in minute");
  });
});

void describe('parseSchedule() L items', () => {
  void it('accepts L alone or as a list item in day of month', () => {
    assert.ok(matchesAt(parseSchedule('0 0 L * *'), utc('2028-02-29T00:00:00Z')));
    assert.ok(matchesAt(parseSchedule('0 0 l,15 * *'), utc('2026-04-30T00:00:00Z')));
    assert.ok(matchesAt(parseSchedule('0 0 l,15 * *'), utc('2026-04-15T00:00:00Z')));
  });

  void it('rejects L-2, LW and L with a step in day of month', () => {
    const alone = "is not supported in day of month: L must stand alone (e.g. 'L' or 'L,15')";
    assertInvalid('0 0 L-2 * *', `'l-2' ${alone}`);
    assertInvalid('0 0 LW * *', `'lw' ${alone}`);
    assertInvalid('0 0 l/2 * *', `'l/2' ${alone}`);
  });

  void it('rejects L in fields other than day of month and day of week', () => {
    assertInvalid('0 L * * *', "L is not allowed in hour ('l')");
    assertInvalid('0 0 * L *', "L is not allowed in month ('l')");
  });

  void it('accepts L<n> and L<a>-<b> in day of week with numbers 0-7', () => {
    assertSame('0 0 * * L7', '0 0 * * L0');
    assertSame('0 0 * * l05', '0 0 * * L5');
    assert.ok(matchesAt(parseSchedule('0 0 * * L5'), utc('2026-01-30T00:00:00Z')));
  });

  void it('accepts a reversed L range, which matches nothing', () => {
    const schedule = parseSchedule('0 0 * * L3-1');
    assert.equal(nextFireTime(schedule, utc('2026-01-01T00:00:00Z')), null);
  });

  void it('rejects bare L, named, stepped and out-of-range L items in day of week', () => {
    assertInvalid(
      '0 0 * * L',
      "bare L is not allowed in day of week: use L<n>, e.g. 'L5' for the last Friday",
    );
    const valid = 'is not a valid day of week L item: use L<n> or L<a>-<b> with numbers 0-7';
    assertInvalid('0 0 * * Lfri', `'lfri' ${valid}`);
    assertInvalid('0 0 * * l5-6/2', `'l5-6/2' ${valid}`);
    assertInvalid('0 0 * * l*', `'l*' ${valid}`);
    assertInvalid('0 0 * * l8', 'day of week 8 is out of range 0-7');
    assertInvalid('0 0 * * l1-8', 'day of week 8 is out of range 0-7');
  });
});

void describe('parseSchedule() unsupported syntax', () => {
  void it('names the unsupported feature', () => {
    assertInvalid('0 0 15W * *', "W (nearest weekday) is not supported ('15w')");
    assertInvalid('0 0 * * 5#3', "'#' (nth weekday) is not supported ('5#3')");
    assertInvalid('0 0 ? * *', "'?' is not supported ('?'); use '*'");
    assertInvalid('H * * * *', 'H (hashed values) is not supported');
    assertInvalid('R * * * *', 'R (random values) is not supported');
    assertInvalid('0 0 * * 5L', "'5l' is not supported: write L<n> in day of week");
  });
});

void describe('parseSchedule() timezones', () => {
  void it('defaults to UTC and keeps a known zone', () => {
    assert.equal(parseSchedule('* * * * *').timezone, 'UTC');
    assert.equal(
      parseSchedule('* * * * *', { timezone: 'Europe/Berlin' }).timezone,
      'Europe/Berlin',
    );
  });

  void it("fixes the letter case of a zone name to Intl's spelling", () => {
    assert.equal(parseSchedule('* * * * *', { timezone: 'utc' }).timezone, 'UTC');
    assert.equal(
      parseSchedule('* * * * *', { timezone: 'america/new_york' }).timezone,
      'America/New_York',
    );
  });

  void it('rejects an unknown zone with YC_ERR_TIMEZONE_UNKNOWN', () => {
    assert.throws(
      () => parseSchedule('* * * * *', { timezone: 'Mars/Olympus' }),
      (error: unknown) =>
        isYacronError(error, 'YC_ERR_TIMEZONE_UNKNOWN') &&
        error.message === 'unknown timezone: Mars/Olympus',
    );
  });
});
