import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatAge,
  formatBytes,
  formatCountdown,
  formatDuration,
  formatUtc,
  parseIso,
} from './format.js';

describe('format', () => {
  it('formats durations from milliseconds to days', () => {
    assert.equal(formatDuration(null), '—');
    assert.equal(formatDuration(0.0504), '50 ms');
    assert.equal(formatDuration(4.26), '4.2 s');
    assert.equal(formatDuration(192), '3 m 12 s');
    assert.equal(formatDuration(7500), '2 h 05 m');
    assert.equal(formatDuration(3 * 86_400 + 4 * 3600), '3 d 04 h');
  });

  it('formats ages and countdowns', () => {
    assert.equal(formatAge(400), 'now');
    assert.equal(formatAge(42_000), '42s');
    assert.equal(formatAge(5 * 60_000), '5m');
    assert.equal(formatCountdown(0), 'due');
    assert.equal(formatCountdown(1), 'in 1 s');
    assert.equal(formatCountdown(243_000), 'in 4 m 03 s');
  });

  it('formats sizes in binary units', () => {
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(3.5 * 1024), '3.50 KiB');
    assert.equal(formatBytes(12 * 1024 * 1024), '12.0 MiB');
  });

  it('reads the API timestamps, microseconds included', () => {
    assert.equal(
      parseIso('2026-06-21T12:00:00.123456+00:00'),
      Date.parse('2026-06-21T12:00:00.123Z'),
    );
    assert.equal(parseIso('not a date'), null);
    assert.equal(parseIso(null), null);
    assert.equal(formatUtc(Date.parse('2026-06-21T02:03:04Z')), '2026-06-21 02:03:04 UTC');
  });
});
