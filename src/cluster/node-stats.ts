// The `X-Yacron2-Node-Stats` sidecar header: this node's resources reading, shared on /peer
// responses (200 and 304) when the cluster shares node stats, and a peer's reading parsed back.
// Pure. Must not: make a bad header a poll failure (it only means "no reading").
import { parseStrictJsonText, isJsonObject, ownField } from './strict-json.js';
import type { NodeStatsReading, PeerView } from './types.js';

export const NODE_STATS_HEADER = 'X-Yacron2-Node-Stats';
const MAX_HEADER_CHARS = 1024;

const NUMBER_FIELDS = [
  'cpu_percent',
  'cpu_count',
  'mem_percent',
  'mem_used_bytes',
  'mem_total_bytes',
  'proc_rss_bytes',
  'proc_cpu_percent',
] as const;

/** The header value for our reading: compact JSON of the known numeric fields. */
export function formatNodeStatsHeader(reading: NodeStatsReading): string {
  const out: Record<string, number> = {};
  for (const field of NUMBER_FIELDS) {
    const value = reading[field];
    if (typeof value === 'number' && Number.isFinite(value)) out[field] = value;
  }
  return JSON.stringify(out);
}

/**
 * A peer's reading, or null: over 1024 characters, not JSON, not an object, or no usable field.
 * Only finite numbers of the known fields are kept (`cpu_count` must be an integer).
 */
export function parseNodeStatsHeader(value: string | undefined): NodeStatsReading | null {
  if (value === undefined || value.length > MAX_HEADER_CHARS) return null;
  const parsed = parseStrictJsonText(value);
  if (!parsed.ok || !isJsonObject(parsed.value)) return null;
  const out: Record<string, number> = {};
  for (const field of NUMBER_FIELDS) {
    const raw = ownField(parsed.value, field);
    if (typeof raw !== 'number' || !Number.isFinite(raw)) continue;
    if (field === 'cpu_count' && !Number.isInteger(raw)) continue;
    out[field] = raw;
  }
  return Object.keys(out).length === 0 ? null : Object.freeze(out);
}

/** A peer's reading while it is younger than 3 intervals (shown), else null. */
export function freshNodeStats(
  peer: PeerView,
  nowMs: number,
  intervalMs: number,
): NodeStatsReading | null {
  return peer.nodeStats !== null &&
    peer.nodeStatsAtMs !== null &&
    nowMs - peer.nodeStatsAtMs <= 3 * intervalMs
    ? peer.nodeStats
    : null;
}
