import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatOffset, previewSchedule } from './schedule-preview.js';

describe('previewSchedule', () => {
  it('flags the spring-forward shift and the offset change in New York', () => {
    const preview = previewSchedule(
      '30 2 * * *',
      'America/New_York',
      Date.parse('2026-03-07T12:00:00Z'),
      3,
    );
    assert.equal(preview.kind, 'ok');
    if (preview.kind !== 'ok') return;
    assert.equal(preview.english, 'at 02:30, every day');
    assert.deepEqual(
      preview.fires.map((fire) => fire.wall),
      ['2026-03-08 03:30:00', '2026-03-09 02:30:00', '2026-03-10 02:30:00'],
    );
    assert.match(
      preview.fires[0]!.dstNote ?? '',
      /does not exist this day .* fires at 03:30 instead/,
    );
    assert.match(preview.fires[0]!.dstNote ?? '', /UTC-05:00 → UTC-04:00/);
    assert.equal(preview.fires[1]!.dstNote, null);
    assert.ok(preview.zoneHasDst);
  });

  it('flags the repeated hour when clocks fall back', () => {
    const preview = previewSchedule(
      '30 1 * * *',
      'America/New_York',
      Date.parse('2026-10-31T12:00:00Z'),
      2,
    );
    assert.equal(preview.kind, 'ok');
    if (preview.kind !== 'ok') return;
    assert.equal(preview.fires[0]!.offset, 'UTC-04:00');
    assert.match(preview.fires[0]!.dstNote ?? '', /happens twice .* first pass only/);
  });

  it('reports impossible schedules, @reboot and errors from the engine', () => {
    const impossible = previewSchedule('0 0 30 2 *', 'UTC', 0, 12);
    assert.equal(impossible.kind === 'ok' && impossible.impossible, true);
    assert.equal(previewSchedule('@reboot', 'UTC', 0, 12).kind, 'reboot');
    assert.deepEqual(previewSchedule('61 * * * *', 'UTC', 0, 12), {
      kind: 'invalid',
      error: "invalid schedule '61 * * * *': minute 61 is out of range 0-59",
    });
    assert.deepEqual(previewSchedule('* * * * *', 'Mars/Base', 0, 12), {
      kind: 'invalid',
      error: 'unknown timezone: Mars/Base',
    });
  });

  it('previews second-level schedules', () => {
    const preview = previewSchedule(
      '*/20 * * * * * *',
      'UTC',
      Date.parse('2026-01-01T00:00:00Z'),
      3,
    );
    assert.ok(preview.kind === 'ok' && preview.hasSeconds);
    if (preview.kind === 'ok')
      assert.deepEqual(
        preview.fires.map((f) => f.wall.slice(11)),
        ['00:00:20', '00:00:40', '00:01:00'],
      );
  });
});

describe('formatOffset', () => {
  it('formats half-hour and negative offsets', () => {
    assert.equal(formatOffset(5.5 * 3_600_000), 'UTC+05:30');
    assert.equal(formatOffset(-3 * 3_600_000), 'UTC-03:00');
    assert.equal(formatOffset(0), 'UTC+00:00');
  });
});
