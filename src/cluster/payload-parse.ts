// The poller's validation of a peer's `GET /peer` body (docs/clustering.md "The /peer payload"):
// every field's type and cap, and what a malformed body degrades to. Identity fields that fail a
// check fail the whole poll (never a partial absorption); list entries that fail are dropped.
// Pure. Must not: throw on any input, or keep more than the caps from a hostile peer.
import { atMostCodePoints, isPythonPrintable } from '../common/index.js';
import { parseSummaries } from './job-summaries.js';
import { isJsonObject, ownField, parseStrictJson } from './strict-json.js';
import type { MemberEntry, PeerObservation } from './types.js';

/** A decompressed /peer body (and a /reboot-ran request body) may not exceed this. */
export const MAX_PEER_BODY_BYTES = 262_144;
/** Names, ids and instance ids: code points. */
export const MAX_NAME_CHARS = 256;
/** `members`, `mutual_agreeing`, `quorate_vouched` entries kept. */
export const MAX_LIST_ENTRIES = 4096;
/** `ran_reboot_jobs`: distinct names kept, and the length of each. */
export const MAX_RAN_JOBS = 512;
export const MAX_RAN_JOB_NAME = 128;

export const OVERSIZED_BODY = `oversized /peer response (> ${MAX_PEER_BODY_BYTES} bytes)`;
export const INVALID_JSON = 'invalid JSON in /peer response';
const NOT_AN_OBJECT = 'malformed /peer response (not a JSON object)';

export type ParsedPeerBody =
  | { readonly ok: true; readonly observation: PeerObservation }
  | { readonly ok: false; readonly error: string };

/** Validate a 200 body received at `receivedAtMs` (the summaries' receipt stamp). */
export function parsePeerBody(body: Uint8Array, receivedAtMs: number): ParsedPeerBody {
  if (body.byteLength > MAX_PEER_BODY_BYTES) return { ok: false, error: OVERSIZED_BODY };
  const parsed = parseStrictJson(body);
  if (!parsed.ok) return { ok: false, error: INVALID_JSON };
  if (!isJsonObject(parsed.value)) return { ok: false, error: NOT_AN_OBJECT };
  return parsePeerObject(parsed.value, receivedAtMs);
}

function parsePeerObject(data: Record<string, unknown>, receivedAtMs: number): ParsedPeerBody {
  const identity: Record<string, string | null> = {};
  for (const key of ['node_name', 'job_set_id', 'scheme_version', 'instance_id']) {
    const value = ownField(data, key);
    const problem = nameProblem(value, key);
    if (problem !== null) return { ok: false, error: problem };
    identity[key] = (value as string | null | undefined) ?? null;
  }
  const size = ownField(data, 'cluster_size') ?? null;
  if (size !== null && !(typeof size === 'number' && Number.isSafeInteger(size) && size >= 1)) {
    return { ok: false, error: 'malformed /peer response: cluster_size is not a positive integer' };
  }
  const distribution = ownField(data, 'distribution');
  const distributionProblem = nameProblem(distribution, 'distribution');
  if (distributionProblem !== null) return { ok: false, error: distributionProblem };
  const electLeader = ownField(data, 'elect_leader') ?? null;
  if (electLeader !== null && typeof electLeader !== 'boolean') {
    return { ok: false, error: 'malformed /peer response: elect_leader is not a boolean' };
  }
  const members = ownField(data, 'members');
  return {
    ok: true,
    observation: {
      nodeName: identity.node_name ?? null,
      jobSetId: identity.job_set_id ?? null,
      schemeVersion: identity.scheme_version ?? null,
      instanceId: identity.instance_id ?? null,
      declaredSize: size,
      declaredDistribution: (distribution as string | null | undefined) ?? null,
      declaredElectLeader: electLeader,
      members: parseMembers(members),
      reportsMembers: Array.isArray(members),
      ranRebootJobs: nameSet(ownField(data, 'ran_reboot_jobs'), MAX_RAN_JOB_NAME, MAX_RAN_JOBS),
      mutualAgreeing: nameSet(ownField(data, 'mutual_agreeing'), MAX_NAME_CHARS, MAX_LIST_ENTRIES),
      quorateVouched: nameSet(ownField(data, 'quorate_vouched'), MAX_NAME_CHARS, MAX_LIST_ENTRIES),
      summaries: parseSummaries(
        ownField(data, 'job_summaries'),
        ownField(data, 'job_summaries_truncated'),
        receivedAtMs,
      ),
    },
  };
}

/** null when absent/null or a short printable string; else the failure text. */
function nameProblem(value: unknown, key: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return `malformed /peer response: '${key}' is not a string`;
  if (!isGossipName(value)) {
    return `malformed /peer response: '${key}' is over ${MAX_NAME_CHARS} chars or contains control characters`;
  }
  return null;
}

/** A name a peer may carry: at most 256 code points, all printable. */
export function isGossipName(value: string, max = MAX_NAME_CHARS): boolean {
  return atMostCodePoints(value, max) && isPythonPrintable(value);
}

function parseMembers(raw: unknown): MemberEntry[] {
  if (!Array.isArray(raw)) return [];
  const out: MemberEntry[] = [];
  for (const entry of raw) {
    if (out.length >= MAX_LIST_ENTRIES) break;
    if (!isJsonObject(entry)) continue;
    const nodeName = ownField(entry, 'node_name');
    const instanceId = ownField(entry, 'instance_id');
    const agreed = ownField(entry, 'agreed');
    if (typeof nodeName !== 'string' || typeof instanceId !== 'string') continue;
    if (typeof agreed !== 'boolean') continue;
    if (!isGossipName(nodeName) || !isGossipName(instanceId)) continue;
    out.push({ nodeName, instanceId, agreed });
  }
  return out;
}

/** The distinct well-formed strings of a list (the first `maxEntries` of them); else empty. */
export function nameSet(raw: unknown, maxChars: number, maxEntries: number): Set<string> {
  const out = new Set<string>();
  if (!Array.isArray(raw)) return out;
  for (const entry of raw) {
    if (out.size >= maxEntries) break;
    if (typeof entry === 'string' && isGossipName(entry, maxChars)) out.add(entry);
  }
  return out;
}
