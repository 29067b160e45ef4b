// The fleet matrix's model (docs/dashboard.md "Fleet matrix"): `GET /fleet` read into jobs ×
// nodes. Rows are the union of every node's jobs (sorted); a column per node (this node first, as
// the daemon lists them) with its status, the age of its data and a `partial` flag when the node
// advertised only a prefix of its jobs; a cell per job and node says what that node last knew.
// Pure. Must not: read the clock (callers pass `nowMs`).
import type { FleetNodeWire, FleetWire } from '../../http/wire/index.js';
import { parseIso } from './format.js';
import type { PeerStatusWire } from './cluster.js';

export type { FleetJobWire, FleetNodeWire, FleetWire } from '../../http/wire/index.js';

export interface FleetColumn {
  readonly node: string;
  readonly self: boolean;
  readonly status: PeerStatusWire;
  /** Age of the node's data (`live` for self); null = never heard from. */
  readonly ageMs: number | null;
  /** The node advertised only the first jobs by name (more than 512). */
  readonly partial: boolean;
  /** No job snapshot ever received from the node. */
  readonly noData: boolean;
  /** Peers older than three poll intervals (or unreachable) are stale. */
  readonly stale: boolean;
}

export type FleetCell =
  | { readonly kind: 'running' }
  | { readonly kind: 'off' }
  | { readonly kind: 'never' }
  | {
      readonly kind: 'last';
      readonly outcome: 'success' | 'failure' | 'cancelled' | 'unknown';
      readonly finishedMs: number | null;
      readonly exitCode: number | null;
      readonly duration: number | null;
      readonly scheduledIn: number | null;
    }
  /** The node's job list lacks the job. */
  | { readonly kind: 'absent' }
  /** The node sent no snapshot, or a truncated one that stops before this job. */
  | { readonly kind: 'no-data' };

export interface FleetRow {
  readonly job: string;
  readonly cells: readonly FleetCell[];
  /** Some node's last run of the job failed. */
  readonly failing: boolean;
}

export interface FleetMatrix {
  readonly columns: readonly FleetColumn[];
  readonly rows: readonly FleetRow[];
  /** Rows before the failing-only filter. */
  readonly totalRows: number;
}

function cellOf(node: FleetNodeWire, job: string): FleetCell {
  if (node.jobs === null) return { kind: 'no-data' };
  const entry = Object.hasOwn(node.jobs, job) ? node.jobs[job] : undefined;
  if (entry === undefined) return node.truncated ? { kind: 'no-data' } : { kind: 'absent' };
  if (entry.running) return { kind: 'running' };
  if (!entry.enabled) return { kind: 'off' };
  if (entry.last === null) return { kind: 'never' };
  return {
    kind: 'last',
    outcome: entry.last.outcome,
    finishedMs: parseIso(entry.last.finished_at),
    exitCode: entry.last.exit_code,
    duration: entry.last.duration,
    scheduledIn: entry.scheduled_in,
  };
}

/** Builds the matrix; null when the fleet view is unavailable. */
export function buildFleetMatrix(
  wire: FleetWire,
  nowMs: number,
  options: { readonly failingOnly?: boolean } = {},
): FleetMatrix | null {
  if (!wire.enabled) return null;
  const staleAfterMs = Math.max(3 * wire.interval * 1000, 15_000);
  const columns = wire.nodes.map((node): FleetColumn => {
    const asOf = parseIso(node.as_of);
    const ageMs = node.self ? 0 : asOf === null ? null : Math.max(0, nowMs - asOf);
    return {
      // A peer that never answered has no name yet: its address stands in.
      node: node.node_name ?? node.host ?? '',
      self: node.self,
      status: node.status,
      ageMs,
      partial: node.truncated,
      noData: node.jobs === null,
      stale:
        !node.self && (node.status === 'unreachable' || ageMs === null || ageMs > staleAfterMs),
    };
  });
  const names = new Set<string>();
  for (const node of wire.nodes) {
    if (node.jobs !== null) for (const name of Object.keys(node.jobs)) names.add(name);
  }
  const all = [...names]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((job): FleetRow => {
      const cells = wire.nodes.map((node) => cellOf(node, job));
      return {
        job,
        cells,
        failing: cells.some((cell) => cell.kind === 'last' && cell.outcome === 'failure'),
      };
    });
  return {
    columns,
    rows: options.failingOnly === true ? all.filter((row) => row.failing) : all,
    totalRows: all.length,
  };
}
