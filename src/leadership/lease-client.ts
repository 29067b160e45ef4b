// The small interface every lease backend (etcd, Kubernetes, filesystem, memory) implements for
// the one LeaseElector (docs/clustering.md "Lease backends"): one election round against the
// store, the stored @reboot "already ran" set, release and close. A client computes its own
// fence and freshness deadlines on the injected clock's monotonic scale, because only it knows
// when its store contact started (etcd, filesystem) or ended (Kubernetes).
// Must not: keep election state the elector owns (leader flag, deadlines): a round reports.
import { pythonJsonString, sortByCodePoint } from '../common/index.js';
import type { ClusterBackendName } from './types.js';

/** The @reboot one-shots recorded as already run, tagged with the job-set id they ran under. */
export interface StoredRanSet {
  readonly jobSetId: string | null;
  readonly jobs: ReadonlySet<string>;
}

export const EMPTY_RAN_SET: StoredRanSet = { jobSetId: null, jobs: new Set() };

/** What a round asks the store to persist: this node's marks under the live job-set id. */
export interface RanSetMarks {
  readonly jobSetId: string;
  readonly jobs: ReadonlySet<string>;
}

export type RoundOutcome =
  /** The store confirmed our tenure: is_leader until `fenceUntilMs` (monotonic). */
  | {
      readonly kind: 'leader';
      readonly holder: string;
      readonly fenceUntilMs: number;
      readonly freshUntilMs: number;
      /** The stored ran-set, when this round read it. */
      readonly ranSet?: StoredRanSet;
    }
  /** The store answered and someone else (or nobody, `holder` null) holds the lease. */
  | {
      readonly kind: 'follower';
      readonly holder: string | null;
      readonly freshUntilMs: number;
      /** Our previous tenure is positively gone (etcd lease expired, filesystem renew refused). */
      readonly leaseLost: boolean;
      readonly ranSet?: StoredRanSet;
    }
  /** Nothing answered positively: no deadline moves (they lapse on their own). */
  | { readonly kind: 'no-answer'; readonly leaseLost: boolean };

/** How often a round runs and how long one may take (etcd's depend on the granted TTL). */
export interface RoundTiming {
  readonly periodMs: number;
  readonly roundDeadlineMs: number;
  /**
   * The monotonic instant the period counts from: a client whose fence is dated from its round's
   * first request (etcd) spaces rounds start to start, so a slow round does not push the next
   * one past that fence. Absent: the period counts from the end of the last round.
   */
  readonly periodFromMs?: number;
}

/** The `lease` object of GET /cluster, in the reference's key order, wire-ready. */
export type LeaseDetails = Readonly<Record<string, string | number | null>>;

export interface LeaseClient {
  readonly backend: Exclude<ClusterBackendName, 'gossip'>;
  /** The holder display name this node writes (nodeName, or the Kubernetes identity). */
  readonly identity: string;
  /** `cluster: <label> round failed: …`, `cluster: <short> initial round failed: …`. */
  readonly roundLabel: string;
  readonly initialLabel: string;
  /** Credentials, transport and probes; a rejection fails the manager's start. */
  start(): Promise<void>;
  timing(quorate: boolean): RoundTiming;
  /** One round; `signal` aborts it at the round deadline or on stop. */
  round(marks: RanSetMarks, signal: AbortSignal): Promise<RoundOutcome>;
  /** Stop: give the lease up if we hold it (bounded; errors ignored by the caller). */
  release(signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
  /** The `lease` block of GET /cluster; `leader` = this node leads now. */
  details(leader: boolean, holder: string | null): LeaseDetails;
  /** A startup INFO line (docs/clustering.md "Lease backends"). */
  startupLine(): string;
  /**
   * Files whose change rebuilds the backend (client certificates, a kubeconfig and what it
   * names), valid after start(); none when absent.
   */
  trackedFiles?(): readonly string[];
}

/**
 * The stored ran-set value (a Kubernetes annotation, an etcd key): compact JSON
 * `{"jobSetId":"<id>","jobs":[sorted names]}`, Python's separators and key order.
 */
export function encodeRanSet(jobSetId: string, jobs: Iterable<string>): string {
  const sorted = sortByCodePoint(new Set(jobs));
  return `{"jobSetId":${pythonJsonString(jobSetId)},"jobs":[${sorted.map(pythonJsonString).join(',')}]}`;
}

/** Anything goes in: junk decodes to no set at all. */
export function decodeRanSet(text: string | null | undefined): StoredRanSet {
  if (typeof text !== 'string' || text === '') return EMPTY_RAN_SET;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return EMPTY_RAN_SET;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return EMPTY_RAN_SET;
  const record = value as Record<string, unknown>;
  const id = typeof record.jobSetId === 'string' ? record.jobSetId : null;
  const jobs = Array.isArray(record.jobs)
    ? record.jobs.filter((job): job is string => typeof job === 'string')
    : [];
  return { jobSetId: id, jobs: new Set(jobs) };
}

/** Kubernetes MicroTime as the reference writes it (and shows etcd's expiry): `…SS.ffffffZ`. */
export function formatMicroTime(epochMs: number): string {
  const micros = Math.round(epochMs * 1000);
  const base = new Date(Math.floor(micros / 1000)).toISOString().slice(0, 19);
  const fraction = String(micros - Math.floor(micros / 1e6) * 1e6).padStart(6, '0');
  return `${base}.${fraction}Z`;
}

const MICRO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|z|[+-]\d{2}:?\d{2})?$/;

/** Lenient: any fraction length, `Z` or an offset, naive = UTC; junk = null. */
export function parseMicroTime(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const match = MICRO_TIME.exec(text.trim());
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction = '', zone = 'Z'] = match;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const whole = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
  if (Number.isNaN(whole)) return null;
  return fraction === '' ? whole : whole + Number(`0.${fraction}`) * 1000;
}

/** The readable name of a written holder (`<name>#<token>`): everything before the last `#`. */
export function displayHolder(holder: string | null | undefined): string | null {
  if (holder === null || holder === undefined || holder === '') return null;
  const at = holder.lastIndexOf('#');
  return at < 0 ? holder : holder.slice(0, at);
}
