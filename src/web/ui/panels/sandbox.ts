// The cron sandbox (docs/dashboard.md "Panels"): any 5/6/7-field expression or nickname
// in any zone, checked by the daemon's own schedule engine (bundled into the page): validation
// with the engine's message, the English reading, the field breakdown, the next 12 fires with
// countdowns and DST notes, @reboot and impossible schedules called out, the jobs sharing the
// expression, and the recent expressions (kept in localStorage).
import { formatCountdown } from '../../model/format.js';
import { previewSchedule, type FirePreview } from '../../model/schedule-preview.js';
import type { AppContext } from '../context.js';
import { h, setText, uniqueId } from '../dom.js';
import type { PanelDefinition } from './panel-host.js';

const FIELD_NAMES: Readonly<Record<number, readonly string[]>> = {
  5: ['minute', 'hour', 'day of month', 'month', 'day of week'],
  6: ['minute', 'hour', 'day of month', 'month', 'day of week', 'year'],
  7: ['second', 'minute', 'hour', 'day of month', 'month', 'day of week', 'year'],
};

function zoneChoices(): string[] {
  try {
    return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
  } catch {
    return ['UTC'];
  }
}

export const sandboxPanel: PanelDefinition = {
  id: 'sandbox',
  title: 'Cron sandbox',
  mount(body, ctx: AppContext) {
    const exprId = uniqueId('sandbox-expr');
    const zoneId = uniqueId('sandbox-zone');
    const zonesId = uniqueId('sandbox-zones');
    const expression = h('input', {
      id: exprId,
      class: 'sandbox-expr',
      type: 'text',
      value: ctx.prefs.value.recentExpressions[0] ?? '*/15 9-17 * * mon-fri',
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-describedby': `${exprId}-result`,
    });
    const zone = h('input', {
      id: zoneId,
      type: 'text',
      list: zonesId,
      value: 'UTC',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    const zones = h(
      'datalist',
      { id: zonesId },
      ...zoneChoices().map((z) => h('option', { value: z })),
    );
    const result = h('div', {
      id: `${exprId}-result`,
      class: 'sandbox-result',
      'aria-live': 'polite',
    });
    const recent = h('div', { class: 'recent' });
    const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    body.append(
      h(
        'div',
        { class: 'sandbox-form' },
        h('label', { for: exprId }, 'Expression'),
        expression,
        h('label', { for: zoneId }, 'Timezone'),
        h(
          'span',
          { class: 'zone-field' },
          zone,
          zones,
          h(
            'button',
            {
              class: 'btn btn-small',
              type: 'button',
              onclick: () => {
                zone.value = localZone;
                update();
              },
            },
            'Mine',
          ),
          h(
            'button',
            {
              class: 'btn btn-small',
              type: 'button',
              onclick: () => {
                zone.value = 'America/New_York';
                expression.value = '30 2 * 3,11 sun';
                update();
              },
            },
            'DST example',
          ),
        ),
      ),
      result,
      recent,
    );
    let countdowns: { fire: FirePreview; cell: HTMLElement }[] = [];
    const update = (): void => {
      const text = expression.value;
      const preview = previewSchedule(text, zone.value.trim() || 'UTC', ctx.clock.now(), 12);
      countdowns = [];
      expression.setAttribute('aria-invalid', preview.kind === 'invalid' ? 'true' : 'false');
      const parts: HTMLElement[] = [];
      switch (preview.kind) {
        case 'invalid':
          parts.push(h('p', { class: 'error', role: 'alert' }, preview.error));
          break;
        case 'reboot':
          parts.push(
            h('p', { class: 'warn' }, `@reboot runs ${preview.english}; it has no cron fires.`),
          );
          break;
        case 'ok': {
          parts.push(
            h(
              'p',
              { class: 'english' },
              preview.english === null ? 'Valid.' : `Valid: ${preview.english}.`,
            ),
          );
          const fields = text.trim().split(/\s+/);
          const names = FIELD_NAMES[fields.length];
          if (names !== undefined && !text.trim().startsWith('@')) {
            parts.push(
              h(
                'dl',
                { class: 'fields' },
                ...fields.flatMap((field, i) => [
                  h('dt', {}, names[i] ?? ''),
                  h('dd', {}, h('code', {}, field)),
                ]),
              ),
            );
          }
          if (preview.impossible)
            parts.push(
              h(
                'p',
                { class: 'warn' },
                'Impossible: this schedule never fires before the end of 2099.',
              ),
            );
          else {
            parts.push(
              h(
                'ol',
                { class: 'fires' },
                ...preview.fires.map((fire) => {
                  const cell = h('span', { class: 'fire-in' });
                  countdowns.push({ fire, cell });
                  return h(
                    'li',
                    {},
                    h('span', { class: 'fire-wall' }, `${fire.wall} ${fire.offset}`),
                    cell,
                    fire.dstNote === null ? null : h('span', { class: 'dst-note' }, fire.dstNote),
                  );
                }),
              ),
            );
          }
          const sharing =
            ctx.store.snapshot?.rows.filter(
              (row) =>
                row.job.schedule.trim().toLowerCase().replace(/\s+/g, ' ') ===
                text.trim().toLowerCase().replace(/\s+/g, ' '),
            ) ?? [];
          if (sharing.length > 0)
            parts.push(
              h(
                'p',
                { class: 'muted' },
                `Jobs with this schedule: ${sharing
                  .slice(0, 10)
                  .map((row) => row.name)
                  .join(', ')}${sharing.length > 10 ? ` and ${sharing.length - 10} more` : ''}.`,
              ),
            );
          break;
        }
      }
      result.replaceChildren(...parts);
      tick(ctx.clock.now());
    };
    const remember = (): void => {
      const text = expression.value.trim();
      if (text === '' || previewSchedule(text, 'UTC', 0, 1).kind === 'invalid') return;
      const list = [text, ...ctx.prefs.value.recentExpressions.filter((e) => e !== text)].slice(
        0,
        10,
      );
      ctx.prefs.update({ recentExpressions: list });
      renderRecent();
    };
    const renderRecent = (): void => {
      const list = ctx.prefs.value.recentExpressions;
      recent.replaceChildren(
        ...(list.length === 0
          ? []
          : [
              h('h3', {}, 'Recent'),
              h(
                'ul',
                { class: 'recent-list' },
                ...list.map((e) =>
                  h(
                    'li',
                    {},
                    h(
                      'button',
                      {
                        class: 'link-btn',
                        type: 'button',
                        onclick: () => {
                          expression.value = e;
                          update();
                        },
                      },
                      e,
                    ),
                  ),
                ),
              ),
            ]),
      );
    };
    const tick = (now: number): void => {
      for (const { fire, cell } of countdowns) setText(cell, formatCountdown(fire.atMs - now));
    };
    expression.addEventListener('input', update);
    zone.addEventListener('input', update);
    expression.addEventListener('change', remember);
    update();
    renderRecent();
    queueMicrotask(() => expression.focus());
    return { onTick: tick, dispose: () => undefined };
  },
};
