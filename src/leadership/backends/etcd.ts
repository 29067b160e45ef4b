// The etcd lease client (docs/clustering.md "etcd"): a create-if-absent transaction on the election
// key bound to a lease kept alive every ~E/3, where E is the TTL etcd actually granted. Leadership
// is fenced on the lease id backing the key, not on the name in it, and lasts until E − 1 s after
// the keepalive (or grant) that proved the lease was *sent*: etcd renewed it no earlier, so it
// expires no earlier than E after that, and a slow answer costs nothing as long as it arrives.
// Hence each request may take half the round's deadline (not a fixed fraction of a second), the
// rounds are spaced from one keepalive to the next, and the ran-set read runs beside the
// campaign within what is left of the round. A keepalive that reports the lease gone (200 without
// a TTL) marks it lost, then a fresh grant re-campaigns in the same round; a lease no round could
// prove for a whole TTL is given up (answers lost on the way back must not keep the key forever).
// The @reboot ran-set lives in the sibling key `<electionName>/reboot-ran`, written by a
// compare-and-swap on its mod revision (at most 3 attempts). Stop revokes the lease (the key goes).
// Must not: claim leadership from a txn whose existing key is bound to another lease, or date a
// fence from anything later than the send of the request that proved the lease.
import { describeError, type Clock } from '../../common/index.js';
import { type Logger } from '../../logging/index.js';
import type { ResolvedEtcdBlock } from '../../config/index.js';
import {
  decodeRanSet,
  encodeRanSet,
  formatMicroTime,
  type LeaseClient,
  type LeaseDetails,
  type RanSetMarks,
  type RoundOutcome,
  type RoundTiming,
  type StoredRanSet,
} from '../lease-client.js';
import { asObject } from '../json-http.js';
import { EtcdGateway, b64, int64Text, unb64 } from './etcd-gateway.js';

/** The block as resolved, less where the password came from (the backend needs only the password). */
export interface EtcdLeaseOptions extends Omit<ResolvedEtcdBlock, 'passwordEnvVar'> {
  readonly nodeName: string;
  readonly connectTimeoutMs: number;
}

export interface EtcdLeaseDeps {
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Below this granted TTL the fence (E − 1 s) is too short to lead safely. */
const TTL_FLOOR_S = 3;
/** How much of the round deadline the ran-set read leaves for the round to report back. */
const REPORT_RESERVE_MS = 100;

/**
 * One request's bound: half the round deadline (capped by connectTimeout). The two requests that
 * decide a round (keepalive, then the campaign transaction) fit the deadline however slow each
 * answer is within that, and an endpoint that hangs costs one request's time before the next is
 * tried (the rest of the round then starts at the endpoint that answered).
 */
export function etcdRequestTimeoutMs(roundDeadlineMs: number, connectTimeoutMs: number): number {
  return Math.min(connectTimeoutMs, roundDeadlineMs / 2);
}
const UNKNOWN_HOLDER = '<unknown holder>';

export class EtcdLeaseClient implements LeaseClient {
  readonly backend = 'etcd' as const;
  readonly identity: string;
  readonly roundLabel = 'etcd round';
  readonly initialLabel = 'etcd initial round';
  readonly #options: EtcdLeaseOptions;
  readonly #deps: EtcdLeaseDeps;
  readonly #gateway: EtcdGateway;
  /** Effective TTL in seconds: the configured one until etcd grants something else. */
  #effective: number;
  #leaseId: string | null = null;
  #holder: string | null = null;
  #belowFloor = false;
  #expiryWallMs: number | null = null;
  /** When the last round started (monotonic): the next one starts a period later. */
  #roundStartedMs: number | null = null;
  /** When the request that last proved our lease was sent (monotonic). */
  #provenSentMs: number | null = null;

  constructor(options: EtcdLeaseOptions, deps: EtcdLeaseDeps) {
    this.#options = options;
    this.#deps = deps;
    this.identity = options.nodeName;
    this.#effective = options.ttlSeconds;
    this.#gateway = new EtcdGateway(options, deps.clock);
  }

  /** The lease id this node holds now (null when none). */
  get leaseId(): string | null {
    return this.#leaseId;
  }

  start(): Promise<void> {
    return this.#gateway.start(this.#options.connectTimeoutMs);
  }

