// The gossip "already ran" record of deferred @reboot one-shots (docs/clustering.md "@reboot
// under election"): names this node ran or was told about, scoped to the job-set id they were
// recorded under, plus one-hop re-gossip from agreeing peers on the same id.
// Deterministic. Must not: keep names across a job-set change (a new job set re-arms them).
import { compareCodePoints, sortByCodePoint } from '../common/index.js';
import type { PeerView } from './types.js';

/** Names advertised on /peer and pushed on /reboot-ran, and kept from a push. */
export const MAX_ADVERTISED_RAN_JOBS = 512;

export class RebootRanSet {
  readonly #local = new Set<string>();
  #recordedId: string | null = null;

  /** A job-set change forgets what was recorded under the old id. */
  reconcile(liveJobSetId: string): void {
    if (this.#recordedId !== null && this.#recordedId !== liveJobSetId) this.#local.clear();
    this.#recordedId = liveJobSetId;
  }

  /** This node ran `name` (before it launches it). */
  mark(name: string, liveJobSetId: string): void {
    this.reconcile(liveJobSetId);
    this.#local.add(name);
  }

  /**
   * A peer's push: ignored unless it was recorded under our live id; kept to the 512 smallest
   * names so a hostile peer cannot grow it without bound.
   */
  receive(senderJobSetId: string | null, names: Iterable<string>, liveJobSetId: string): void {
    if (senderJobSetId !== liveJobSetId) return;
    this.reconcile(liveJobSetId);
    for (const name of names) this.#local.add(name);
    if (this.#local.size <= MAX_ADVERTISED_RAN_JOBS) return;
    const keep = sortByCodePoint(this.#local).slice(0, MAX_ADVERTISED_RAN_JOBS);
    this.#local.clear();
    for (const name of keep) this.#local.add(name);
  }

  /** Ours (when recorded under the live id) plus agreed peers' on the same id. */
  advertised(liveJobSetId: string, peers: readonly PeerView[]): Set<string> {
    const out = new Set<string>();
    if (this.#recordedId === null || this.#recordedId === liveJobSetId) {
      for (const name of this.#local) out.add(name);
    }
    for (const peer of peers) {
      if (peer.status !== 'agreed' || peer.jobSetId !== liveJobSetId) continue;
      for (const name of peer.ranRebootJobs ?? []) out.add(name);
    }
    return out;
  }
}

/** The advertised list: sorted by code point, the first 512. */
export function advertisedRanList(names: ReadonlySet<string>): string[] {
  return [...names].sort(compareCodePoints).slice(0, MAX_ADVERTISED_RAN_JOBS);
}
