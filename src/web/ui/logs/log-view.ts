// A log view (docs/dashboard.md "Job drawer", "Panels"): renders a bounded LogBuffer with
// ANSI colours (toggle), stderr styled apart, line numbers, optional timestamps, search (plain or
// regex) with a count, Enter/Shift-Enter to jump, matches-only, follow and wrap toggles,
// download and clear. New lines are drawn once per animation frame, however fast they arrive.
import { AnsiParser } from '../../model/ansi.js';
import { pad2 } from '../../model/format.js';
import { LogBuffer, compileSearch, type LogLine, type LogStream } from '../../model/log-buffer.js';
import { downloadText, fileSlug } from '../clipboard.js';
import { h, setText, uniqueId } from '../dom.js';
import { renderSegments } from './ansi-render.js';

export interface LogViewOptions {
  /** Lines carry a `[job]` prefix in a stable colour (the multi-tail). */
  readonly merged: boolean;
  readonly downloadName: () => string;
  readonly label: string;
  /** Extra controls for the toolbar (Run / Cancel). */
  readonly extra?: readonly HTMLElement[];
  readonly capacity?: number;
}

export class LogView {
  readonly element: HTMLElement;
  readonly buffer: LogBuffer;
  readonly #options: LogViewOptions;
  readonly #lines: HTMLElement;
  readonly #notice: HTMLElement;
  readonly #count: HTMLElement;
  readonly #search: HTMLInputElement;
  readonly #regex: HTMLInputElement;
  readonly #onlyHits: HTMLInputElement;
  readonly #follow: HTMLInputElement;
  readonly #ansi: HTMLInputElement;
  #parsers = new Map<string, AnsiParser>();
  #lastRendered = 0;
  #frame = 0;
  #test: ((plain: string) => boolean) | null = null;
  #hits: HTMLElement[] = [];
  #current = -1;
  #autoScrolling = false;

