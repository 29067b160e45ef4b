// `GET /jobs` body (docs/http-api.md "GET /jobs") without rebuilding and re-serialising every job
// view on every request: each idle job's JSON is cached, UTF-8 encoded, in two pieces around
// `scheduled_in`, which is computed fresh from the next fire on every render, so the body equals
// JSON.stringify of every rendered job view. A render is then one allocation and a memcpy per job
// (with 1,000 jobs and full histories the body is ~1.5 MB; re-encoding it per request costs more
// than everything else together).
// Invariant: an idle job's view only changes through the events listened to below; running jobs
// and jobs with an armed retry are never cached, and an entry older than MAX_AGE_MS is rebuilt
// so a state change without an event can never be stale for long.
import type { Clock } from '../common/index.js';
import { clusterFieldsJson } from './cluster-views.js';
import { jobObject } from './job-object.js';
import { renderJobView } from './job-views.js';
import type { JobView } from './wire/index.js';
import type { ClusterApiView, DaemonView, ResourcesView } from './types.js';

/** Upper bound on how long a cached job fragment is trusted. */
const MAX_AGE_MS = 5_000;

interface Fragment {
  /** The JSON up to and including `"scheduled_in":`. */
  readonly head: Buffer;
  /** The JSON after the `scheduled_in` value. */
  readonly tail: Buffer;
  /** scheduled_in is computed from the next fire (else it is always null). */
  readonly timed: boolean;
  readonly builtAtMs: number;
}

export class JobListCache implements Disposable {
  readonly #view: DaemonView;
  readonly #clock: Clock;
  readonly #resources: ResourcesView | undefined;
  readonly #cluster: ClusterApiView | undefined;
  readonly #fragments = new Map<string, Fragment>();
  readonly #unsubscribe: (() => void)[];
  #order: readonly string[] | null = null;
  /** Bumped by every event that can change a view. */
  #version = 0;
  /** The last body: reused while neither the version nor the clock's millisecond moved. */
  #last: { readonly version: number; readonly nowMs: number; readonly body: Buffer } | null = null;

