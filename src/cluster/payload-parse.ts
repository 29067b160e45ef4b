// The poller's validation of a peer's `GET /peer` body (docs/clustering.md "The /peer payload")
// into the PeerPayload type our own body is built as: every field's type and cap, and what a
// malformed body degrades to; then the PeerObservation the peer state machine reads. Identity fields that fail a
// check fail the whole poll (never a partial absorption); list entries that fail are dropped.
// Pure. Must not: throw on any input, or keep more than the caps from a hostile peer.
import { atMostCodePoints, isPythonPrintable } from '../common/index.js';
import { parseSummariesWire, summariesFromWire } from './job-summaries.js';
import type { PeerMemberWire, PeerPayload, RebootRanPayload } from './peer-payload.js';
import { isJsonObject, ownField, parseStrictJson } from './strict-json.js';
import type { PeerObservation } from './types.js';

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

export type ParsedPeerPayload =
  | { readonly ok: true; readonly payload: PeerPayload }
  | { readonly ok: false; readonly error: string };

/** Validate a 200 body received at `receivedAtMs` (the summaries' receipt stamp). */
export function parsePeerBody(body: Uint8Array, receivedAtMs: number): ParsedPeerBody {
  const parsed = parsePeerPayload(body);
  return parsed.ok
    ? { ok: true, observation: peerObservation(parsed.payload, receivedAtMs) }
    : parsed;
}

/** Validate a 200 body into the payload type our own node serves. */
export function parsePeerPayload(body: Uint8Array): ParsedPeerPayload {
  if (body.byteLength > MAX_PEER_BODY_BYTES) return { ok: false, error: OVERSIZED_BODY };
  const parsed = parseStrictJson(body);
  if (!parsed.ok) return { ok: false, error: INVALID_JSON };
  if (!isJsonObject(parsed.value)) return { ok: false, error: NOT_AN_OBJECT };
  return parsePeerObject(parsed.value);
}

function parsePeerObject(data: Readonly<Record<string, unknown>>): ParsedPeerPayload {
  const nodeName = gossipNameField(data, 'node_name');
  if (!nodeName.ok) return nodeName;
  const jobSetId = gossipNameField(data, 'job_set_id');
  if (!jobSetId.ok) return jobSetId;
  const schemeVersion = gossipNameField(data, 'scheme_version');
  if (!schemeVersion.ok) return schemeVersion;
  const instanceId = gossipNameField(data, 'instance_id');
  if (!instanceId.ok) return instanceId;
  const size = ownField(data, 'cluster_size') ?? null;
  if (size !== null && !(typeof size === 'number' && Number.isSafeInteger(size) && size >= 1)) {
    return { ok: false, error: 'malformed /peer response: cluster_size is not a positive integer' };
  }
  const distribution = gossipNameField(data, 'distribution');
  if (!distribution.ok) return distribution;
  const electLeader = ownField(data, 'elect_leader') ?? null;
  if (electLeader !== null && typeof electLeader !== 'boolean') {
    return { ok: false, error: 'malformed /peer response: elect_leader is not a boolean' };
  }
  const members = ownField(data, 'members');
  return {
    ok: true,
    payload: {
      node_name: nodeName.value,
      job_set_id: jobSetId.value,
      scheme_version: schemeVersion.value,
      instance_id: instanceId.value,
      cluster_size: size,
      distribution: distribution.value,
      elect_leader: electLeader,
      members: Array.isArray(members) ? parseMembers(members) : null,
      ran_reboot_jobs: [
        ...nameSet(ownField(data, 'ran_reboot_jobs'), MAX_RAN_JOB_NAME, MAX_RAN_JOBS),
      ],
      mutual_agreeing: [
        ...nameSet(ownField(data, 'mutual_agreeing'), MAX_NAME_CHARS, MAX_LIST_ENTRIES),
      ],
      quorate_vouched: [
        ...nameSet(ownField(data, 'quorate_vouched'), MAX_NAME_CHARS, MAX_LIST_ENTRIES),
      ],
      job_summaries: parseSummariesWire(ownField(data, 'job_summaries')),
      job_summaries_truncated: ownField(data, 'job_summaries_truncated') === true,
    },
  };
}

/** A `POST /reboot-ran` body: null when it is not a JSON object (answered 204, ignored). */
export function parseRebootRanPayload(value: unknown): RebootRanPayload | null {
  if (!isJsonObject(value)) return null;
  const jobSetId = ownField(value, 'job_set_id');
  return {
    job_set_id: typeof jobSetId === 'string' ? jobSetId : null,
    names: [...nameSet(ownField(value, 'names'), MAX_RAN_JOB_NAME, MAX_RAN_JOBS)],
  };
}

/** A parsed payload as the peer state machine reads it, its summaries stamped at receipt. */
export function peerObservation(payload: PeerPayload, receivedAtMs: number): PeerObservation {
  return {
    nodeName: payload.node_name,
    jobSetId: payload.job_set_id,
    schemeVersion: payload.scheme_version,
    instanceId: payload.instance_id,
    declaredSize: payload.cluster_size,
    declaredDistribution: payload.distribution,
    declaredElectLeader: payload.elect_leader,
    members: (payload.members ?? []).map((member) => ({
      nodeName: member.node_name,
      instanceId: member.instance_id,
      agreed: member.agreed,
    })),
    reportsMembers: payload.members !== null,
    ranRebootJobs: new Set(payload.ran_reboot_jobs),
    mutualAgreeing: new Set(payload.mutual_agreeing),
    quorateVouched: new Set(payload.quorate_vouched),
    summaries:
      payload.job_summaries === null
        ? null
        : summariesFromWire(payload.job_summaries, payload.job_summaries_truncated, receivedAtMs),
  };
}

type NameField =
  | { readonly ok: true; readonly value: string | null }
  | { readonly ok: false; readonly error: string };

/** An identity field: absent/null, or a short printable string; else the failure text. */
function gossipNameField(data: Readonly<Record<string, unknown>>, key: string): NameField {
  const value = ownField(data, key);
  if (value === undefined || value === null) return { ok: true, value: null };
  if (typeof value !== 'string') {
    return { ok: false, error: `malformed /peer response: '${key}' is not a string` };
  }
  if (!isGossipName(value)) {
    return {
      ok: false,
      error: `malformed /peer response: '${key}' is over ${MAX_NAME_CHARS} chars or contains control characters`,
    };
  }
  return { ok: true, value };
}

/** A name a peer may carry: at most 256 code points, all printable. */
export function isGossipName(value: string, max = MAX_NAME_CHARS): boolean {
  return atMostCodePoints(value, max) && isPythonPrintable(value);
}

function parseMembers(raw: readonly unknown[]): PeerMemberWire[] {
  const out: PeerMemberWire[] = [];
  for (const entry of raw) {
    if (out.length >= MAX_LIST_ENTRIES) break;
    if (!isJsonObject(entry)) continue;
    const nodeName = ownField(entry, 'node_name');
    const instanceId = ownField(entry, 'instance_id');
    const agreed = ownField(entry, 'agreed');
    if (typeof nodeName !== 'string' || typeof instanceId !== 'string') continue;
    if (typeof agreed !== 'boolean') continue;
    if (!isGossipName(nodeName) || !isGossipName(instanceId)) continue;
    out.push({ node_name: nodeName, instance_id: instanceId, agreed });
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
