// The run drawer's task graph (docs/dashboard.md "DAG cards and the run drawer"): the DAG's
// tasks laid out by dependency (model/dags.ts layoutGraph), one button per task coloured by its
// state with glyph and word, arrows from upstream to downstream in an SVG layer underneath. A
// mapped task is one node with its instances summarised; a waiting gate says so. Built once per
// DAG shape; each run document only updates the nodes' state, so focus and selection survive.
// Must not: use style attributes (positions go through the CSSOM; the page's CSP forbids them).
import {
  groupText,
  layoutGraph,
  nodeView,
  STATE_META,
  type DagTaskWire,
  type GraphNodeView,
  type RunDocument,
} from '../../model/dags.js';
import { h, setText, svg } from '../dom.js';

const NODE_W = 168;
const NODE_H = 48;
const GAP_X = 44;
const GAP_Y = 14;
const PAD = 8;

interface NodeParts {
  readonly button: HTMLButtonElement;
  readonly glyph: HTMLElement;
  readonly detail: HTMLElement;
}

export class TaskGraph {
  readonly element: HTMLElement;
  readonly #nodes = new Map<string, NodeParts>();
  readonly #tasks: readonly DagTaskWire[];
  #views = new Map<string, GraphNodeView>();
  #selected: string | null = null;

  constructor(tasks: readonly DagTaskWire[], onSelect: (id: string) => void) {
    this.#tasks = tasks;
    const layout = layoutGraph(tasks);
    const x = (layer: number): number => PAD + layer * (NODE_W + GAP_X);
    const y = (row: number): number => PAD + row * (NODE_H + GAP_Y);
    const width = x(layout.layers) - GAP_X + PAD;
    const height = y(layout.rows) - GAP_Y + PAD;
    const at = new Map(layout.nodes.map((node) => [node.id, node]));
    const edges = svg(
      'svg',
      {
        class: 'dag-edges',
        width,
        height,
        viewBox: `0 0 ${width} ${height}`,
        'aria-hidden': 'true',
      },
      svg(
        'defs',
        {},
        svg(
          'marker',
          {
            id: 'dag-arrow',
            viewBox: '0 0 8 8',
            refX: 8,
            refY: 4,
            markerWidth: 7,
            markerHeight: 7,
            orient: 'auto',
          },
          svg('path', { d: 'M0,0 L8,4 L0,8 z', class: 'dag-arrow' }),
        ),
      ),
      ...layout.edges.map(({ from, to }) => {
        const a = at.get(from)!;
        const b = at.get(to)!;
        const x1 = x(a.layer) + NODE_W;
        const y1 = y(a.row) + NODE_H / 2;
        const x2 = x(b.layer);
        const y2 = y(b.row) + NODE_H / 2;
        const mid = (x1 + x2) / 2;
        return svg('path', {
          class: 'dag-edge',
          'data-from': from,
          'data-to': to,
          d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`,
          'marker-end': 'url(#dag-arrow)',
        });
      }),
    );
    const canvas = h('div', { class: 'dag-canvas' }, edges);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    for (const node of layout.nodes) {
      const glyph = h('span', { class: 'glyph', 'aria-hidden': 'true' });
      const detail = h('span', { class: 'dag-node-detail' });
      const button = h(
        'button',
        {
          class: 'dag-node',
          type: 'button',
          'data-task': node.id,
          'aria-pressed': 'false',
          onclick: () => onSelect(node.id),
        },
        h('span', { class: 'dag-node-name' }, glyph, node.id),
        detail,
      );
      button.style.left = `${x(node.layer)}px`;
      button.style.top = `${y(node.row)}px`;
      button.style.width = `${NODE_W}px`;
      button.style.height = `${NODE_H}px`;
      canvas.append(button);
      this.#nodes.set(node.id, { button, glyph, detail });
    }
    this.element = h(
      'div',
      { class: 'dag-graph', role: 'group', 'aria-label': 'Task graph (by dependency)' },
      canvas,
    );
  }

  /** The node views of the last run document applied. */
  view(id: string): GraphNodeView | undefined {
    return this.#views.get(id);
  }

  update(run: RunDocument): void {
    this.#views = new Map(this.#tasks.map((task) => [task.id, nodeView(task, run)]));
    for (const [id, view] of this.#views) {
      const parts = this.#nodes.get(id);
      if (parts === undefined) continue;
      const meta = STATE_META[view.state];
      const detail = view.awaitingApproval
        ? 'waiting for approval'
        : view.group !== null
          ? `${view.group.total} mapped${view.group.total === 0 ? '' : `: ${groupText(view.group.counts)}`}`
          : `${meta.label}${view.attempt > 1 ? ` · try ${view.attempt}` : ''}`;
      parts.button.className = `dag-node status-${meta.tone}${view.awaitingApproval ? ' dag-node-gate' : ''}`;
      parts.button.dataset['state'] = view.state;
      setText(parts.glyph, view.awaitingApproval ? '‖' : meta.glyph);
      setText(parts.detail, detail);
      parts.button.setAttribute(
        'aria-label',
        `${id} (${view.type}): ${detail.startsWith(meta.label) ? detail : `${meta.label}, ${detail}`}`,
      );
    }
  }

  select(id: string | null): void {
    if (this.#selected !== null)
      this.#nodes.get(this.#selected)?.button.setAttribute('aria-pressed', 'false');
    this.#selected = id;
    if (id !== null) this.#nodes.get(id)?.button.setAttribute('aria-pressed', 'true');
  }
}
