// One archived run's output in the History tab (docs/dashboard.md "Job drawer"): read from
// `GET /jobs/{n}/runs/{id}/output?format=jsonl` and shown in the same LogView as a live run (ANSI
// colours, search, download), under a heading that says which run it is. It lives outside the
// tab's re-rendered content, so a new poll does not close it; Close hands focus back to the button
// that opened it.
// Must not: show anything but the stored (redacted) text the daemon serves.
import type { ArchiveEntryWire } from '../../model/api-types.js';
import { describeArchive, parseArchivedJsonl } from '../../model/archived-output.js';
import { formatUtc, parseIso } from '../../model/format.js';
import { jobPath } from '../api.js';
import type { AppContext } from '../context.js';
import { h, setText, uniqueId } from '../dom.js';
import { LogView } from '../logs/log-view.js';

/** Lines drawn at most (an archive holds at most 2 × saveLimit; the daemon serves ≤ 100,000). */
export const ARCHIVE_VIEW_CAPACITY = 20_000;

export class ArchiveViewer {
  readonly element: HTMLElement;
  readonly #ctx: AppContext;
  readonly #job: string;
  readonly #heading: HTMLElement;
  readonly #summary: HTMLElement;
  readonly #body: HTMLElement;
  #view: LogView | null = null;
  #opener: HTMLElement | null = null;
  #abort: AbortController | null = null;

  constructor(ctx: AppContext, job: string) {
    this.#ctx = ctx;
    this.#job = job;
    const headingId = uniqueId('archive');
    this.#heading = h('h3', { id: headingId, tabindex: -1 });
    this.#summary = h('p', { class: 'muted archive-summary', 'aria-live': 'polite' });
    this.#body = h('div', { class: 'archive-body' });
    const close = h(
      'button',
      {
        class: 'btn btn-small',
        type: 'button',
        'aria-label': 'Close the archived output',
        onclick: () => this.close(),
      },
      'Close',
    );
    this.element = h(
      'section',
      { class: 'archive-viewer', 'aria-labelledby': headingId, hidden: true },
      h('div', { class: 'archive-head' }, this.#heading, close),
      this.#summary,
      this.#body,
    );
    this.element.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || this.element.hidden || event.defaultPrevented) return;
      // A filled search field clears first (the browser's own Escape).
      if (event.target instanceof HTMLInputElement && event.target.value !== '') return;
      // Handled here: the page's Escape (close the drawer) leaves it alone.
      event.preventDefault();
      this.close();
    });
  }

  /** Show `entry`'s output; `opener` gets the focus back on Close. */
  open(entry: ArchiveEntryWire, opener: HTMLElement): void {
    this.#reset();
    this.#opener = opener;
    const finishedMs = parseIso(entry.finished_at);
    const when = finishedMs === null ? entry.finished_at : formatUtc(finishedMs);
    setText(this.#heading, `Output of the run finished ${when}`);
    setText(this.#summary, 'Loading the archived output…');
    const view = new LogView({
      merged: false,
      downloadName: () => `${this.#job}-${entry.finished_at}`,
      label: `Archived output of ${this.#job}, run finished ${when}`,
      capacity: ARCHIVE_VIEW_CAPACITY,
    });
    this.#view = view;
    this.#body.replaceChildren(view.element);
    this.element.hidden = false;
    this.#heading.focus();
    this.element.scrollIntoView({ block: 'nearest' });
    const abort = new AbortController();
    this.#abort = abort;
    const path = `${jobPath(this.#job, `runs/${encodeURIComponent(entry.id)}/output`)}?format=jsonl`;
    this.#ctx.api
      .text(path, abort.signal)
      .then((body) => {
        if (abort.signal.aborted) return;
        const { header, lines } = parseArchivedJsonl(body);
        setText(this.#summary, describeArchive(header, lines.length));
        const atMs = parseIso(header.finished_at) ?? this.#ctx.clock.now();
        for (const { stream, line } of lines) view.append(stream, line, atMs);
        if (lines.length === 0) view.setNotice('The run printed nothing.');
        else if (lines.length > ARCHIVE_VIEW_CAPACITY) {
          view.setNotice(`Showing the last ${ARCHIVE_VIEW_CAPACITY} of ${lines.length} lines.`);
        }
      })
      .catch((error: unknown) => {
        if (abort.signal.aborted) return;
        setText(this.#summary, '');
        view.setNotice(error instanceof Error ? error.message : String(error));
      });
  }

  close(): void {
    this.#reset();
    this.element.hidden = true;
    const opener = this.#opener;
    this.#opener = null;
    if (opener?.isConnected) opener.focus();
  }

  dispose(): void {
    this.#reset();
  }

  #reset(): void {
    this.#abort?.abort();
    this.#abort = null;
    this.#view?.dispose();
    this.#view = null;
    this.#body.replaceChildren();
  }
}
