// What this node serves on `GET /peer` (docs/clustering.md "The /peer payload"): the body in the
// reference's key order, and its ETag, a content hash that ignores the live countdown of each
// job's next fire so an unchanged node answers 304. Pure.
// Must not: put node stats in the body or the ETag (they ride a header).
import { createHash } from 'node:crypto';
import { dumpPythonJson } from '../common/index.js';
import type { JobSummariesWire, PeerPayload } from './peer-payload.js';
import type { Distribution, MemberEntry } from './types.js';
import { FINGERPRINT_SCHEME } from './types.js';

/** Everything the body is made of, already derived by the view. */
export interface PeerPayloadInput {
  readonly nodeName: string;
  readonly jobSetId: string;
  readonly instanceId: string;
  readonly clusterSize: number;
  readonly distribution: Distribution;
  readonly electLeader: boolean;
  readonly members: readonly MemberEntry[];
  /** Already sorted and capped (the advertised ran-set). */
  readonly ranRebootJobs: readonly string[];
  /** Sorted by code point. */
  readonly mutualAgreeing: readonly string[];
  readonly quorateVouched: readonly string[];
  readonly jobSummaries: JobSummariesWire;
  readonly jobSummariesTruncated: boolean;
}

/** The body object, keys in the reference's order. */
export function buildPeerPayload(input: PeerPayloadInput): PeerPayload {
  return {
    node_name: input.nodeName,
    job_set_id: input.jobSetId,
    scheme_version: FINGERPRINT_SCHEME,
    instance_id: input.instanceId,
    cluster_size: input.clusterSize,
    distribution: input.distribution,
    elect_leader: input.electLeader,
    members: input.members.map((member) => ({
      node_name: member.nodeName,
      instance_id: member.instanceId,
      agreed: member.agreed,
    })),
    ran_reboot_jobs: [...input.ranRebootJobs],
    mutual_agreeing: [...input.mutualAgreeing],
    quorate_vouched: [...input.quorateVouched],
    job_summaries: input.jobSummaries,
    job_summaries_truncated: input.jobSummariesTruncated,
  };
}

/**
 * The ETag: `"` + sha256 hex + `"` of the payload as Python's json.dumps(sort_keys, compact,
 * ensure_ascii) writes it (the reference's recipe), after each summary's `scheduled_in` (seconds
 * from now) became the absolute second it points at, so a countdown alone does not change the tag.
 */
export function peerPayloadEtag(payload: PeerPayload, nowMs: number): string {
  const summaries = payload.job_summaries;
  const hashed: PeerPayload =
    summaries === null
      ? payload
      : {
          ...payload,
          job_summaries: Object.fromEntries(
            Object.entries(summaries).map(([name, entry]) => [
              name,
              { ...entry, scheduled_in: anchoredCountdown(entry.scheduled_in, nowMs) },
            ]),
          ),
        };
  return etagOf(hashed);
}

/** What the tag hashes for a `scheduled_in`: the absolute second it points at (null stays). */
export function anchoredCountdown(scheduledIn: number | null, nowMs: number): number | null {
  return scheduledIn === null ? null : roundHalfEven(nowMs / 1000 + scheduledIn);
}

/** The tag of a payload whose countdowns are already anchored (RawPythonJson parts allowed). */
export function etagOf(hashed: PeerPayload): string {
  return `"${createHash('sha256').update(dumpPythonJson(hashed)).digest('hex')}"`;
}

/** Python's round(): halves go to the even neighbour. */
export function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const fraction = value - floor;
  if (fraction > 0.5) return floor + 1;
  if (fraction < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}
