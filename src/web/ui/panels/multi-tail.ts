// The multi-tail (docs/dashboard.md "Panels"): up to four jobs' output merged in one view,
// each line prefixed with its job in a stable colour; jobs are added by name (with completion)
// or by preset (+failing, +running), removed or opened from their chips, and each stream
// re-attaches for the job's next run with an end-of-run marker between runs.
import type { AppContext, PanelOpenOptions } from '../context.js';
import { h, uniqueId } from '../dom.js';
import { JobStream } from '../logs/job-stream.js';
import { LogView, jobHue } from '../logs/log-view.js';
import type { PanelDefinition } from './panel-host.js';

export const MAX_TAILS = 4;

export const multiTailPanel: PanelDefinition = {
  id: 'tail',
  title: 'Multi-tail',
  wide: true,
  mount(body, ctx: AppContext, options: PanelOpenOptions) {
    const streams = new Map<string, JobStream>();
    const view = new LogView({
      merged: true,
      downloadName: () => `tail-${[...streams.keys()].join('-')}`,
      label: 'Merged output',
    });
    const chips = h('ul', { class: 'tail-chips', 'aria-label': 'Tailed jobs' });
    const inputId = uniqueId('tail-add');
    const listId = uniqueId('tail-jobs');
    const input = h('input', {
      id: inputId,
      type: 'text',
      list: listId,
      placeholder: 'Job name',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    const datalist = h('datalist', { id: listId });
    const add = (job: string): void => {
      if (streams.has(job) || ctx.store.snapshot?.byName.get(job) === undefined) return;
      if (streams.size >= MAX_TAILS) {
        ctx.toast(`The multi-tail follows at most ${MAX_TAILS} jobs`, 'error');
        return;
      }
      const stream = new JobStream(ctx, job, {
        attach: () => undefined,
        line: (kind, text) => view.append(kind, text, ctx.clock.now(), job),
        end: (reason) => {
          if (reason === 'ended') view.mark('── end of run output ──', ctx.clock.now(), job);
        },
        notice: (text) => {
          if (text !== null) view.mark(text, ctx.clock.now(), job);
        },
      });
      streams.set(job, stream);
      stream.connect();
      renderChips();
    };
    const remove = (job: string): void => {
      streams.get(job)?.dispose();
      streams.delete(job);
      renderChips();
    };
    const renderChips = (): void => {
      chips.replaceChildren(
        ...[...streams.keys()].map((job) =>
          h(
            'li',
            { class: `tail-chip job-hue-${jobHue(job)}` },
            h(
              'button',
              {
                class: 'link-btn',
                type: 'button',
                title: `Open ${job}`,
                onclick: () => ctx.nav.openJob(job, 'logs'),
              },
              job,
            ),
            h(
              'button',
              {
                class: 'icon-btn icon-small',
                type: 'button',
                'aria-label': `Stop tailing ${job}`,
                onclick: () => remove(job),
              },
              h('span', { 'aria-hidden': 'true' }, '✕'),
            ),
          ),
        ),
      );
      view.setNotice(
        streams.size === 0 ? 'Add up to four jobs to follow their output together.' : null,
      );
    };
    const addPreset = (pick: (running: boolean, failed: boolean) => boolean): void => {
      for (const row of ctx.store.snapshot?.rows ?? []) {
        if (streams.size >= MAX_TAILS) break;
        if (pick(row.job.running, row.job.last_run?.outcome === 'failure')) add(row.name);
      }
    };
    const form = h(
      'form',
      {
        class: 'panel-toolbar',
        onsubmit: (event: Event) => {
          event.preventDefault();
          add(input.value.trim());
          input.value = '';
        },
      },
      h('label', { for: inputId }, 'Add job'),
      input,
      datalist,
      h('button', { class: 'btn', type: 'submit' }, 'Add'),
      h(
        'button',
        { class: 'btn', type: 'button', onclick: () => addPreset((_, failed) => failed) },
        '+ failing',
      ),
      h(
        'button',
        { class: 'btn', type: 'button', onclick: () => addPreset((running) => running) },
        '+ running',
      ),
    );
    body.append(form, chips, view.element);
    for (const job of options.jobs ?? []) add(job);
    renderChips();
    return {
      onSnapshot(snapshot) {
        if (datalist.childElementCount === Math.min(snapshot.rows.length, 500)) return;
        datalist.replaceChildren(
          ...snapshot.rows.slice(0, 500).map((row) => h('option', { value: row.name })),
        );
      },
      dispose() {
        for (const stream of streams.values()) stream.dispose();
        view.dispose();
      },
    };
  },
};
