// matchesAt(), schedulesEqual(), wallTimeAt() and renderScheduleObject().
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  matchesAt,
  parseSchedule,
  renderScheduleObject,
  schedulesEqual,
  wallTimeAt,
} from './index.js';

const utc = (iso: string): number => Date.parse(iso);

void describe('matchesAt()', () => {
  void it('compares wall fields in the schedule zone and ignores milliseconds', () => {
    const schedule = parseSchedule('30 9 * * mon-fri', { timezone: 'Europe/Berlin' });
    assert.equal(matchesAt(schedule, utc('2026-01-07T08:30:00.999Z')), true);
    assert.equal(matchesAt(schedule, utc('2026-01-07T09:30:00Z')), false);
    assert.equal(matchesAt(schedule, utc('2026-07-07T07:30:00Z')), true);
    assert.equal(matchesAt(schedule, utc('2026-01-10T08:30:00Z')), false);
  });

  void it('requires second 0 for minute schedules', () => {
    assert.equal(matchesAt(parseSchedule('* * * * *'), utc('2026-01-07T12:05:15Z')), false);
    assert.equal(matchesAt(parseSchedule('* * * * * * *'), utc('2026-01-07T12:05:15Z')), true);
  });

  void it('matches years past 2099 only when the year is unrestricted', () => {
    assert.equal(matchesAt(parseSchedule('0 0 1 1 *'), utc('2150-01-01T00:00:00Z')), true);
    assert.equal(matchesAt(parseSchedule('0 0 1 1 * 2026'), utc('2150-01-01T00:00:00Z')), false);
  });

  void it('is a plain field match: the second pass of a repeated hour matches, a shifted fire does not', () => {
    const ny = { timezone: 'America/New_York' };
    assert.equal(matchesAt(parseSchedule('30 1 * * *', ny), utc('2026-11-01T06:30:00Z')), true);
    assert.equal(matchesAt(parseSchedule('30 2 * * *', ny), utc('2026-03-08T07:30:00Z')), false);
  });
});

void describe('schedulesEqual()', () => {
  void it('compares expanded sets, not spelling', () => {
    const same = (a: string, b: string): boolean =>
      schedulesEqual(parseSchedule(a), parseSchedule(b));
    assert.equal(same('*/15 * * * *', '0,15,30,45 * * * *'), true);
    assert.equal(same('0 0 * * *', '0 0 * * * *'), true);
    assert.equal(same('0 0 * * *', '0 0 1-31 * 0-6'), true);
    assert.equal(same('0 0 * * *', '0 0 * * * 1970-2099'), true);
    assert.equal(same('0 0 L * *', '0 0 28-31 * *'), false);
    assert.equal(same('0 0 * * L5', '0 0 * * 5'), false);
  });

  void it('also compares the zone, by its canonical name', () => {
    const inZone = (timezone: string) => parseSchedule('0 9 * * *', { timezone });
    assert.equal(schedulesEqual(inZone('UTC'), inZone('Europe/Berlin')), false);
    assert.equal(schedulesEqual(inZone('UTC'), inZone('utc')), true);
    assert.equal(schedulesEqual(inZone('US/Eastern'), inZone('America/New_York')), true);
  });
});

void describe('wallTimeAt()', () => {
  void it('reads the wall clock and offset of an instant in a zone', () => {
    assert.deepEqual(wallTimeAt('America/New_York', utc('2026-03-08T07:30:00.500Z')), {
      year: 2026,
      month: 3,
      day: 8,
      hour: 3,
      minute: 30,
      second: 0,
      offsetMs: -4 * 3_600_000,
    });
  });
});

void describe('renderScheduleObject()', () => {
  void it('renders 5 fields with * for missing keys when there is no second and no year', () => {
    assert.equal(renderScheduleObject({}), '* * * * *');
    assert.equal(renderScheduleObject({ minute: '0', hour: '*/2' }), '0 */2 * * *');
  });

  void it('renders 6 fields with the year last when only the year is added', () => {
    assert.equal(renderScheduleObject({ minute: '0', year: '2027' }), '0 * * * * 2027');
  });

  void it('renders 7 fields when a second is given, the year defaulting to *', () => {
    assert.equal(renderScheduleObject({ second: '*/10', dayOfWeek: 'mon' }), '*/10 * * * * mon *');
    assert.equal(
      renderScheduleObject({
        second: '5',
        minute: '4',
        hour: '3',
        dayOfMonth: '2',
        month: '1',
        dayOfWeek: '*',
        year: '2030',
      }),
      '5 4 3 2 1 * 2030',
    );
  });

  void it('collapses a blank second away so the job stays minute-granular', () => {
    assert.equal(renderScheduleObject({ second: '', minute: '5' }), '5 * * * *');
    assert.equal(renderScheduleObject({ second: '  ', year: '2030' }), '* * * * * 2030');
    assert.equal(parseSchedule(renderScheduleObject({ second: ' ' })).hasSeconds, false);
  });

  void it('inserts values textually, leaving validation to the parser', () => {
    assert.equal(renderScheduleObject({ minute: 'x' }), 'x * * * *');
  });
});