  constructor(options: LogViewOptions) {
    this.#options = options;
    this.buffer = new LogBuffer(options.capacity);
    const toggle = (
      label: string,
      checked: boolean,
      onChange: (on: boolean) => void,
    ): [HTMLElement, HTMLInputElement] => {
      const box = h('input', { type: 'checkbox', checked });
      box.addEventListener('change', () => onChange(box.checked));
      return [h('label', { class: 'check' }, box, label), box];
    };
    const searchId = uniqueId('logsearch');
    this.#search = h('input', {
      id: searchId,
      type: 'search',
      class: 'log-search',
      placeholder: 'Search log',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    this.#count = h('span', { class: 'log-count', 'aria-live': 'polite' });
    this.#lines = h('div', {
      class: 'log-lines ansi wrap',
      role: 'log',
      'aria-live': 'off',
      'aria-label': options.label,
      tabindex: 0,
    });
    this.#notice = h('p', { class: 'log-notice', hidden: true });
    const [regexLabel, regex] = toggle('Regex', false, () => this.#applySearch());
    const [onlyLabel, onlyHits] = toggle('Matches only', false, (on) =>
      this.#lines.classList.toggle('only-hits', on),
    );
    const [followLabel, follow] = toggle('Follow', true, (on) => on && this.#scrollToEnd());
    const [wrapLabel] = toggle('Wrap', true, (on) => this.#lines.classList.toggle('wrap', on));
    const [ansiLabel, ansi] = toggle('Colours', true, (on) => {
      this.#lines.classList.toggle('ansi', on);
      this.#redraw();
    });
    const [timeLabel] = toggle('Times', false, (on) =>
      this.#lines.classList.toggle('show-times', on),
    );
    const [numbersLabel] = toggle('Line numbers', true, (on) =>
      this.#lines.classList.toggle('hide-numbers', !on),
    );
    this.#regex = regex;
    this.#onlyHits = onlyHits;
    this.#follow = follow;
    this.#ansi = ansi;
    this.#search.addEventListener('input', () => this.#applySearch());
    this.#search.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        this.#jump(event.shiftKey ? -1 : 1);
      }
    });
    this.#lines.addEventListener(
      'scroll',
      () => {
        if (this.#autoScrolling) return;
        const atEnd =
          this.#lines.scrollHeight - this.#lines.scrollTop - this.#lines.clientHeight < 8;
        if (this.#follow.checked !== atEnd) this.#follow.checked = atEnd;
      },
      { passive: true },
    );
    const button = (label: string, onclick: () => void): HTMLElement =>
      h('button', { class: 'btn btn-small', type: 'button', onclick }, label);
    this.element = h(
      'div',
      { class: 'log-view' },
      h(
        'div',
        { class: 'log-toolbar' },
        ...(options.extra ?? []),
        h('label', { class: 'visually-hidden', for: searchId }, `Search ${options.label}`),
        this.#search,
        this.#count,
        regexLabel,
        onlyLabel,
        followLabel,
        wrapLabel,
        ansiLabel,
        timeLabel,
        numbersLabel,
        button('Download', () =>
          downloadText(`${fileSlug(options.downloadName())}.log`, this.buffer.toText()),
        ),
        button('Clear', () => this.clear()),
      ),
      this.#notice,
      this.#lines,
    );
  }

  append(stream: LogStream, text: string, atMs: number, job: string | null = null): void {
    this.buffer.add(stream, text, atMs, job);
    this.#schedule();
  }

  mark(text: string, atMs: number, job: string | null = null): void {
    this.buffer.mark(text, atMs, job);
    this.#schedule();
  }

  /** A message above the lines (no output captured, connecting, errors); null hides it. */
  setNotice(text: string | null): void {
    this.#notice.hidden = text === null;
    setText(this.#notice, text ?? '');
  }

  clear(): void {
    this.buffer.clear();
    this.#lines.replaceChildren();
    this.#parsers.clear();
    this.#lastRendered = 0;
    this.#hits = [];
    this.#current = -1;
    this.#updateCount();
  }

  dispose(): void {
    if (this.#frame !== 0) cancelAnimationFrame(this.#frame);
  }

  focusSearch(): void {
    this.#search.focus();
  }

  #schedule(): void {
    if (this.#frame !== 0) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.#flush();
    });
  }

  #flush(): void {
    const lines = this.buffer.lines;
    const firstKept = lines[0]?.number ?? Infinity;
    // Lines the buffer dropped leave the DOM too.
    while (
      this.#lines.firstElementChild !== null &&
      Number((this.#lines.firstElementChild as HTMLElement).dataset['n']) < firstKept
    ) {
      const gone = this.#lines.firstElementChild as HTMLElement;
      if (gone.classList.contains('hit')) this.#hits.shift();
      gone.remove();
    }
    const fragment = document.createDocumentFragment();
    let start = lines.length;
    while (start > 0 && lines[start - 1]!.number > this.#lastRendered) start -= 1;
    for (let i = start; i < lines.length; i++) {
      const line = lines[i]!;
      const element = this.#renderLine(line);
      if (this.#test !== null && this.#test(line.kind === 'line' ? line.plain : line.text)) {
        element.classList.add('hit');
        this.#hits.push(element);
      }
      fragment.append(element);
      this.#lastRendered = line.number;
    }
    this.#lines.append(fragment);
    this.#current = Math.min(this.#current, this.#hits.length - 1);
    this.#updateCount();
    if (this.#follow.checked) this.#scrollToEnd();
  }

  #renderLine(line: LogLine): HTMLElement {
    const element = h('div', {
      class: line.kind === 'marker' ? 'ln ln-marker' : `ln ln-${line.stream}`,
      'data-n': line.number,
    });
    const d = new Date(line.atMs);
    element.append(
      h('span', { class: 'ln-no', 'aria-hidden': 'true' }, String(line.number)),
      h(
        'span',
        { class: 'ln-ts' },
        `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`,
      ),
    );
    if (this.#options.merged && line.job !== null) {
      element.append(h('span', { class: `ln-job job-hue-${jobHue(line.job)}` }, `[${line.job}]`));
    }
    const text = h('span', { class: 'ln-text' });
    if (line.kind === 'marker') text.textContent = line.text;
    else if (this.#ansi.checked) {
      const key = `${line.job ?? ''}\n${line.stream}`;
      let parser = this.#parsers.get(key);
      if (parser === undefined) {
        parser = new AnsiParser();
        this.#parsers.set(key, parser);
      }
      renderSegments(text, parser.parse(line.raw));
    } else text.textContent = line.plain;
    if (line.kind === 'line' && line.stream === 'stderr')
      text.prepend(h('span', { class: 'visually-hidden' }, 'stderr: '));
    element.append(text);
    return element;
  }

  #redraw(): void {
    this.#lines.replaceChildren();
    this.#parsers.clear();
    this.#lastRendered = 0;
    this.#hits = [];
    this.#current = -1;
    this.#flush();
  }

  #applySearch(): void {
    const matcher = compileSearch({ text: this.#search.value, regex: this.#regex.checked });
    this.#search.setCustomValidity(matcher.ok ? '' : matcher.error);
    this.#test = matcher.ok && this.#search.value !== '' ? matcher.test : null;
    this.#hits = [];
    this.#current = -1;
    const byNumber = new Map(this.buffer.lines.map((line) => [line.number, line]));
    for (const element of this.#lines.children) {
      const line = byNumber.get(Number((element as HTMLElement).dataset['n']));
      const hit =
        this.#test !== null &&
        line !== undefined &&
        this.#test(line.kind === 'line' ? line.plain : line.text);
      element.classList.toggle('hit', hit);
      element.classList.remove('hit-current');
      if (hit) this.#hits.push(element as HTMLElement);
    }
    this.#lines.classList.toggle('only-hits', this.#onlyHits.checked);
    this.#updateCount(matcher.ok ? null : matcher.error);
  }

  #jump(delta: number): void {
    if (this.#hits.length === 0) return;
    this.#hits[this.#current]?.classList.remove('hit-current');
    this.#current = (this.#current + delta + this.#hits.length) % this.#hits.length;
    const target = this.#hits[this.#current]!;
    target.classList.add('hit-current');
    this.#follow.checked = false;
    target.scrollIntoView({ block: 'center' });
    this.#updateCount();
  }

  #updateCount(error: string | null = null): void {
    if (error !== null) setText(this.#count, 'bad regex');
    else if (this.#search.value === '') setText(this.#count, `${this.buffer.size} lines`);
    else
      setText(
        this.#count,
        `${this.#current >= 0 ? `${this.#current + 1} of ` : ''}${this.#hits.length} match${this.#hits.length === 1 ? '' : 'es'}`,
      );
  }

  #scrollToEnd(): void {
    this.#autoScrolling = true;
    this.#lines.scrollTop = this.#lines.scrollHeight;
    requestAnimationFrame(() => (this.#autoScrolling = false));
  }
}

/** One of 8 stable colours for a job name (the multi-tail's prefixes). */
export function jobHue(name: string): number {
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) | 0;
  return Math.abs(hash) % 8;
}
