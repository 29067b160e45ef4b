// The /status text (docs/http-api.md "GET /status"): line shapes and the relative-time wording,
// truncated.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { describeRelativeSeconds, formatStatusText } from './status-text.js';

void test('relative times truncate and pluralise from 2 on, like the reference', () => {
  const cases: [number, string][] = [
    [0, 'in 0 second'],
    [-0.4, 'in 0 second'],
    [1, 'in 1 second'],
    [1.99, 'in 1 second'],
    [2, 'in 2 seconds'],
    [119.9, 'in 119 seconds'],
    [120, 'in 2 minutes'],
    [179, 'in 2 minutes'],
    [60 * 119.99, 'in 119 minutes'],
    [7200, 'in 2 hours'],
    [3600 * 47.9, 'in 47 hours'],
    [3600 * 48, 'in 2 days'],
    [86400 * 400.5, 'in 400 days'],
  ];
  for (const [seconds, text] of cases) assert.equal(describeRelativeSeconds(seconds), text);
});

void test('status lines: running with pids, disabled, scheduled, @reboot, no future fire', () => {
  assert.equal(
    formatStatusText([
      { job: 'a', status: 'running', pid: [1, 2] },
      { job: 'b', status: 'disabled' },
      { job: 'c', status: 'scheduled', scheduled_in: 3661 },
      { job: 'd', status: 'scheduled', scheduled_in: '@reboot' },
      { job: 'e', status: 'scheduled', scheduled_in: null },
      { job: 'f', status: 'running', pid: [] },
    ]),
    [
      'a: running (pid: 1, 2)',
      'b: disabled',
      'c: scheduled (in 61 minutes)',
      'd: scheduled (@reboot)',
      'e: scheduled (no future fire)',
      'f: running (pid: )',
    ].join('\n'),
  );
  assert.equal(formatStatusText([]), '');
});
