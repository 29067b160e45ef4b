// The fleet matrix (docs/dashboard.md "Fleet matrix"): jobs × nodes from `GET /fleet`, polled
// with the jobs only while this panel is open. Column heads carry each node's status and the age
// of its data (`live` for this node), `stale` and `partial` flags; a cell shows running, the last
// outcome with its age, off, never ran, not configured or no data, with the details on hover;
// a failing-only filter; this node's column and, under spread, the owner's cell are accented.
import {
  buildFleetMatrix,
  type FleetCell,
  type FleetMatrix,
  type FleetWire,
} from '../../model/fleet.js';
import { formatAge, formatDuration, formatUtc } from '../../model/format.js';
import type { AppContext } from '../context.js';
import { h, setText } from '../dom.js';
import type { PanelDefinition } from './panel-host.js';

const ROW_LIMIT = 500;

function cellText(cell: FleetCell, nowMs: number): { text: string; title: string } {
  switch (cell.kind) {
    case 'running':
      return { text: '▶ running', title: 'Running now' };
    case 'off':
      return { text: 'off', title: 'Disabled on this node' };
    case 'never':
      return { text: 'never ran', title: 'Configured, no finished run yet' };
    case 'absent':
      return { text: 'not configured', title: 'This node has no such job' };
    case 'no-data':
      return { text: 'no data', title: 'No job list from this node covers this job' };
    case 'last': {
      const glyph = cell.outcome === 'success' ? '✓' : cell.outcome === 'failure' ? '✗' : '■';
      const age = cell.finishedMs === null ? '' : ` ${formatAge(nowMs - cell.finishedMs)}`;
      const title = [
        `${cell.outcome}${cell.exitCode === null ? '' : `, exit ${cell.exitCode}`}`,
        cell.finishedMs === null ? null : `finished ${formatUtc(cell.finishedMs)} UTC`,
        `took ${formatDuration(cell.duration)}`,
        cell.scheduledIn === null ? null : `next fire in ${formatDuration(cell.scheduledIn)}`,
      ]
        .filter((part) => part !== null)
        .join(' · ');
      return { text: `${glyph} ${cell.outcome}${age}`, title };
    }
  }
}

function cellClass(cell: FleetCell): string {
  return cell.kind === 'last' ? `fm-cell fm-${cell.outcome}` : `fm-cell fm-${cell.kind}`;
}

export function renderFleet(
  matrix: FleetMatrix,
  nowMs: number,
  owners: ReadonlyMap<string, string | null>,
): HTMLElement {
  const head = h(
    'tr',
    {},
    h('th', { scope: 'col' }, 'Job'),
    ...matrix.columns.map((column) =>
      h(
        'th',
        {
          scope: 'col',
          class: `fm-node${column.self ? ' fm-self' : ''}${column.stale ? ' fm-stale' : ''}`,
          'data-node': column.node,
        },
        h('span', { class: 'fm-node-name' }, column.node),
        h(
          'span',
          { class: 'fm-node-meta' },
          column.self
            ? 'self · live'
            : `${column.status} · ${column.ageMs === null ? 'never' : formatAge(column.ageMs)}`,
          column.stale ? h('span', { class: 'chip chip-warn' }, 'stale') : null,
          column.partial ? h('span', { class: 'chip chip-warn' }, 'partial') : null,
        ),
      ),
    ),
  );
  const rows = matrix.rows.slice(0, ROW_LIMIT).map((row) =>
    h(
      'tr',
      { 'data-job': row.job },
      h('th', { scope: 'row' }, row.job),
      ...row.cells.map((cell, index) => {
        const { text, title } = cellText(cell, nowMs);
        const owner = owners.get(row.job);
        const owned = owner !== undefined && owner === matrix.columns[index]!.node;
        return h('td', { class: `${cellClass(cell)}${owned ? ' fm-owner' : ''}`, title }, text);
      }),
    ),
  );
  return h(
    'div',
    { class: 'fm-scroll', tabindex: '0', role: 'region', 'aria-label': 'Fleet matrix' },
    h('table', { class: 'data-table fleet-matrix' }, h('thead', {}, head), h('tbody', {}, ...rows)),
  );
}

export const fleetPanel: PanelDefinition = {
  id: 'fleet',
  title: 'Fleet',
  wide: true,
  mount(body, ctx: AppContext) {
    const failingOnly = h('input', { type: 'checkbox' });
    const note = h('p', { class: 'muted' }, 'Loading…');
    const view = h('div', { class: 'fm-view' });
    body.append(
      h(
        'div',
        { class: 'panel-toolbar' },
        h('label', { class: 'check' }, failingOnly, 'Failing only'),
      ),
      note,
      view,
    );
    let latest: FleetWire | null = null;
    const render = (): void => {
      if (latest === null) return;
      const now = ctx.clock.now();
      const matrix = buildFleetMatrix(latest, now, { failingOnly: failingOnly.checked });
      if (matrix === null) {
        setText(
          note,
          'The fleet view is unavailable (no cluster, or a lease backend without the observability overlay).',
        );
        view.replaceChildren();
        return;
      }
      setText(
        note,
        `${matrix.rows.length} of ${matrix.totalRows} jobs on ${matrix.columns.length} nodes${matrix.rows.length > ROW_LIMIT ? ` (the first ${ROW_LIMIT} shown)` : ''}.`,
      );
      const owners = new Map(
        (ctx.store.snapshot?.rows ?? [])
          .filter((row) => row.job.clusterOwner !== undefined)
          .map((row) => [row.name, row.job.clusterOwner ?? null] as const),
      );
      view.replaceChildren(renderFleet(matrix, now, owners));
    };
    failingOnly.addEventListener('change', render);
    let failed = false;
    const poll = async (signal?: AbortSignal): Promise<void> => {
      try {
        const wire = await ctx.api.optionalJson<FleetWire>('/fleet', signal);
        latest = wire ?? { enabled: false, nodes: [] };
        failed = false;
        render();
      } catch (error) {
        if (failed) return;
        failed = true;
        setText(note, error instanceof Error ? error.message : String(error));
      }
    };
    const remove = ctx.poller.addSource({
      id: 'fleet',
      every: 1,
      active: () => true,
      poll: (_api, signal) => poll(signal),
    });
    void poll();
    return { dispose: remove };
  },
};
