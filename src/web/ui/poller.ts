// Polls the control API every refresh interval (docs/dashboard.md "What the page calls"): `/jobs`
// each time, `/node` while it answers, `/version` and `/job-set-id` at start and every 15 polls,
// plus any extra source registered by a panel (phase-2 panels: `/cluster`, `/fleet`, ...). Polls
// never overlap; a paused page (interval 0) only polls on demand. The first round may take the
// answer of the early `/jobs` request the page's <head> started (first-jobs.ts).
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { JobSetIdWire, NodeWire } from '../model/api-types.js';
import { JobsDecoder } from '../model/jobs-decoder.js';
import { ApiError, type ApiClient } from './api.js';
import type { FirstJobs } from './first-jobs.js';
import type { AppStore } from './store.js';

/** An extra endpoint polled with the jobs (the phase-2 extension point for cluster views). */
export interface PollSource {
  readonly id: string;
  /** Poll every N-th round (1 = every round). */
  readonly every: number;
  /** False = skip this round (e.g. the fleet view is closed). */
  readonly active: () => boolean;
  readonly poll: (api: ApiClient, signal: AbortSignal) => Promise<void>;
}

const META_EVERY = 15;

export class Poller {
  readonly #api: ApiClient;
  readonly #store: AppStore;
  readonly #clock: Clock;
  readonly #sources = new Map<string, PollSource>();
  readonly #decoder = new JobsDecoder();
  #intervalMs: number;
  #timer: TimerHandle | null = null;
  #inFlight: Promise<void> | null = null;
  #round = 0;
  #stopped = false;
  /** The early request, for the first jobs poll only. */
  #firstJobs: FirstJobs | null;
  readonly #afterPaint: () => Promise<void>;
  /** True from applying an early body that was already in to the end of that round's start. */
  #appliedEarly = false;

  /**
   * `afterPaint` resolves once the frame after the current task is painted (the page's
   * requestAnimationFrame and a task); the first round's other requests wait for it when the
   * rows came from the early body, so they do not delay those rows' frame.
   */
  constructor(
    api: ApiClient,
    store: AppStore,
    clock: Clock,
    intervalMs: number,
    firstJobs: FirstJobs | null = null,
    afterPaint: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.#api = api;
    this.#store = store;
    this.#clock = clock;
    this.#intervalMs = intervalMs;
    this.#firstJobs = firstJobs;
    this.#afterPaint = afterPaint;
  }

  addSource(source: PollSource): () => void {
    this.#sources.set(source.id, source);
    return () => this.#sources.delete(source.id);
  }

  setInterval(intervalMs: number): void {
    this.#intervalMs = intervalMs;
    this.#arm();
  }

  /** Polls now (the `g` key, a new token, an action); resolves when that round is done. */
  refresh(): Promise<void> {
    if (this.#inFlight) return this.#inFlight;
    this.#timer?.cancel();
    this.#timer = null;
    const round = this.#poll().finally(() => {
      this.#inFlight = null;
      this.#arm();
    });
    this.#inFlight = round;
    return round;
  }

  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
  }

  #arm(): void {
    this.#timer?.cancel();
    this.#timer = null;
    if (this.#stopped || this.#intervalMs <= 0 || this.#inFlight) return;
    if (this.#store.connection.state === 'unauthorized') return; // resumes on a new token
    this.#timer = this.#clock.setTimer(() => void this.refresh(), this.#intervalMs);
  }

  async #poll(): Promise<void> {
    const round = this.#round++;
    const signal = AbortSignal.timeout(Math.max(5000, this.#intervalMs * 3));
    const tasks: Promise<unknown>[] = [this.#pollJobs(signal)];
    // Setting up a fetch costs the main thread a few ms; none of these is in the first frame.
    if (this.#appliedEarly) {
      this.#appliedEarly = false;
      await this.#afterPaint();
    }
    if (round % META_EVERY === 0 || this.#store.version === null)
      tasks.push(this.#pollMeta(signal));
    if (this.#store.node.kind !== 'absent') tasks.push(this.#pollNode(signal));
    for (const source of this.#sources.values()) {
      if (round % source.every === 0 && source.active())
        tasks.push(source.poll(this.#api, signal).catch(() => undefined));
    }
    await Promise.all(tasks);
  }

  /**
   * The jobs of this round. An early body that is already in is applied at once, before this
   * returns (the first round runs inside startApp, so the first frame has the rows).
   */
  #pollJobs(signal: AbortSignal): Promise<void> {
    const first = this.#firstJobs;
    this.#firstJobs = null;
    const settled = first?.settled ?? null;
    if (settled?.kind !== 'body') return this.#fetchJobs(first, signal);
    this.#appliedEarly = true;
    try {
      this.applyJobs(settled.text, this.#clock.now());
    } catch (error) {
      this.#jobsFailed(error);
    }
    return Promise.resolve();
  }

  async #fetchJobs(first: FirstJobs | null, signal: AbortSignal): Promise<void> {
    try {
      const early = first === null ? null : await first.answer;
      const body = early?.kind === 'body' ? early.text : await this.#api.jsonText('/jobs', signal);
      this.applyJobs(body, this.#clock.now());
    } catch (error) {
      this.#jobsFailed(error);
    }
  }

  #jobsFailed(error: unknown): void {
    if (error instanceof ApiError && error.status === 401)
      this.#store.setConnection({ state: 'unauthorized' });
    else
      this.#store.setConnection({
        state: 'error',
        message: error instanceof Error ? error.message : String(error),
      });
  }

  /**
   * Applies one `/jobs` body to the store, parsing only the jobs that changed since the last
   * body (model/jobs-decoder.ts). Public for the benchmark, which times exactly this step.
   */
  applyJobs(body: string, polledAtMs: number): void {
    this.#store.setJobs(this.#decoder.decode(body), polledAtMs);
  }

  async #pollMeta(signal: AbortSignal): Promise<void> {
    try {
      const [version, jobSet] = await Promise.all([
        this.#api.text('/version', signal),
        this.#api.json<JobSetIdWire>('/job-set-id', signal),
      ]);
      this.#store.setMeta(version, jobSet.job_set_id);
    } catch {
      // The jobs poll reports connection trouble; the header keeps the last values.
    }
  }

  async #pollNode(signal: AbortSignal): Promise<void> {
    try {
      const node = await this.#api.optionalJson<NodeWire>('/node', signal);
      this.#store.setNode(node === null ? { kind: 'absent' } : { kind: 'present', node });
    } catch {
      // Transient: try again next round.
    }
  }
}
