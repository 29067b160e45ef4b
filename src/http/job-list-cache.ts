// `GET /jobs` body (http-api A.6) without rebuilding and re-serialising every job view on every
// request: each idle job's JSON is cached in two pieces around `scheduled_in`, which is computed
// fresh from the next fire on every render, so the body equals JSON.stringify(view.getJobs()).
// Invariant: an idle job's view only changes through the events listened to below; running jobs
// and jobs with an armed retry are never cached, and an entry older than MAX_AGE_MS is rebuilt
// so a state change without an event can never be stale for long.
import type { Clock } from '../common/index.js';
import type { JobView } from '../scheduler/index.js';
import type { DaemonView } from './types.js';

/** Upper bound on how long a cached job fragment is trusted. */
const MAX_AGE_MS = 5_000;

interface Fragment {
  /** The JSON up to and including `"scheduled_in":`. */
  readonly head: string;
  /** The JSON after the `scheduled_in` value. */
  readonly tail: string;
  /** scheduled_in is computed from the next fire (else it is always null). */
  readonly timed: boolean;
  readonly builtAtMs: number;
}

export class JobListCache implements Disposable {
  readonly #view: DaemonView;
  readonly #clock: Clock;
  readonly #fragments = new Map<string, Fragment>();
  readonly #unsubscribe: (() => void)[];
  #order: readonly string[] | null = null;

  constructor(view: DaemonView, clock: Clock) {
    this.#view = view;
    this.#clock = clock;
    const forget = (name: string): void => {
      this.#fragments.delete(name);
    };
    const { events } = view;
    this.#unsubscribe = [
      events.on('run:started', (event) => forget(event.job.name)),
      events.on('run:finished', (event) => forget(event.job.name)),
      events.on('retry:scheduled', (event) => forget(event.jobName)),
      events.on('retry:discarded', (event) => forget(event.jobName)),
      events.on('config:applied', () => {
        this.#fragments.clear();
        this.#order = null;
      }),
    ];
  }

  /** The A.6 array as JSON text. */
  render(): string {
    this.#order ??= this.#view.getStatus().map((entry) => entry.job);
    const nowMs = this.#clock.now();
    const parts: string[] = [];
    for (const name of this.#order) {
      const fragment = this.#fragment(name);
      if (fragment === undefined) continue;
      if (typeof fragment === 'string') {
        parts.push(fragment);
        continue;
      }
      let scheduledIn = 'null';
      if (fragment.timed) {
        const nextMs = this.#view.getNextFireAtMs(name);
        if (nextMs !== null) scheduledIn = JSON.stringify((nextMs - nowMs) / 1000);
      }
      parts.push(fragment.head + scheduledIn + fragment.tail);
    }
    return `[${parts.join(',')}]`;
  }

  /** A cached fragment, or the job's complete JSON when it must not be cached. */
  #fragment(name: string): Fragment | string | undefined {
    const cached = this.#fragments.get(name);
    const monotonicMs = this.#clock.monotonic();
    if (cached !== undefined && monotonicMs - cached.builtAtMs < MAX_AGE_MS) return cached;
    let view: JobView;
    try {
      view = this.#view.getJob(name);
    } catch {
      return undefined; // removed since the order was taken
    }
    if (view.running || view.retry !== undefined) {
      this.#fragments.delete(name);
      return JSON.stringify(view);
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
    head,
    tail,
    timed: view.enabled && !view.running && view.scheduled_in !== null,
    builtAtMs,
  };
}
