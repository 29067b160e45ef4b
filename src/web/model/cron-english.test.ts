import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeCron, joinList } from './cron-english.js';

describe('describeCron', () => {
  const cases: readonly [string, string][] = [
    ['* * * * *', 'every minute'],
    ['*/5 * * * *', 'every 5 minutes'],
    ['0 * * * *', 'on the hour'],
    ['5 * * * *', 'at 5 minutes past the hour'],
    ['30 2 * * *', 'at 02:30, every day'],
    ['0 9,17 * * *', 'at 09:00 and 17:00, every day'],
    [
      '*/15 9-17 * * mon-fri',
      'every 15 minutes, between 09:00 and 17:59, on Monday through Friday',
    ],
    ['0 */2 * * *', 'on the hour, every 2 hours'],
    ['0 8 * * 1,3,5', 'at 08:00, on Monday, Wednesday and Friday'],
    ['0 0 * * sat-sun', 'at 00:00, on Saturday through Sunday'],
    ['0 0 * * 7', 'at 00:00, on Sunday'],
    ['0 0 1,15 * *', 'at 00:00, on days 1 and 15 of the month'],
    ['0 0 L * *', 'at 00:00, on the last day of the month'],
    ['0 0 L,15 * *', 'at 00:00, on day 15 and the last day of the month'],
    ['0 0 * * L5', 'at 00:00, on the last Friday of the month'],
    ['0 0 */2 * *', 'at 00:00, on every other day of the month'],
    ['0 0 1 1 *', 'at 00:00, on January 1'],
    ['0 12 * jan-mar *', 'at 12:00, every day, in January through March'],
    ['0 0 1 */3 *', 'at 00:00, on day 1 of the month, in every 3rd month'],
    ['30 2 * * * 2027', 'at 02:30, every day, in 2027'],
    ['* * * * * * *', 'every second'],
    ['*/5 * * * * * *', 'every 5 seconds'],
    ['15,45 * * * * * *', 'at 15 and 45 seconds past the minute'],
    ['0 30 2 * * * *', 'at 02:30, every day'],
    ['10 30 2 * * * *', 'at 02:30:10, every day'],
    ['@daily', 'once a day, at 00:00'],
    ['@HOURLY', 'once an hour, on the hour'],
    ['@reboot', 'once, when the daemon starts'],
  ];
  for (const [expression, english] of cases) {
    it(`reads ${JSON.stringify(expression)} as "${english}"`, () => {
      assert.equal(describeCron(expression), english);
    });
  }

  it('states the AND rule when day of month and day of week are both restricted', () => {
    assert.equal(
      describeCron('0 0 13 * 5'),
      'at 00:00, on day 13 of the month, only when it is a Friday',
    );
  });

  it('answers null for text that is not a cron expression', () => {
    for (const text of [
      '',
      'bogus',
      '* * * *',
      '* * * * * * * *',
      '@sometimes',
      '*/x * * * *',
      '1/2/3 * * * *',
    ]) {
      assert.equal(describeCron(text), null, text);
    }
  });

  it('collapses whitespace and letter case like the engine', () => {
    assert.equal(describeCron('  0   9 * *   MON '), 'at 09:00, on Monday');
  });
});

describe('joinList', () => {
  it('joins with commas and a final "and"', () => {
    assert.equal(joinList([]), '');
    assert.equal(joinList(['a']), 'a');
    assert.equal(joinList(['a', 'b']), 'a and b');
    assert.equal(joinList(['a', 'b', 'c']), 'a, b and c');
  });
});
