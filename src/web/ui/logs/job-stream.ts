// Follows one job's output across runs (docs/dashboard.md "Job drawer", "Panels"): opens the
// job's log stream (replay, then live lines, then `end`), and once it ended re-attaches when
// the polled job list shows a newer run — a new run running, or a finished run we have not
// shown — so a tail left open keeps showing each run. A manual start re-attaches at once.
import type { JobWire } from '../../model/api-types.js';
import type { LogStream } from '../../model/log-buffer.js';
import { jobPath } from '../api.js';
import type { AppContext } from '../context.js';

export interface JobStreamSink {
  line(stream: LogStream, text: string): void;
  /** The run's output closed (`ended`), or the job has no output to show (`no-output`). */
  end(reason: 'ended' | 'no-output'): void;
  /** Connection trouble worth a notice (null clears it). */
  notice(text: string | null): void;
  /** Called just before a new connection replays a run. */
  attach(): void;
}

type State =
  | { readonly kind: 'idle' }
  | { readonly kind: 'streaming'; readonly abort: AbortController }
  | { readonly kind: 'ended' };

/** True when the job keeps no output at all (the page says so instead of waiting). */
export function capturesNothing(job: JobWire): boolean {
  return !job.captureStdout && !job.captureStderr;
}

export class JobStream {
  readonly job: string;
  readonly #ctx: AppContext;
  readonly #sink: JobStreamSink;
  #state: State = { kind: 'idle' };
  /** finished_at of the newest run shown (or known not to be new). */
  #baseline: string | null = null;
  /** The stream followed a live run whose finish the job list has not shown yet. */
  #awaitingOwnFinish = false;
  readonly #off: () => void;
  #disposed = false;

  constructor(ctx: AppContext, job: string, sink: JobStreamSink) {
    this.#ctx = ctx;
    this.job = job;
    this.#sink = sink;
    this.#off = ctx.store.on('snapshot', (snapshot) => {
      const row = snapshot.byName.get(job);
      if (row !== undefined) this.#onJob(row.job);
    });
  }

  /**
   * Connects now (first open, or after a manual start). The job list is re-read first, so the
   * run the stream replays is the one the list shows: a re-attach never replays a run twice.
   */
  connect(): void {
    if (this.#disposed) return;
    if (this.#state.kind === 'streaming') this.#state.abort.abort();
    const abort = new AbortController();
    this.#state = { kind: 'streaming', abort };
    void this.#ctx.poller.refresh().then(() => {
      if (!abort.signal.aborted && !this.#disposed) this.#open(abort);
    });
  }

  #open(abort: AbortController): void {
    const job = this.#ctx.store.snapshot?.byName.get(this.job)?.job;
    if (job !== undefined && capturesNothing(job)) {
      this.#state = { kind: 'ended' };
      this.#sink.end('no-output');
      return;
    }
    this.#baseline = job?.last_run?.finished_at ?? null;
    this.#awaitingOwnFinish = job?.running ?? false;
    this.#sink.attach();
    const result: { ended: 'ended' | 'no-output' } = { ended: 'ended' };
    this.#ctx.api
      .stream(
        jobPath(this.job, 'logs'),
        (event) => {
          if (event.event === 'line') {
            const data = JSON.parse(event.data) as { stream?: string; line?: string };
            this.#sink.line(data.stream === 'stderr' ? 'stderr' : 'stdout', data.line ?? '');
          } else if (event.event === 'end') {
            const data = JSON.parse(event.data) as { reason?: string };
            result.ended = data.reason === 'no-output' ? 'no-output' : 'ended';
          }
        },
        abort.signal,
      )
      .then(() => {
        if (abort.signal.aborted) return;
        this.#sink.notice(null);
        this.#finish(result.ended);
      })
      .catch((error: unknown) => {
        if (abort.signal.aborted) return;
        this.#sink.notice(
          `Log stream interrupted: ${error instanceof Error ? error.message : String(error)}`,
        );
        this.#finish('ended');
      });
  }

  #finish(reason: 'ended' | 'no-output'): void {
    if (reason === 'no-output') this.#awaitingOwnFinish = false;
    this.#state = { kind: 'ended' };
    this.#sink.end(reason);
  }

  #onJob(job: JobWire): void {
    if (this.#state.kind !== 'ended' || capturesNothing(job)) return;
    const finished = job.last_run?.finished_at ?? null;
    if (this.#awaitingOwnFinish) {
      if (finished === this.#baseline) return; // our run is not recorded yet
      this.#awaitingOwnFinish = false;
      this.#baseline = finished;
      if (job.running) this.connect();
      return;
    }
    if (job.running || finished !== this.#baseline) this.connect();
  }

  dispose(): void {
    this.#disposed = true;
    this.#off();
    if (this.#state.kind === 'streaming') this.#state.abort.abort();
    this.#state = { kind: 'idle' };
  }
}
