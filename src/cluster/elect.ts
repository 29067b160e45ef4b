// The election functions every node of a gossip cluster must compute identically, Python nodes
// included (docs/clustering.md "Elections"): the quorum, the lowest-name leader, the availability
// leader and rendezvous (highest-random-weight) owners. Names order by Unicode code point.
// Pure. Must not: depend on the order of its inputs except where the result is a minimum/maximum.
import { createHash } from 'node:crypto';
import { compareCodePoints, minByCodePoint } from '../common/index.js';

/** A strict majority of `clusterSize` nodes: floor(N / 2) + 1. */
export function quorumSize(clusterSize: number): number {
  return Math.floor(clusterSize / 2) + 1;
}

/**
 * The quorum-gated leader: null when this node plus its live (mutually agreeing) peers are fewer
 * than a quorum (entries counted, duplicates included); else the code-point-lowest of this node
 * and the candidates (the live peers when no candidate list is given; an empty list is given).
 */
export function electLeader(
  node: string,
  live: readonly string[],
  clusterSize: number,
  candidates?: readonly string[] | null,
): string | null {
  if (1 + live.length < quorumSize(clusterSize)) return null;
  return minByCodePoint(node, candidates ?? live);
}

/** The quorum-free availability leader: the lowest of this node and the agreeing peers. */
export function electAvailableLeader(node: string, agreeing: readonly string[]): string {
  return minByCodePoint(node, agreeing);
}

/**
 * First 8 bytes, big-endian, of SHA-256(UTF-8(job) ‖ 0x00 ‖ UTF-8(node)). (U+0000 encodes to
 * the single byte 0x00, so hashing the joined string hashes exactly those bytes.)
 */
export function hrwScore(job: string, node: string): bigint {
  return createHash('sha256').update(`${job}\0${node}`, 'utf8').digest().readBigUInt64BE(0);
}

/**
 * The rendezvous owner of `job` among `members`: the highest score; equal scores go to the
 * code-point-greater name. null for an empty list.
 */
export function hrwOwner(
  job: string,
  members: readonly string[],
  score: (job: string, node: string) => bigint = hrwScore,
): string | null {
  let best: string | null = null;
  let bestScore = -1n;
  for (const member of members) {
    const memberScore = score(job, member);
    if (
      best === null ||
      memberScore > bestScore ||
      (memberScore === bestScore && compareCodePoints(member, best) > 0)
    ) {
      best = member;
      bestScore = memberScore;
    }
  }
  return best;
}

/** The quorum-gated per-job owner: null without quorum, else the rendezvous owner. */
export function electJobOwner(
  job: string,
  node: string,
  live: readonly string[],
  clusterSize: number,
  candidates?: readonly string[] | null,
  score?: (job: string, node: string) => bigint,
): string | null {
  if (1 + live.length < quorumSize(clusterSize)) return null;
  return hrwOwner(job, [node, ...(candidates ?? live)], score);
}

/** The quorum-free per-job owner among this node and the agreeing peers. */
export function electAvailableJobOwner(
  job: string,
  node: string,
  agreeing: readonly string[],
  score?: (job: string, node: string) => bigint,
): string {
  return hrwOwner(job, [node, ...agreeing], score) ?? node;
}
