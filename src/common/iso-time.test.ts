import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { formatIsoUtc, parseIsoInstantMs } from './iso-time.js';

void describe('formatIsoUtc()', () => {
  void it('matches Python isoformat: no fraction on whole seconds, microseconds otherwise', () => {
    assert.equal(formatIsoUtc(Date.UTC(2026, 5, 21, 12, 0, 0)), '2026-06-21T12:00:00+00:00');
    assert.equal(
      formatIsoUtc(Date.UTC(2026, 5, 21, 12, 0, 0, 123)),
      '2026-06-21T12:00:00.123000+00:00',
    );
    assert.equal(
      formatIsoUtc(Date.UTC(2026, 5, 21, 12, 0, 0, 5) + 0.25),
      '2026-06-21T12:00:00.005250+00:00',
    );
  });
});

void describe('parseIsoInstantMs()', () => {
  const NOW = Date.UTC(2026, 6, 4, 12); // 2026-07-04T12:00:00Z

  void it('reads formatIsoUtc output back, sub-millisecond digits included', () => {
    for (const ms of [NOW, NOW + 123, NOW + 0.5, 0]) {
      assert.equal(parseIsoInstantMs(formatIsoUtc(ms)), ms, formatIsoUtc(ms));
    }
    assert.equal(parseIsoInstantMs('2026-07-04T12:00:00.123456+00:00'), NOW + 123.456);
    assert.equal(parseIsoInstantMs('2026-07-04T14:00:00+02:00'), NOW);
    assert.equal(parseIsoInstantMs('2026-07-04T12:00:00Z'), NOW);
  });

  void it('is NaN for anything that is not an ISO instant with an offset', () => {
    for (const text of [
      '',
      'yesterday',
      '2026-07-04',
      '2026-07-04T12:00:00',
      '2026-13-04T12:00:00Z',
    ]) {
      assert.ok(Number.isNaN(parseIsoInstantMs(text)), text);
    }
  });
});
