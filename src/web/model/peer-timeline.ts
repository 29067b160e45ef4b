// The cluster panel's timeline swimlane (docs/dashboard.md "Cluster panel"): each peer's status
// changes, accumulated in the browser from the `/cluster` answers the page polls (the daemon
// keeps no such history), one lane per peer. Bounded: at most MAX_CHANGES changes per peer (the
// oldest go first) and MAX_PEERS lanes (the peer unseen longest goes). Pure apart from its own
// state; the caller passes the instant of each answer.
// Must not: read the clock, or grow without bound on a long-open page.
import type { PeerStatusWire } from './cluster.js';

export const MAX_CHANGES = 100;
export const MAX_PEERS = 64;

export interface PeerChange {
  readonly atMs: number;
  readonly status: PeerStatusWire;
}

export interface Lane {
  /** The peer's node name, or its address before it answered. */
  readonly peer: string;
  readonly changes: readonly PeerChange[];
}

export interface Segment {
  readonly status: PeerStatusWire;
  readonly startMs: number;
  readonly endMs: number;
}

export class PeerTimeline {
  readonly #lanes = new Map<string, { changes: PeerChange[]; seenMs: number }>();
  readonly #maxChanges: number;
  readonly #maxPeers: number;
  /** The first answer recorded (the left edge of every lane). */
  startMs: number | null = null;

  constructor(maxChanges = MAX_CHANGES, maxPeers = MAX_PEERS) {
    this.#maxChanges = maxChanges;
    this.#maxPeers = maxPeers;
  }

  /** Records one `/cluster` answer; true when some peer's status changed (or a peer appeared). */
  record(
    peers: readonly { readonly peer: string; readonly status: PeerStatusWire }[],
    atMs: number,
  ): boolean {
    this.startMs ??= atMs;
    let changed = false;
    for (const { peer, status } of peers) {
      let lane = this.#lanes.get(peer);
      if (lane === undefined) {
        lane = { changes: [], seenMs: atMs };
        this.#lanes.set(peer, lane);
      }
      lane.seenMs = atMs;
      if (lane.changes[lane.changes.length - 1]?.status === status) continue;
      lane.changes.push({ atMs, status });
      if (lane.changes.length > this.#maxChanges) lane.changes.shift();
      changed = true;
    }
    while (this.#lanes.size > this.#maxPeers) {
      let oldest: string | null = null;
      let oldestMs = Infinity;
      for (const [peer, lane] of this.#lanes) {
        if (lane.seenMs < oldestMs) {
          oldest = peer;
          oldestMs = lane.seenMs;
        }
      }
      this.#lanes.delete(oldest!);
    }
    return changed;
  }

  lanes(): Lane[] {
    return [...this.#lanes]
      .map(([peer, lane]) => ({ peer, changes: lane.changes }))
      .sort((a, b) => (a.peer < b.peer ? -1 : a.peer > b.peer ? 1 : 0));
  }
}

/**
 * A lane's status spans clipped to [fromMs, toMs]: each change lasts until the next one (the
 * last until `toMs`); spans that end before the window are dropped, one that starts before it
 * is cut at `fromMs`.
 */
export function laneSegments(lane: Lane, fromMs: number, toMs: number): Segment[] {
  const segments: Segment[] = [];
  lane.changes.forEach((change, index) => {
    const end = lane.changes[index + 1]?.atMs ?? toMs;
    if (end <= fromMs || change.atMs >= toMs) return;
    segments.push({
      status: change.status,
      startMs: Math.max(fromMs, change.atMs),
      endMs: Math.min(toMs, end),
    });
  });
  return segments;
}
