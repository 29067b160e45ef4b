// The drawer's Schedule tab (docs/dashboard.md "Job drawer"): the expression in English, the
// next fires in the job's frame with countdowns and daylight-saving notes, and a summary.
import { formatCountdown, formatUtc } from '../../model/format.js';
import { timezoneLabel } from '../../model/job-status.js';
import { previewSchedule, type FirePreview } from '../../model/schedule-preview.js';
import { h, setText } from '../dom.js';
import type { DrawerTab, DrawerTabInstance } from './tab.js';

/** The zone a job's schedule runs in; `local` (the daemon's zone) is shown in the browser's. */
export function frameOf(timezone: string | null): { zone: string; note: string | null } {
  if (timezone !== null) return { zone: timezone, note: null };
  const browser = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return {
    zone: browser,
    note: `This job runs on the daemon's local time; fires are shown in this browser's zone (${browser}), which may differ.`,
  };
}

export const scheduleTab: DrawerTab = {
  id: 'schedule',
  label: 'Schedule',
  available: () => Promise.resolve(true),
  mount(host, ctx, job): DrawerTabInstance {
    const body = h('div', { class: 'schedule-tab' });
    host.append(body);
    let key = '';
    let countdowns: { fire: FirePreview; cell: HTMLElement }[] = [];
    const render = (): void => {
      const row = ctx.store.snapshot?.byName.get(job);
      if (row === undefined) {
        body.replaceChildren(
          h('p', { class: 'muted' }, 'This job is not in the configuration any more.'),
        );
        return;
      }
      const nextKey = `${row.job.schedule}|${row.job.timezone ?? ''}|${row.job.enabled}`;
      if (nextKey === key) return;
      key = nextKey;
      const frame = frameOf(row.job.timezone);
      const preview = previewSchedule(row.job.schedule, frame.zone, ctx.clock.now(), 12);
      const parts: HTMLElement[] = [
        h(
          'p',
          {},
          h('code', { class: 'expr' }, row.job.schedule),
          ' ',
          h('span', { class: 'tz-pill' }, timezoneLabel(row.job)),
        ),
      ];
      countdowns = [];
      switch (preview.kind) {
        case 'reboot':
          parts.push(h('p', { class: 'english' }, `Runs ${preview.english}: no cron fires.`));
          break;
        case 'invalid':
          parts.push(h('p', { class: 'error' }, preview.error));
          break;
        case 'ok': {
          parts.push(
            h(
              'p',
              { class: 'english' },
              preview.english === null ? 'A custom schedule.' : capitalise(preview.english) + '.',
            ),
          );
          if (frame.note !== null) parts.push(h('p', { class: 'muted' }, frame.note));
          if (preview.zoneHasDst)
            parts.push(
              h(
                'p',
                { class: 'muted' },
                'This zone changes its clocks: a fire whose wall time is skipped runs just after the jump, and a repeated wall time fires on its first pass only.',
              ),
            );
          if (preview.impossible)
            parts.push(
              h(
                'p',
                { class: 'warn' },
                'This schedule never fires (no matching time before the end of 2099).',
              ),
            );
          else {
            const rows = preview.fires.map((fire) => {
              const cell = h('td', { class: 'num' });
              countdowns.push({ fire, cell });
              return h(
                'tr',
                {},
                h('td', {}, fire.wall),
                h('td', {}, fire.offset),
                cell,
                h('td', { class: 'reason' }, fire.dstNote ?? ''),
              );
            });
            parts.push(
              h(
                'div',
                { class: 'table-wrap' },
                h(
                  'table',
                  { class: 'runs' },
                  h('caption', {}, `Next ${preview.fires.length} fires (${preview.timezone})`),
                  h(
                    'thead',
                    {},
                    h(
                      'tr',
                      {},
                      ...['Wall time', 'Offset', 'In', 'Daylight saving'].map((label) =>
                        h('th', { scope: 'col' }, label),
                      ),
                    ),
                  ),
                  h('tbody', {}, ...rows),
                ),
              ),
            );
          }
          break;
        }
      }
      parts.push(
        h(
          'dl',
          { class: 'summary' },
          h('dt', {}, 'Enabled'),
          h('dd', {}, row.job.enabled ? 'yes' : 'no (manual runs are refused)'),
          h('dt', {}, 'Frame'),
          h('dd', {}, row.job.timezone === null ? 'daemon local time' : row.job.timezone),
          h('dt', {}, 'Next fire (daemon)'),
          h('dd', {}, row.nextFireMs === null ? '—' : formatUtc(row.nextFireMs)),
          h('dt', {}, 'Command'),
          h('dd', {}, h('code', {}, row.job.command)),
        ),
      );
      body.replaceChildren(...parts);
      tick(ctx.clock.now());
    };
    const tick = (now: number): void => {
      if (countdowns.length > 0 && countdowns[0]!.fire.atMs <= now) {
        key = '';
        render();
        return;
      }
      for (const { fire, cell } of countdowns) setText(cell, formatCountdown(fire.atMs - now));
    };
    render();
    return { onRow: render, onTick: tick, dispose: () => undefined };
  },
};

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