  /**
   * `resources`: running jobs then carry `running_resources` (never cached: they run).
   * `cluster`: the jobs' cluster keys, appended fresh on every render (an owner moves with the
   * cluster's membership, not with a scheduler event).
   */
  constructor(view: DaemonView, clock: Clock, resources?: ResourcesView, cluster?: ClusterApiView) {
    this.#view = view;
    this.#clock = clock;
    this.#resources = resources;
    this.#cluster = cluster;
    const forget = (name: string): void => {
      this.#fragments.delete(name);
      this.#version++;
    };
    const { events } = view;
    this.#unsubscribe = [
      events.on('run:started', (event) => forget(event.job.name)),
      events.on('run:finished', (event) => forget(event.job.name)),
      events.on('retry:scheduled', (event) => forget(event.jobName)),
      events.on('retry:discarded', (event) => forget(event.jobName)),
      events.on('retry:abandoned', (event) => forget(event.jobName)),
      events.on('config:applied', () => {
        this.#fragments.clear();
        this.#order = null;
        this.#version++;
      }),
    ];
  }

  /** The GET /jobs array as UTF-8 JSON. */
  render(): Buffer {
    const nowMs = this.#clock.now();
    const last = this.#last;
    // scheduled_in is computed from whole milliseconds: within one millisecond and without an
    // event in between, the body would be byte for byte the same.
    if (last !== null && last.version === this.#version && last.nowMs === nowMs) return last.body;
    this.#order ??= this.#view.getJobStates().map((state) => state.job.name);
    const monotonicMs = this.#clock.monotonic();
    // One entry per job: its cached JSON, split around the scheduled_in value when it has one,
    // and its cluster keys (fresh), written in front of its closing brace.
    const entries: { head: Buffer; value: string; tail: Buffer | null; extra: Buffer | null }[] =
      [];
    let length = 2; // [ ]
    for (const name of this.#order) {
      const fragment = this.#fragment(name, monotonicMs);
      if (fragment === undefined) continue;
      const extra = this.#clusterFields(name);
      length += extra?.length ?? 0;
      if (Buffer.isBuffer(fragment)) {
        entries.push({ head: fragment, value: '', tail: null, extra });
        length += fragment.length;
        continue;
      }
      let value = 'null';
      if (fragment.timed) {
        const nextMs = this.#view.getNextFireAtMs(name);
        // String() equals JSON.stringify() for finite numbers.
        if (nextMs !== null) value = String((nextMs - nowMs) / 1000);
      }
      entries.push({ head: fragment.head, value, tail: fragment.tail, extra });
      length += fragment.head.length + value.length + fragment.tail.length;
    }
    length += Math.max(0, entries.length - 1); // commas
    const body = Buffer.allocUnsafe(length);
    body[0] = 0x5b; // [
    let offset = 1;
    for (let index = 0; index < entries.length; index++) {
      const { head, value, tail, extra } = entries[index]!;
      if (index > 0) body[offset++] = 0x2c; // ,
      // With cluster keys, the object's closing brace is written after them.
      const trim = extra === null ? 0 : 1;
      body.set(tail === null ? head.subarray(0, head.length - trim) : head, offset);
      offset += tail === null ? head.length - trim : head.length;
      // Short ASCII: a byte loop is cheaper than a native write call per value.
      for (let char = 0; char < value.length; char++) body[offset++] = value.charCodeAt(char);
      if (tail !== null) {
        body.set(tail.subarray(0, tail.length - trim), offset);
        offset += tail.length - trim;
      }
      if (extra !== null) {
        body.set(extra, offset);
        offset += extra.length;
        body[offset++] = 0x7d; // }
      }
    }
    body[offset] = 0x5d; // ]
    this.#last = { version: this.#version, nowMs, body };
    return body;
  }

  /** A job's cluster keys as JSON members (`,"clusterPolicy":…`), null when it has none. */
  #clusterFields(name: string): Buffer | null {
    const cluster = this.#cluster;
    if (cluster === undefined) return null;
    const job = this.#view.getJobConfig(name);
    const members = job === undefined ? '' : clusterFieldsJson(cluster.jobFields(job));
    return members === '' ? null : Buffer.from(members);
  }

  /** A cached fragment, or the job's complete JSON when it must not be cached. */
  #fragment(name: string, monotonicMs: number): Fragment | Buffer | undefined {
    const cached = this.#fragments.get(name);
    if (cached !== undefined && monotonicMs - cached.builtAtMs < MAX_AGE_MS) return cached;
    let view: JobView;
    try {
      view = renderJobView(this.#view.getJobState(name), this.#clock.now());
    } catch {
      return undefined; // removed since the order was taken
    }
    if (view.running || view.retry !== undefined) {
      this.#fragments.delete(name);
      return Buffer.from(JSON.stringify(jobObject(view, this.#resources)));
    }
    const fragment = split(view, monotonicMs);
    this.#fragments.set(name, fragment);
    return fragment;
  }

  [Symbol.dispose](): void {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#fragments.clear();
  }
}

/** The view's JSON in two pieces around the scheduled_in value, keys in the view's order. */
function split(view: JobView, builtAtMs: number): Fragment {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  let target = before;
  for (const [key, value] of Object.entries(view)) {
    if (key === 'scheduled_in') {
      target = after;
      continue;
    }
    target[key] = value;
  }
  const head = JSON.stringify(before).slice(0, -1) + ',"scheduled_in":';
  const afterJson = JSON.stringify(after);
  const tail = afterJson === '{}' ? '}' : `,${afterJson.slice(1)}`;
  return {
    head: Buffer.from(head),
    tail: Buffer.from(tail),
    timed: view.enabled && !view.running && view.scheduled_in !== null,
    builtAtMs,
  };
}
