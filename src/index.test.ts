import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isYacronError } from './common/index.js';
import { matchesAt, nextFireTime, parseSchedule } from './index.js';

test('the package entry point previews a New York schedule across spring-forward', () => {
  const schedule = parseSchedule('30 2 * * *', { timezone: 'America/New_York' });
  const from = Date.parse('2026-03-08T05:00:00Z'); // 00:00 EST on the spring-forward day
  const next = nextFireTime(schedule, from);
  assert.equal(new Date(next!).toISOString(), '2026-03-08T07:30:00.000Z'); // 03:30 EDT
  assert.equal(matchesAt(schedule, Date.parse('2026-03-09T06:30:00Z')), true); // 02:30 EDT
});

test('the package entry point throws a coded error for an invalid expression', () => {
  assert.throws(
    () => parseSchedule('61 * * * *'),
    (error: unknown) =>
      isYacronError(error, 'YC_ERR_SCHEDULE_INVALID') && /minute 61/.test(error.message),
  );
});
