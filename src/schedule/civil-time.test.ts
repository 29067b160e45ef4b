// Calendar arithmetic: day counts, weekdays and month lengths agree with Date.UTC.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  wallFieldsOf,
  wallMsOf,
  weekdayOfDays,
} from './civil-time.js';

void describe('civil-time', () => {
  void it('round-trips every day from 1900 to 2200 against Date.UTC', () => {
    const first = Date.UTC(1900, 0, 1) / 86_400_000;
    const last = Date.UTC(2200, 11, 31) / 86_400_000;
    for (let days = first; days <= last; days++) {
      const date = new Date(days * 86_400_000);
      const civil = civilFromDays(days);
      assert.equal(civil.year, date.getUTCFullYear());
      assert.equal(civil.month, date.getUTCMonth() + 1);
      assert.equal(civil.day, date.getUTCDate());
      assert.equal(weekdayOfDays(days), date.getUTCDay());
      assert.equal(daysFromCivil(civil.year, civil.month, civil.day), days);
    }
  });

  void it('knows month lengths, leap years and the century rule', () => {
    assert.equal(daysInMonth(2026, 2), 28);
    assert.equal(daysInMonth(2028, 2), 29);
    assert.equal(daysInMonth(2100, 2), 28);
    assert.equal(daysInMonth(2000, 2), 29);
    assert.equal(daysInMonth(2026, 4), 30);
    assert.equal(daysInMonth(2026, 12), 31);
  });

  void it('splits and rebuilds wall milliseconds, dropping the sub-second part', () => {
    const wall = Date.UTC(2026, 2, 8, 2, 30, 15) + 999;
    const fields = wallFieldsOf(wall);
    assert.deepEqual(fields, { year: 2026, month: 3, day: 8, hour: 2, minute: 30, second: 15 });
    assert.equal(wallMsOf(fields), wall - 999);
    assert.deepEqual(wallFieldsOf(-1000), {
      year: 1969,
      month: 12,
      day: 31,
      hour: 23,
      minute: 59,
      second: 59,
    });
  });
});
