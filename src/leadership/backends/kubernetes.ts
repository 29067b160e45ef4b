// The Kubernetes lease client (docs/clustering.md "Kubernetes"): one coordination.k8s.io/v1 Lease
// over the apiserver's REST API. Each round GETs it, plans with kube-lease-plan.ts, and writes
// with the observed resourceVersion (a 409 = another node won the race: stand down this round).
// The holder written is `<identity>#<12 hex>` per process; the @reboot ran-set rides the
// `yacron2.io/reboot-ran` annotation. Stop clears holderIdentity when we still hold it.
// Must not: treat a write other than 2xx as leadership, or drop other writers' annotations.
import { YacronError, type Clock } from '../../common/index.js';
import { type Logger } from '../../logging/index.js';
import type { ResolvedKubernetesBlock } from '../../config/index.js';
import { newInstanceToken } from '../../state/index.js';
import {
  decodeRanSet,
  displayHolder,
  encodeRanSet,
  formatMicroTime,
  type LeaseClient,
  type LeaseDetails,
  type RanSetMarks,
  type RoundOutcome,
  type RoundTiming,
  type StoredRanSet,
} from '../lease-client.js';
import { JsonHttpClient, asObject } from '../json-http.js';
import { resolveKubeAccess, type KubeAccess, type KubeAccessEnv } from './kube-access.js';
import {
  observe,
  planLeaseRound,
  type Observation,
  type ObservedLease,
} from './kube-lease-plan.js';

export const RAN_SET_ANNOTATION = 'yacron2.io/reboot-ran';
const UNKNOWN_HOLDER = '<unknown holder>';

export interface KubernetesLeaseOptions extends ResolvedKubernetesBlock {
  readonly connectTimeoutMs: number;
}

export interface KubernetesLeaseDeps extends KubeAccessEnv {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The per-process token (a seam for tests: two "processes" in one). */
  readonly token?: string;
}

export class KubernetesLeaseClient implements LeaseClient {
  readonly backend = 'kubernetes' as const;
  readonly identity: string;
  readonly roundLabel = 'kubernetes lease round';
  readonly initialLabel = 'kubernetes initial round';
  /** What this node writes as holderIdentity. */
  readonly holderIdentity: string;
  readonly #options: KubernetesLeaseOptions;
  readonly #deps: KubernetesLeaseDeps;
  #access: KubeAccess | null = null;
  #http: JsonHttpClient | null = null;
  #observation: Observation | null = null;
  #stored: StoredRanSet = { jobSetId: null, jobs: new Set() };
  #expiryWallMs: number | null = null;

  constructor(options: KubernetesLeaseOptions, deps: KubernetesLeaseDeps) {
    this.#options = options;
    this.#deps = deps;
    this.identity = options.identity;
    this.holderIdentity = `${options.identity}#${deps.token ?? newInstanceToken()}`;
  }

  async start(): Promise<void> {
    if (this.#options.clientLibrary === 'library') {
      throw new YacronError(
        'YC_ERR_CLUSTER_CREDENTIALS',
        "cluster.kubernetes.clientLibrary is 'library' but the native client is not importable (this build has only the REST transport; use auto or http)",
      );
    }
    this.#access = await resolveKubeAccess(this.#options, this.#deps);
    this.#http = new JsonHttpClient(this.#deps.clock, this.#access.tls);
  }

  timing(): RoundTiming {
    return {
      periodMs: this.#options.retryPeriodSeconds * 1000,
      roundDeadlineMs: this.#options.renewDeadlineSeconds * 1000,
    };
  }

  /** The namespace the lease lives in (valid after start()). */
  get namespace(): string {
    return this.#access?.namespace ?? this.#options.leaseNamespace ?? 'default';
  }

