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

test('the package entry point exports the election functions under their documented names', async () => {
  const entry = await import('./index.js');
  assert.equal(entry.quorumSize(5), 3);
  assert.equal(entry.electLeader('b', ['a', 'c'], 3), 'a');
  assert.equal(entry.electAvailableLeader('\u{1F600}', ['\uFF21']), '\uFF21');
  assert.equal(entry.hrwScore('job-1', 'db1').toString(16), '63b8c755395d84c7');
  assert.equal(typeof entry.hrwOwner('job', ['a', 'b']), 'string');
  assert.equal(entry.electJobOwner('job', 'a', [], 3), null);
  assert.equal(entry.electAvailableJobOwner('job', 'a', []), 'a');
});
