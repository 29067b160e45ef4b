// The incident timeline (docs/dashboard.md "Panels", key `i`): every job's latest
// finished run, newest first, with its age, outcome, exit code, reason and duration; a
// failing-only filter; the jobs the verdict correlates are highlighted.
import { formatAge, formatDuration } from '../../model/format.js';
import { STATUS_META, outcomeStatus, type JobRow } from '../../model/job-status.js';
import type { AppContext } from '../context.js';
import { h, setText } from '../dom.js';
import type { Snapshot } from '../store.js';
import type { PanelDefinition } from './panel-host.js';

const LIMIT = 500;

export const timelinePanel: PanelDefinition = {
  id: 'timeline',
  title: 'Incident timeline',
  keys: 'i',
  mount(body, ctx: AppContext) {
    const onlyFailing = h('input', { type: 'checkbox' });
    const list = h('ol', { class: 'timeline' });
    const note = h('p', { class: 'muted' });
    body.append(
      h(
        'div',
        { class: 'panel-toolbar' },
        h('label', { class: 'check' }, onlyFailing, 'Failing only'),
      ),
      note,
      list,
    );
    let ages: { cell: HTMLElement; atMs: number }[] = [];
    const render = (snapshot: Snapshot): void => {
      const correlated = new Set(
        snapshot.verdict.kind === 'correlated' ? snapshot.verdict.group.jobs : [],
      );
      const rows = snapshot.rows
        .filter((row): row is JobRow & { lastFinishedMs: number } => row.lastFinishedMs !== null)
        .filter((row) => !onlyFailing.checked || row.job.last_run?.outcome === 'failure')
        .sort((a, b) => b.lastFinishedMs - a.lastFinishedMs);
      setText(
        note,
        rows.length === 0
          ? 'No finished runs yet.'
          : rows.length > LIMIT
            ? `Showing the newest ${LIMIT} of ${rows.length}.`
            : `${rows.length} jobs with a finished run.`,
      );
      ages = [];
      list.replaceChildren(
        ...rows.slice(0, LIMIT).map((row) => {
          const run = row.job.last_run!;
          const status = outcomeStatus(run.outcome);
          const age = h('span', { class: 'tl-age' });
          ages.push({ cell: age, atMs: row.lastFinishedMs });
          return h(
            'li',
            { class: `tl-item${correlated.has(row.name) ? ' tl-correlated' : ''}` },
            age,
            h(
              'span',
              { class: `status status-${status}` },
              h('span', { class: 'glyph', 'aria-hidden': 'true' }, STATUS_META[status].glyph),
              h('span', { class: 'visually-hidden' }, STATUS_META[status].label),
            ),
            h('a', { class: 'job-link', href: `#job/${encodeURIComponent(row.name)}` }, row.name),
            h('span', { class: 'tl-exit' }, run.exit_code === null ? '' : `exit ${run.exit_code}`),
            h('span', { class: 'tl-dur' }, formatDuration(run.duration)),
            h('span', { class: 'tl-reason' }, run.fail_reason ?? ''),
            correlated.has(row.name) ? h('span', { class: 'chip chip-warn' }, 'correlated') : null,
          );
        }),
      );
      tick(ctx.clock.now());
    };
    const tick = (now: number): void => {
      for (const { cell, atMs } of ages) setText(cell, `${formatAge(now - atMs)} ago`);
    };
    onlyFailing.addEventListener('change', () => {
      const snapshot = ctx.store.snapshot;
      if (snapshot !== null) render(snapshot);
    });
    list.addEventListener('click', (event) => {
      if ((event.target as HTMLElement).closest('a') !== null) ctx.nav.closeTop();
    });
    return { onSnapshot: render, onTick: tick, dispose: () => undefined };
  },
};