  async round(marks: RanSetMarks, signal: AbortSignal): Promise<RoundOutcome> {
    const clock = this.#deps.clock;
    const duration = this.#options.leaseDurationSeconds;
    const observed = await this.#get(signal);
    const nowMs = clock.monotonic();
    const nowWall = clock.now();
    const input = {
      observed,
      remembered: this.#observation,
      me: this.holderIdentity,
      durationSeconds: duration,
      nowMs,
    };
    const observation = observe(input);
    this.#observation = observation;
    if (observed !== null) this.#stored = decodeRanSet(observed.annotations[RAN_SET_ANNOTATION]);
    const ranSet = this.#stored;
    const action = planLeaseRound(input, observation);
    const freshUntilMs = nowMs + duration * 1000;
    const observedHolder = displayHolder(observed?.holderIdentity ?? null);
    const remembered = displayHolder(observation?.holderIdentity ?? null);
    if (action.kind === 'wait') {
      this.#expiryWallMs = null;
      return {
        kind: 'follower',
        holder: observed === null ? remembered : observedHolder,
        freshUntilMs,
        leaseLost: false,
        ranSet,
      };
    }
    const now = formatMicroTime(nowWall);
    const combined = new Set(ranSet.jobSetId === marks.jobSetId ? ranSet.jobs : []);
    for (const job of marks.jobs) combined.add(job);
    const annotations: Record<string, string> = { ...(observed?.annotations ?? {}) };
    if (combined.size > 0) annotations[RAN_SET_ANNOTATION] = encodeRanSet(marks.jobSetId, combined);
    const spec = {
      holderIdentity: this.holderIdentity,
      leaseDurationSeconds: duration,
      acquireTime: action.kind === 'renew' ? (action.acquireTime ?? now) : now,
      renewTime: now,
      leaseTransitions: action.kind === 'create' ? 0 : action.transitions,
    };
    const status = await this.#write(
      action.kind === 'create' ? 'POST' : 'PUT',
      {
        metadata: {
          name: this.#options.leaseName,
          namespace: this.namespace,
          ...(Object.keys(annotations).length > 0 && { annotations }),
          ...(action.kind !== 'create' &&
            observed?.resourceVersion && { resourceVersion: observed.resourceVersion }),
        },
        spec,
      },
      signal,
    );
    if (status === 409) {
      this.#expiryWallMs = null;
      return {
        kind: 'follower',
        holder: observedHolder ?? remembered ?? UNKNOWN_HOLDER,
        freshUntilMs,
        leaseLost: false,
        ranSet,
      };
    }
    this.#stored = combined.size > 0 ? { jobSetId: marks.jobSetId, jobs: combined } : ranSet;
    this.#expiryWallMs = nowWall + duration * 1000;
    return {
      kind: 'leader',
      holder: this.identity,
      fenceUntilMs: nowMs + duration * 1000 - 1000,
      freshUntilMs,
      ranSet: this.#stored,
    };
  }

  async release(signal: AbortSignal): Promise<void> {
    const observed = await this.#get(signal);
    if (observed === null || observed.holderIdentity !== this.holderIdentity) return;
    await this.#write(
      'PUT',
      {
        metadata: {
          name: this.#options.leaseName,
          namespace: this.namespace,
          ...(Object.keys(observed.annotations).length > 0 && {
            annotations: observed.annotations,
          }),
        },
        spec: {
          holderIdentity: null,
          leaseDurationSeconds: this.#options.leaseDurationSeconds,
          leaseTransitions: observed.leaseTransitions,
        },
      },
      signal,
    );
  }

  close(): Promise<void> {
    this.#http?.close();
    return Promise.resolve();
  }

  details(leader: boolean, holder: string | null): LeaseDetails {
    return {
      name: this.#options.leaseName,
      namespace: this.namespace,
      identity: this.holderIdentity,
      holder,
      expiry: leader && this.#expiryWallMs !== null ? formatMicroTime(this.#expiryWallMs) : null,
    };
  }

  trackedFiles(): readonly string[] {
    return this.#access?.files ?? [];
  }

  startupLine(): string {
    const o = this.#options;
    return `cluster: kubernetes backend (http transport), identity '${this.holderIdentity}', lease ${this.namespace}/${o.leaseName} (duration ${o.leaseDurationSeconds}s, renew ${o.renewDeadlineSeconds}s, retry ${o.retryPeriodSeconds}s)`;
  }

  #url(withName: boolean): string {
    const access = this.#ready().access;
    const ns = encodeURIComponent(access.namespace);
    const base = `${access.base}/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
    return withName ? `${base}/${encodeURIComponent(this.#options.leaseName)}` : base;
  }

  async #headers(): Promise<Record<string, string>> {
    const token = await this.#ready().access.token();
    return token === null ? {} : { Authorization: `Bearer ${token}` };
  }

  async #get(signal: AbortSignal): Promise<ObservedLease | null> {
    const reply = await this.#ready().http.request({
      method: 'GET',
      url: this.#url(true),
      headers: await this.#headers(),
      timeoutMs: this.#callTimeoutMs(),
      signal,
    });
    if (reply.status === 404) return null;
    if (reply.status !== 200) throw this.#httpError('GET', reply.status);
    return parseLease(reply.json);
  }

  async #write(
    method: 'POST' | 'PUT',
    lease: { metadata: object; spec: object },
    signal: AbortSignal,
  ): Promise<number> {
    const reply = await this.#ready().http.request({
      method,
      url: this.#url(method === 'PUT'),
      headers: await this.#headers(),
      body: JSON.stringify({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease }),
      timeoutMs: this.#callTimeoutMs(),
      signal,
    });
    if (reply.status === 409) return 409;
    if (reply.status < 200 || reply.status >= 300) throw this.#httpError(method, reply.status);
    return reply.status;
  }

  #callTimeoutMs(): number {
    return Math.min(this.#options.connectTimeoutMs, this.#options.renewDeadlineSeconds * 1000);
  }

  #httpError(method: string, status: number): YacronError {
    if (status === 401) this.#access?.rejected();
    return new YacronError(
      'YC_ERR_CLUSTER_LEASE',
      `Cannot ${method} lease ${this.namespace}/${this.#options.leaseName}: the apiserver answered HTTP ${status}`,
    );
  }

  #ready(): { access: KubeAccess; http: JsonHttpClient } {
    if (this.#access === null || this.#http === null) {
      throw new YacronError(
        'YC_ERR_CLUSTER_LEASE',
        'Cannot call the apiserver: the client is not started',
      );
    }
    return { access: this.#access, http: this.#http };
  }
}

/** A Lease object as the apiserver returns it; anything missing reads as absent. */
export function parseLease(json: unknown): ObservedLease {
  const lease = asObject(json) ?? {};
  const metadata = asObject(lease.metadata) ?? {};
  const spec = asObject(lease.spec) ?? {};
  const annotations: Record<string, string> = {};
  for (const [key, value] of Object.entries(asObject(metadata.annotations) ?? {})) {
    if (typeof value === 'string') annotations[key] = value;
  }
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  const int = (value: unknown): number | null =>
    typeof value === 'number' && Number.isInteger(value) ? value : null;
  return {
    holderIdentity: text(spec.holderIdentity),
    renewTime: text(spec.renewTime),
    acquireTime: text(spec.acquireTime),
    leaseDurationSeconds: int(spec.leaseDurationSeconds),
    leaseTransitions: int(spec.leaseTransitions) ?? 0,
    resourceVersion: text(metadata.resourceVersion),
    annotations,
  };
}
