import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { laneSegments, PeerTimeline } from './peer-timeline.js';

describe('PeerTimeline', () => {
  it('records a change only when a peer’s status differs from its last one', () => {
    const timeline = new PeerTimeline();
    assert.equal(timeline.record([{ peer: 'b', status: 'unknown' }], 1000), true);
    assert.equal(timeline.record([{ peer: 'b', status: 'unknown' }], 2000), false);
    assert.equal(
      timeline.record(
        [
          { peer: 'b', status: 'agreed' },
          { peer: 'a', status: 'agreed' },
        ],
        3000,
      ),
      true,
    );
    assert.equal(timeline.startMs, 1000);
    assert.deepEqual(timeline.lanes(), [
      { peer: 'a', changes: [{ atMs: 3000, status: 'agreed' }] },
      {
        peer: 'b',
        changes: [
          { atMs: 1000, status: 'unknown' },
          { atMs: 3000, status: 'agreed' },
        ],
      },
    ]);
  });

  it('keeps at most N changes per peer and drops the peer unseen longest', () => {
    const timeline = new PeerTimeline(3, 2);
    const statuses = ['agreed', 'unreachable', 'agreed', 'syncing', 'agreed'] as const;
    statuses.forEach((status, index) => timeline.record([{ peer: 'b', status }], index * 1000));
    assert.deepEqual(
      timeline.lanes()[0]!.changes.map((change) => change.atMs),
      [2000, 3000, 4000],
    );
    timeline.record([{ peer: 'c', status: 'agreed' }], 5000);
    timeline.record([{ peer: 'b', status: 'agreed' }], 6000);
    timeline.record([{ peer: 'd', status: 'agreed' }], 7000);
    assert.deepEqual(
      timeline.lanes().map((lane) => lane.peer),
      ['b', 'd'],
    );
  });
});

describe('laneSegments', () => {
  const lane = {
    peer: 'b',
    changes: [
      { atMs: 0, status: 'agreed' as const },
      { atMs: 100, status: 'unreachable' as const },
      { atMs: 300, status: 'agreed' as const },
    ],
  };

  it('spans each change to the next, the last to the end of the window', () => {
    assert.deepEqual(laneSegments(lane, 0, 400), [
      { status: 'agreed', startMs: 0, endMs: 100 },
      { status: 'unreachable', startMs: 100, endMs: 300 },
      { status: 'agreed', startMs: 300, endMs: 400 },
    ]);
  });

  it('clips to the window and drops what ended before it', () => {
    assert.deepEqual(laneSegments(lane, 150, 250), [
      { status: 'unreachable', startMs: 150, endMs: 250 },
    ]);
    assert.deepEqual(laneSegments(lane, 350, 500), [
      { status: 'agreed', startMs: 350, endMs: 500 },
    ]);
    assert.deepEqual(laneSegments({ peer: 'x', changes: [] }, 0, 10), []);
  });
});
