import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UsageSeries } from './usage-series.js';

function feed(
  series: UsageSeries,
  count: number,
  cpu = (i: number) => i,
  rss = (i: number) => i * 10,
): void {
  for (let i = 1; i <= count; i++) series.add(i * 1000, cpu(i), rss(i));
}

describe('UsageSeries', () => {
  test('keeps every sample while the run is shorter than the cap', () => {
    const series = new UsageSeries(4);
    feed(series, 4);
    assert.deepEqual(series.points(), [
      [1000, 1, 10],
      [2000, 2, 20],
      [3000, 3, 30],
      [4000, 4, 40],
    ]);
  });

  test('past the cap, adjacent points merge: mean CPU, peak RSS, the later instant', () => {
    const series = new UsageSeries(4);
    feed(
      series,
      5,
      (i) => i,
      (i) => (i === 1 ? 500 : i * 10),
    );
    assert.deepEqual(series.points(), [
      [2000, 1.5, 500],
      [4000, 3.5, 40],
      [5000, 5, 50],
    ]);
    feed(series, 0);
    series.add(6000, 6, 60);
    assert.deepEqual(series.points().at(-1), [6000, 5.5, 60]);
  });

  test('never holds more than the cap, and always spans the whole run', () => {
    for (const cap of [1, 2, 3, 7, 240]) {
      const series = new UsageSeries(cap);
      for (let i = 1; i <= 10_000; i++) {
        series.add(i * 1000, 50, i);
        assert.ok(series.points().length <= cap, `cap ${cap} after ${i} samples`);
      }
      const points = series.points();
      assert.equal(points.at(-1)?.[0], 10_000_000, `cap ${cap}: ends at the newest sample`);
      assert.equal(points.at(-1)?.[2], 10_000, `cap ${cap}: the newest peak`);
      assert.ok(
        points.every((point) => point[1] === 50),
        `cap ${cap}: means of a flat CPU stay flat`,
      );
    }
  });

  test('the mean of merged points weighs every sample once', () => {
    const series = new UsageSeries(3);
    // 0 0 0 | 0 -> [0 0] [0 0] | 100 100 -> [0 0] [0 0] [100 100] | 100 -> [0 0 0 0] [100 100 100]
    [0, 0, 0, 0, 100, 100, 100].forEach((cpu, i) => series.add(i, cpu, 0));
    assert.deepEqual(series.points(), [
      [3, 0, 0],
      [6, 100, 0],
    ]);
    // The partial bucket of three samples takes a fourth of 0: mean 75.
    series.add(7, 0, 0);
    assert.deepEqual(series.points().at(-1), [7, 75, 0]);
  });

  test('history 0 keeps no points', () => {
    const series = new UsageSeries(0);
    feed(series, 10);
    assert.deepEqual(series.points(), []);
  });
});
