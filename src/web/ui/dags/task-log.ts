// A DAG task's live output in the run drawer (docs/dashboard.md "DAG cards and the run
// drawer"): the task log stream (`/dags/{n}/runs/{k}/tasks/{t}/logs`, server-sent events read
// with the token) into a bounded view (escapes stripped), stderr styled apart. Only an attempt running on the
// node this page talks to has output; anything else ends at once with `no-output`, and the view
// says so. It re-attaches when the drawer sees a new attempt of the task start.
// Must not: keep more than LINE_LIMIT lines, or leave a stream open after dispose.
import { stripAnsi } from '../../model/ansi.js';
import { dagRunPath } from '../../model/dags.js';
import type { AppContext } from '../context.js';
import { h, setText } from '../dom.js';

export const LINE_LIMIT = 2000;

export class TaskLog {
  readonly element: HTMLElement;
  readonly #ctx: AppContext;
  readonly #path: string;
  readonly #pre: HTMLElement;
  readonly #note: HTMLElement;
  #abort: AbortController | null = null;
  /** The attempt whose output was asked for (re-attach when a newer one runs). */
  #attempt = -1;

  constructor(ctx: AppContext, dag: string, runKey: string, taskKey: string) {
    this.#ctx = ctx;
    this.#path = dagRunPath(dag, runKey, `tasks/${encodeURIComponent(taskKey)}/logs`);
    this.#pre = h('pre', {
      class: 'dag-log',
      tabindex: '0',
      role: 'log',
      'aria-label': `Output of ${taskKey}`,
    });
    this.#note = h('p', { class: 'muted dag-log-note', role: 'status' });
    this.element = h(
      'div',
      { class: 'dag-log-view' },
      h(
        'div',
        { class: 'panel-toolbar' },
        h('strong', {}, `Output of ${taskKey}`),
        h(
          'button',
          { class: 'btn btn-small', type: 'button', onclick: () => this.connect(this.#attempt) },
          'Reconnect',
        ),
      ),
      this.#note,
      this.#pre,
    );
  }

  /** Follows the task when it (re)starts an attempt; called with every run document. */
  onAttempt(attempt: number, running: boolean): void {
    if (running && attempt !== this.#attempt) this.connect(attempt);
    else if (this.#attempt === -1) this.connect(attempt);
  }

  connect(attempt: number): void {
    this.#abort?.abort();
    const abort = new AbortController();
    this.#abort = abort;
    this.#attempt = attempt;
    this.#pre.replaceChildren();
    setText(this.#note, 'Connecting…');
    let reason: 'ended' | 'no-output' = 'ended';
    this.#ctx.api
      .stream(
        this.#path,
        (event) => {
          if (event.event === 'line') {
            const data = JSON.parse(event.data) as { stream?: string; line?: string };
            this.#line(data.stream === 'stderr' ? 'stderr' : 'stdout', data.line ?? '');
          } else if (event.event === 'end') {
            const data = JSON.parse(event.data) as { reason?: string };
            if (data.reason === 'no-output') reason = 'no-output';
          }
        },
        abort.signal,
      )
      .then(() => {
        if (abort.signal.aborted) return;
        setText(
          this.#note,
          reason === 'no-output'
            ? 'No live output: only an attempt running on this node streams its output, and a finished attempt keeps none here.'
            : '── end of the attempt’s output ──',
        );
      })
      .catch((error: unknown) => {
        if (abort.signal.aborted) return;
        setText(
          this.#note,
          `Log stream interrupted: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
  }

  #line(stream: 'stdout' | 'stderr', text: string): void {
    if (this.#note.textContent === 'Connecting…') setText(this.#note, 'Live');
    const span = h(
      'span',
      { class: stream === 'stderr' ? 'line line-stderr' : 'line' },
      stripAnsi(text),
    );
    this.#pre.append(span, '\n');
    // Two nodes per line; drop the oldest beyond the bound.
    while (this.#pre.childNodes.length > LINE_LIMIT * 2) {
      this.#pre.firstChild?.remove();
      this.#pre.firstChild?.remove();
    }
  }

  dispose(): void {
    this.#abort?.abort();
    this.#abort = null;
  }
}
