import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HEATMAP_WINDOWS, bucketRuns, shadeLevel } from './heatmap.js';
import { makeRun } from './job-fixture.test.js';

const NOW = Date.parse('2026-06-21T12:00:00Z');
const at = (minutesAgo: number) =>
  new Date(NOW - minutesAgo * 60_000).toISOString().replace('Z', '+00:00');

describe('bucketRuns', () => {
  it('counts runs into 24 buckets, newest last, worst outcome wins', () => {
    const cells = bucketRuns(
      [
        makeRun({ finished_at: at(1) }),
        makeRun({ finished_at: at(2), outcome: 'failure' }),
        makeRun({ finished_at: at(16), outcome: 'cancelled' }),
        makeRun({ finished_at: at(359) }),
        makeRun({ finished_at: at(400) }), // outside 6 h
      ],
      NOW,
      HEATMAP_WINDOWS['6h'],
    );
    assert.equal(cells.length, 24);
    assert.equal(cells[23]!.total, 2);
    assert.equal(cells[23]!.worst, 'failure');
    assert.equal(cells[22]!.worst, 'cancelled');
    assert.equal(cells[0]!.total, 1);
    assert.equal(
      cells.reduce((sum, cell) => sum + cell.total, 0),
      4,
    );
    assert.equal(cells[10]!.worst, null);
  });

  it('shades relative to the busiest cell', () => {
    assert.equal(shadeLevel(0, 10), 0);
    assert.equal(shadeLevel(1, 10), 1);
    assert.equal(shadeLevel(10, 10), 4);
  });
});
