// The node meter's history (docs/dashboard.md "The page"): CPU and memory of the daemon's host
// from `GET /node/history`, opened by clicking the header meter (shown only when `/node`
// answers). Re-read every poll while open.
import type { NodeHistoryWire } from '../../model/api-types.js';
import { AsyncView } from '../async-view.js';
import { lineChart } from '../chart.js';
import type { AppContext } from '../context.js';
import { h } from '../dom.js';
import type { PanelDefinition } from './panel-host.js';

export function renderNodeHistory(data: NodeHistoryWire | null): Element[] {
  if (data === null || !data.enabled) {
    return [
      h(
        'p',
        { class: 'muted' },
        'The daemon keeps no node history (web.nodeHistory is off, or host sampling is unavailable).',
      ),
    ];
  }
  const last = data.points[data.points.length - 1];
  return [
    h(
      'p',
      {},
      `${data.node_name}: ${data.points.length} samples every ${data.interval ?? '?'} s${last === undefined ? '' : `; now CPU ${last[1].toFixed(1)}%, memory ${last[2].toFixed(1)}%`}.`,
    ),
    h(
      'figure',
      {},
      lineChart(
        [{ points: data.points.map((p) => [p[0], p[1]] as const), className: 'line-cpu' }],
        { yMax: 100, label: 'Node CPU percent over time' },
      ),
      h('figcaption', {}, 'CPU %'),
    ),
    h(
      'figure',
      {},
      lineChart(
        [{ points: data.points.map((p) => [p[0], p[2]] as const), className: 'line-mem' }],
        { yMax: 100, label: 'Node memory percent over time' },
      ),
      h('figcaption', {}, 'Memory %'),
    ),
  ];
}

export const nodeHistoryPanel: PanelDefinition = {
  id: 'node',
  title: 'Node history',
  mount(body, ctx: AppContext) {
    const view = new AsyncView('node-history');
    body.append(view.element);
    const load = (): void =>
      view.load(async () =>
        renderNodeHistory(await ctx.api.optionalJson<NodeHistoryWire>('/node/history')),
      );
    load();
    return { onSnapshot: load, dispose: () => view.dispose() };
  },
};
