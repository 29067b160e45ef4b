import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { NodeHistory } from './node-history.js';
import type { NodeResources } from './node-stats.js';

const T0 = Date.UTC(2026, 0, 1);

/** A reader whose readings count up: CPU = n, memory = 10n. */
function countingReader(): { read(): NodeResources | null; reads: number; down: boolean } {
  const reader = {
    reads: 0,
    down: false,
    read(): NodeResources | null {
      if (reader.down) return null;
      reader.reads++;
      const n = reader.reads;
      return {
        cpuPercent: n,
        cpuCount: 2,
        memPercent: 10 * n,
        memUsedBytes: n,
        memTotalBytes: 100,
      };
    },
  };
  return reader;
}

const settings = (intervalMs: number, points: number) => ({ enabled: true, intervalMs, points });

describe('NodeHistory', () => {
  test('samples every interval, oldest first, at most `points`', async () => {
    const clock = new FakeClock(T0);
    const reader = countingReader();
    const history = new NodeHistory({ clock, reader });
    history.configure(settings(5000, 10));
    assert.deepEqual(history.snapshot(), { enabled: true, intervalMs: 5000, points: [] });
    await clock.advance(5000 * 12);
    const { points } = history.snapshot();
    assert.equal(points.length, 10);
    // Reading 1 primed the CPU baseline at configure; readings 2..13 were sampled, 4..13 kept.
    assert.deepEqual(points[0], [T0 + 3 * 5000, 4, 40]);
    assert.deepEqual(points.at(-1), [T0 + 12 * 5000, 13, 130]);
    history.close();
    assert.equal(clock.pendingTimers, 0);
  });

  test('a reload that shrinks the ring keeps the newest points; a new interval re-arms', async () => {
    const clock = new FakeClock(T0);
    const reader = countingReader();
    const history = new NodeHistory({ clock, reader });
    history.configure(settings(1000, 10));
    await clock.advance(6000);
    history.configure(settings(1000, 3));
    assert.deepEqual(
      history.snapshot().points.map((point) => point[1]),
      [5, 6, 7],
    );
    history.configure(settings(2000, 3));
    await clock.advance(4000);
    assert.deepEqual(
      history.snapshot().points.map((point) => point[1]),
      [7, 9, 10],
    );
    assert.equal(history.snapshot().intervalMs, 2000);
    history.configure(settings(2000, 3));
    assert.equal(clock.pendingTimers, 1, 'an unchanged configuration changes nothing');
  });

  test('disabled, or no web section: no timer, no points, interval null', async () => {
    const clock = new FakeClock(T0);
    const history = new NodeHistory({ clock, reader: countingReader() });
    history.configure(settings(1000, 10));
    await clock.advance(3000);
    history.configure({ enabled: false, intervalMs: 1000, points: 10 });
    assert.deepEqual(history.snapshot(), { enabled: false, intervalMs: null, points: [] });
    assert.equal(clock.pendingTimers, 0);
    history.configure(settings(1000, 10));
    history.configure(null);
    assert.deepEqual(history.snapshot(), { enabled: false, intervalMs: null, points: [] });
    assert.equal(clock.pendingTimers, 0);
  });

  test('a node whose resources cannot be read reports the history as disabled', async () => {
    const clock = new FakeClock(T0);
    const reader = countingReader();
    reader.down = true;
    const history = new NodeHistory({ clock, reader });
    history.configure(settings(1000, 10));
    assert.equal(history.snapshot().enabled, false);
    assert.equal(clock.pendingTimers, 0);
    reader.down = false;
    history.configure(settings(2000, 10));
    await clock.advance(2000);
    assert.equal(history.snapshot().enabled, true);
    assert.equal(history.snapshot().points.length, 1);
  });
});
