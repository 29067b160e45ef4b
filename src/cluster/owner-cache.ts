// Per-job rendezvous owners on the scheduling path: a burst asks for 1,000 jobs at once, and the
// answer depends only on the job and the candidate list, which changes on membership changes,
// not every round. So owners are kept per candidate list, and SHA-256 scores per (job, node).
// Both are bounded. Must not: answer for a candidate list other than the one asked about.
import { hrwOwner, hrwScore } from './elect.js';

/** Cached owners while the candidate list stays the same; at most this many jobs. */
const MAX_OWNERS = 100_000;
/** Cached scores; past this the cache starts over (scores are pure: only speed is lost). */
const MAX_SCORES = 65_536;

export class RendezvousOwners {
  #candidatesKey: string | null = null;
  #owners = new Map<string, string>();
  readonly #scores: ScoreCache;

  constructor(scores: ScoreCache) {
    this.#scores = scores;
  }

  /** The owner of `job` among `[node, ...candidates]` (`candidatesKey` identifies the list). */
  owner(job: string, node: string, candidates: readonly string[], candidatesKey: string): string {
    if (candidatesKey !== this.#candidatesKey) {
      this.#candidatesKey = candidatesKey;
      this.#owners = new Map();
    }
    let owner = this.#owners.get(job);
    if (owner === undefined) {
      owner = hrwOwner(job, [node, ...candidates], this.#scores.score) ?? node;
      if (this.#owners.size >= MAX_OWNERS) this.#owners.clear();
      this.#owners.set(job, owner);
    }
    return owner;
  }
}

/** SHA-256 rendezvous scores, memoised per job then node. */
export class ScoreCache {
  #byJob = new Map<string, Map<string, bigint>>();
  #size = 0;

  readonly score = (job: string, node: string): bigint => {
    let byNode = this.#byJob.get(job);
    const cached = byNode?.get(node);
    if (cached !== undefined) return cached;
    if (this.#size >= MAX_SCORES) {
      this.#byJob = new Map();
      this.#size = 0;
      byNode = undefined;
    }
    if (byNode === undefined) this.#byJob.set(job, (byNode = new Map<string, bigint>()));
    const computed = hrwScore(job, node);
    byNode.set(node, computed);
    this.#size += 1;
    return computed;
  };
}
