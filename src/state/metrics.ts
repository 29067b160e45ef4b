// The store's Prometheus families (spec "Observing the store"), on a prom-client Registry the
// caller passes in (never the global one). Two stores sharing one registry (the state section
// and the filesystem-leadership instance) share the families. Contention and throttle families
// are registered on their first nonzero increment ("emitted once nonzero").
import { Counter, Gauge, type Registry } from 'prom-client';
import type { DroppedWriteKind, StateTopology } from './types.js';

/** The `op` label: one per StateStore method (lease operations carry the `lease-` prefix). */
export type StateOp =
  | 'append'
  | 'list'
  | 'get-record'
  | 'derive-max'
  | 'prune'
  | 'delete-stream'
  | 'list-streams'
  | 'doc-read'
  | 'doc-mutate'
  | 'doc-list'
  | 'put-blob'
  | 'get-blob'
  | 'has-blob'
  | 'delete-blob'
  | 'list-blobs'
  | 'lease-acquire'
  | 'lease-renew'
  | 'lease-release'
  | 'lease-inspect'
  | 'lease-list'
  | 'lease-delete'
  | 'describe'
  | 'inventory'
  | 'sweep'
  | 'gc';

function counterOn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  registerNow: boolean,
): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing;
  return new Counter<L>({ name, help, labelNames, registers: registerNow ? [registry] : [] });
}

/** The store's counters as plain numbers (the state inspector's `stats`). */
export interface StateStatsSnapshot {
  /** Per op that ran: calls, failed calls, seconds inside. */
  readonly ops: Readonly<Record<string, { count: number; errors: number; seconds: number }>>;
  readonly lock: { readonly acquisitions: number; readonly waitSeconds: number };
  readonly throttle: { readonly count: number; readonly waitSeconds: number };
}

export class StateMetrics {
  readonly #registry: Registry;
  readonly #info: Gauge<'backend' | 'topology'>;
  readonly #ops: Counter<'op'>;
  readonly #opErrors: Counter<'op'>;
  readonly #opSeconds: Counter<'op'>;
  readonly #dropped: Counter<'kind'>;
  readonly #lockAcquisitions: Counter;
  readonly #lockWaitSeconds: Counter;
  readonly #throttledOps: Counter;
  readonly #throttleWaitSeconds: Counter;

  constructor(registry: Registry) {
    this.#registry = registry;
    const info = registry.getSingleMetric('yacron2_state_info');
    this.#info =
      info instanceof Gauge
        ? info
        : new Gauge({
            name: 'yacron2_state_info',
            help: 'The configured durable state backend and its resolved topology (always 1).',
            labelNames: ['backend', 'topology'],
            registers: [registry],
          });
    this.#ops = counterOn(
      registry,
      'yacron2_state_ops_total',
      'State store operations, by operation.',
      ['op'],
      true,
    );
    this.#opErrors = counterOn(
      registry,
      'yacron2_state_op_errors_total',
      'State store operations that failed, by operation.',
      ['op'],
      true,
    );
    this.#opSeconds = counterOn(
      registry,
      'yacron2_state_op_seconds_total',
      'Seconds spent inside state store operations, by operation (divide by ops for the mean).',
      ['op'],
      true,
    );
    this.#dropped = counterOn(
      registry,
      'yacron2_state_dropped_writes_total',
      'Durable background writes that failed and were dropped, by kind. Alert on its rate.',
      ['kind'],
      true,
    );
    this.#lockAcquisitions = counterOn(
      registry,
      'yacron2_state_lock_acquisitions_total',
      'Advisory file locks taken by the state store.',
      [],
      false,
    );
    this.#lockWaitSeconds = counterOn(
      registry,
      'yacron2_state_lock_wait_seconds_total',
      'Seconds spent waiting for advisory file locks of the state store.',
      [],
      false,
    );
    this.#throttledOps = counterOn(
      registry,
      'yacron2_state_throttled_ops_total',
      'State store operations delayed by the maxOpsPerSecond token bucket.',
      [],
      false,
    );
    this.#throttleWaitSeconds = counterOn(
      registry,
      'yacron2_state_throttle_wait_seconds_total',
      'Seconds state store operations waited for the maxOpsPerSecond token bucket.',
      [],
      false,
    );
  }

  setInfo(backend: 'filesystem' | 'memory', topology: StateTopology): void {
    this.#info.reset();
    this.#info.set({ backend, topology }, 1);
  }

  observeOp(op: StateOp, seconds: number, failed: boolean): void {
    this.#ops.inc({ op });
    this.#opSeconds.inc({ op }, Math.max(0, seconds));
    if (failed) this.#opErrors.inc({ op });
  }

  droppedWrite(kind: DroppedWriteKind): void {
    this.#dropped.inc({ kind });
  }

  lockAcquired(waitSeconds: number): void {
    this.#incLazily(this.#lockAcquisitions, 1);
    if (waitSeconds > 0) this.#incLazily(this.#lockWaitSeconds, waitSeconds);
  }

  throttled(waitSeconds: number): void {
    this.#incLazily(this.#throttledOps, 1);
    this.#incLazily(this.#throttleWaitSeconds, Math.max(0, waitSeconds));
  }

  async snapshot(): Promise<StateStatsSnapshot> {
    const ops: Record<string, { count: number; errors: number; seconds: number }> = {};
    const entry = (op: string): { count: number; errors: number; seconds: number } =>
      (ops[op] ??= { count: 0, errors: 0, seconds: 0 });
    for (const { labels, value } of (await this.#ops.get()).values) {
      entry(String(labels.op)).count = value;
    }
    for (const { labels, value } of (await this.#opErrors.get()).values) {
      entry(String(labels.op)).errors = value;
    }
    for (const { labels, value } of (await this.#opSeconds.get()).values) {
      entry(String(labels.op)).seconds = value;
    }
    return {
      ops,
      lock: {
        acquisitions: await this.#total(this.#lockAcquisitions),
        waitSeconds: await this.#total(this.#lockWaitSeconds),
      },
      throttle: {
        count: await this.#total(this.#throttledOps),
        waitSeconds: await this.#total(this.#throttleWaitSeconds),
      },
    };
  }

  /** A label-less counter's value, read from the registered twin when another one registered first. */
  async #total(counter: Counter): Promise<number> {
    const { name } = counter as unknown as { name: string };
    const registered = this.#registry.getSingleMetric(name);
    const source = registered instanceof Counter ? registered : counter;
    return (await source.get()).values.reduce((sum, sample) => sum + sample.value, 0);
  }

  #incLazily(counter: Counter, amount: number): void {
    // Another StateMetrics on the same registry may have registered its twin first: use that one.
    const { name } = counter as unknown as { name: string };
    const registered = this.#registry.getSingleMetric(name);
    if (registered instanceof Counter) {
      registered.inc(amount);
      return;
    }
    this.#registry.registerMetric(counter);
    counter.inc(amount);
  }
}