  timing(quorate: boolean): RoundTiming {
    if (!quorate && this.#effective < this.#options.ttlSeconds) {
      this.#effective = this.#options.ttlSeconds;
    }
    const period = Math.max(1, this.#effective / 3);
    return {
      periodMs: period * 1000,
      // A round started a period after the previous one's keepalive ends before that keepalive's
      // fence (E − 1 s) lapses: a leader that keeps answering never has a gap.
      roundDeadlineMs: Math.max(1, this.#effective - period - 1) * 1000,
      ...(this.#roundStartedMs !== null && { periodFromMs: this.#roundStartedMs }),
    };
  }

  async round(marks: RanSetMarks, signal: AbortSignal): Promise<RoundOutcome> {
    const clock = this.#deps.clock;
    const startedMs = clock.monotonic();
    this.#roundStartedMs = startedMs;
    this.#gateway.rotate();
    const { roundDeadlineMs } = this.timing(true);
    const perCallMs = etcdRequestTimeoutMs(roundDeadlineMs, this.#options.connectTimeoutMs);
    const post = (
      path: string,
      body: object,
      bound: AbortSignal = signal,
    ): Promise<Record<string, unknown>> => this.#gateway.post(path, body, perCallMs, bound);
    // A lease no round proved for a whole TTL may have expired, or may be kept alive by
    // keepalives whose answers never came back: either way it is not renewed again.
    if (
      this.#leaseId !== null &&
      this.#provenSentMs !== null &&
      startedMs - this.#provenSentMs >= this.#effective * 1000
    ) {
      this.#deps.logger.info(
        `cluster: etcd lease ${this.#leaseId} was not confirmed for ${this.#effective}s; giving it up and campaigning with a new one`,
      );
      this.#leaseId = null;
    }
    let sentMs = clock.monotonic();
    let sentWallMs = clock.now();
    let leaseLost = false;
    if (this.#leaseId !== null) {
      const reply = await post('/v3/lease/keepalive', { ID: this.#leaseId });
      const ttl = Number(int64Text(asObject(reply.result)?.TTL) ?? 0);
      if (ttl <= 0) {
        this.#leaseId = null;
        leaseLost = true;
      } else {
        this.#setEffective(ttl);
      }
    }
    if (this.#leaseId === null) {
      sentMs = clock.monotonic();
      sentWallMs = clock.now();
      const grant = await post('/v3/lease/grant', { TTL: String(this.#options.ttlSeconds) });
      const id = int64Text(grant.ID);
      const ttl = Number(int64Text(grant.TTL) ?? 0);
      if (id === null || ttl <= 0) throw new Error('etcd granted no usable lease');
      this.#leaseId = id;
      this.#setEffective(ttl);
    }
    this.#provenSentMs = sentMs;
    // The ran-set is read beside the campaign, within what is left of the round (less a reserve
    // to report back): a slow link skips it for this round rather than lose the round's outcome.
    const sync = new AbortController();
    const onAbort = (): void => sync.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const syncLeftMs = startedMs + roundDeadlineMs - REPORT_RESERVE_MS - clock.monotonic();
    let outOfTime = false;
    const syncTimer = clock.setTimer(
      () => {
        outOfTime = true;
        sync.abort(new Error('no time left in the round'));
      },
      Math.max(0, syncLeftMs),
    );
    const ranSetRead = this.#syncRanSet(marks, (path, body) => post(path, body, sync.signal)).catch(
      (error: unknown) => {
        if (outOfTime) {
          this.#deps.logger.debug(
            'cluster: etcd round left the @reboot record unread: no time left in the round',
          );
        } else if (!sync.signal.aborted) {
          // (Aborted otherwise: the round failed or stopped, which the elector reports.)
          this.#deps.logger.warn(`cluster: etcd round failed: ${describeError(error)}`);
        }
        return undefined;
      },
    );
    let txn: Record<string, unknown>;
    let ranSet: StoredRanSet | undefined;
    try {
      const key = b64(this.#options.electionName);
      txn = await post('/v3/kv/txn', {
        compare: [{ key, result: 'EQUAL', target: 'CREATE', create_revision: '0' }],
        success: [
          { requestPut: { key, value: b64(this.#options.nodeName), lease: this.#leaseId } },
        ],
        failure: [{ requestRange: { key } }],
      });
      ranSet = await ranSetRead;
    } finally {
      syncTimer.cancel();
      sync.abort(new Error('round over'));
      signal.removeEventListener('abort', onAbort);
    }
    const succeeded = txn.succeeded === true;
    const existing = firstKv(txn);
    const won =
      succeeded || (existing !== undefined && int64Text(existing.lease) === this.#leaseId);
    const holder = succeeded ? this.#options.nodeName : unb64(existing?.value);
    this.#holder = holder ?? this.#holder ?? UNKNOWN_HOLDER;
    const freshUntilMs = clock.monotonic() + this.#effective * 1000;
    const fenceMs = this.#effective * 1000 - 1000;
    if (won) {
      this.#expiryWallMs = sentWallMs + fenceMs;
      return {
        kind: 'leader',
        holder: this.#options.nodeName,
        fenceUntilMs: sentMs + fenceMs,
        freshUntilMs,
        ...(ranSet && { ranSet }),
      };
    }
    this.#expiryWallMs = null;
    return {
      kind: 'follower',
      holder: this.#holder,
      freshUntilMs,
      leaseLost,
      ...(ranSet && { ranSet }),
    };
  }

  async release(signal: AbortSignal): Promise<void> {
    const id = this.#leaseId;
    if (id === null) return;
    this.#leaseId = null;
    await this.#gateway.post(
      '/v3/lease/revoke',
      { ID: id },
      this.#options.connectTimeoutMs,
      signal,
    );
  }

  close(): Promise<void> {
    this.#gateway.close();
    return Promise.resolve();
  }

  details(leader: boolean, holder: string | null): LeaseDetails {
    const id = this.#leaseId;
    return {
      electionName: this.#options.electionName,
      identity: this.#options.nodeName,
      holder,
      leaseId: id === null ? null : Number.isSafeInteger(Number(id)) ? Number(id) : id,
      expiry: leader && this.#expiryWallMs !== null ? formatMicroTime(this.#expiryWallMs) : null,
    };
  }

  trackedFiles(): readonly string[] {
    const { ca, cert, key } = this.#options.tls;
    return [ca, cert, key].filter((file): file is string => file !== null);
  }

  startupLine(): string {
    const o = this.#options;
    return `cluster: etcd backend, identity '${o.nodeName}', election key '${o.electionName}', ttl ${o.ttlSeconds}s, endpoints ${o.endpoints.join(', ')}`;
  }

  #setEffective(reported: number): void {
    this.#effective = Math.max(1, Math.min(this.#options.ttlSeconds, reported));
    const below = this.#effective < TTL_FLOOR_S;
    if (below && !this.#belowFloor) {
      this.#deps.logger.warn(
        `cluster: etcd granted a lease ttl of ${this.#effective}s, below the ${TTL_FLOOR_S}s needed for a usable leader fence; Leader jobs on this node fail closed until it recovers (check etcd's --min-lease-ttl and load)`,
      );
    } else if (!below && this.#belowFloor) {
      this.#deps.logger.info(
        `cluster: etcd lease ttl recovered to ${this.#effective}s (at or above the ${TTL_FLOOR_S}s floor)`,
      );
    }
    this.#belowFloor = below;
  }

  /** Read the sibling key; CAS-write the union when our marks are missing from it. */
  async #syncRanSet(
    marks: RanSetMarks,
    post: (path: string, body: object) => Promise<Record<string, unknown>>,
  ): Promise<StoredRanSet> {
    const key = b64(`${this.#options.electionName}/reboot-ran`);
    for (let attempt = 0; ; attempt += 1) {
      const range = await post('/v3/kv/range', { key });
      const kv = asObject(Array.isArray(range.kvs) ? range.kvs[0] : undefined);
      const stored = decodeRanSet(unb64(kv?.value));
      const revision = int64Text(kv?.mod_revision ?? kv?.modRevision) ?? '0';
      const current = stored.jobSetId === marks.jobSetId ? stored.jobs : new Set<string>();
      const missing = [...marks.jobs].filter((job) => !current.has(job));
      if (missing.length === 0 || attempt >= 3) return stored;
      const union = [...current, ...missing];
      const cas = await post('/v3/kv/txn', {
        compare: [{ key, result: 'EQUAL', target: 'MOD', mod_revision: revision }],
        success: [{ requestPut: { key, value: b64(encodeRanSet(marks.jobSetId, union)) } }],
        failure: [],
      });
      if (cas.succeeded === true) return { jobSetId: marks.jobSetId, jobs: new Set(union) };
    }
  }
}

/** kvs[0] of a failed txn's range response (either spelling of the field). */
function firstKv(txn: Record<string, unknown>): Record<string, unknown> | undefined {
  const responses = Array.isArray(txn.responses) ? txn.responses : [];
  for (const entry of responses) {
    const response = asObject(entry);
    const range = asObject(response?.response_range ?? response?.responseRange);
    const kvs = range?.kvs;
    if (Array.isArray(kvs) && kvs.length > 0) return asObject(kvs[0]);
  }
  return undefined;
}
