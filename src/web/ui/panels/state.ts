// The state inspector (docs/dashboard.md "State inspector"), read-only: the store's identity and
// health from `GET /state` (operations with errors and mean latency, lock and throttle waits),
// what it holds by namespace and stream, leases with their time left, quarantine, this node's
// retries and slots; a namespace or stream opens its listing below (`/state/documents`,
// `/state/records`; KV values arrive as size and type only, `logs` streams are never listed).
// Read when opened and on Refresh, not every poll (an inventory walks the store).
import { formatDuration } from '../../model/format.js';
import {
  boundedJson,
  describeDocument,
  entryPath,
  summarizeState,
  type StateDocumentsWire,
  type StateEntry,
  type StateRecordsWire,
  type StateSummary,
  type StateWire,
} from '../../model/state-inspector.js';
import { AsyncView } from '../async-view.js';
import type { AppContext } from '../context.js';
import { h, type Child } from '../dom.js';
import type { PanelDefinition } from './panel-host.js';

const RECORDS_LIMIT = 50;

function table(
  caption: string,
  head: readonly string[],
  rows: readonly (readonly Child[])[],
): HTMLElement {
  return h(
    'table',
    { class: 'data-table' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...head.map((label) => h('th', { scope: 'col' }, label)))),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))),
  );
}

function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'si-section' }, h('h3', {}, title), ...children);
}

function renderOverview(summary: StateSummary, open: (entry: StateEntry) => void): Node[] {
  const entryButton = (entry: StateEntry): Child =>
    entry.openable
      ? h(
          'button',
          { class: 'btn btn-small', type: 'button', onclick: () => open(entry) },
          `Open ${entry.name}`,
        )
      : h('span', { class: 'muted' }, entry.kind === 'records' ? 'output: not listed' : '—');
  return [
    section(
      'Store',
      h(
        'dl',
        { class: 'facts' },
        ...summary.identity.flatMap(([key, value]) => [h('dt', {}, key), h('dd', {}, value)]),
      ),
      h('p', { class: 'muted' }, summary.waits),
      table(
        'Operations',
        ['Operation', 'Calls', 'Errors', 'Mean'],
        summary.ops.map((op) => [
          op.op,
          String(op.count),
          op.errors === 0 ? '0' : h('span', { class: 'si-error' }, String(op.errors)),
          op.meanMs === null ? '—' : `${op.meanMs.toFixed(2)} ms`,
        ]),
      ),
    ),
    section(
      'Contents',
      summary.enumerable
        ? table(
            'Namespaces and streams',
            ['Name', 'Kind', 'Count', ''],
            summary.entries.map((entry) => [
              entry.name,
              entry.kind === 'documents' ? 'documents' : 'records',
              String(entry.count),
              entryButton(entry),
            ]),
          )
        : h('p', { class: 'muted' }, 'The store could not be listed just now (health only).'),
      h(
        'p',
        { class: summary.quarantine > 0 ? 'si-error' : 'muted' },
        `Quarantine: ${summary.quarantine} file${summary.quarantine === 1 ? '' : 's'}`,
      ),
    ),
    section(
      'Leases',
      summary.leases.length === 0
        ? h('p', { class: 'muted' }, 'No leases.')
        : table(
            'Leases',
            ['Name', 'Holder', 'Fence', 'Expires'],
            summary.leases.map((lease) => [
              lease.name,
              lease.holder,
              String(lease.fence),
              lease.expired ? 'expired' : `in ${formatDuration(Math.max(0, lease.leftMs) / 1000)}`,
            ]),
          ),
    ),
    section(
      `This node (${summary.host})`,
      summary.retries.length === 0
        ? h('p', { class: 'muted' }, 'No armed retries.')
        : table(
            'Retries',
            ['Job', 'Attempt', 'Next retry', 'Delay'],
            summary.retries.map((retry) => [
              retry.job,
              String(retry.attempt),
              retry.nextRetryAt ?? '—',
              formatDuration(retry.delaySeconds),
            ]),
          ),
      summary.slots.length === 0
        ? h('p', { class: 'muted' }, 'No concurrency slots held.')
        : table(
            'Slots',
            ['Slot', 'Holder', 'Fence', 'Refs'],
            summary.slots.map((slot) => [
              slot.slot,
              slot.holder,
              String(slot.fence),
              String(slot.refs),
            ]),
          ),
    ),
  ];
}

async function readEntry(ctx: AppContext, entry: StateEntry): Promise<Node[]> {
  const path = entryPath(entry, RECORDS_LIMIT);
  if (entry.kind === 'documents') {
    const data = await ctx.api.json<StateDocumentsWire>(path);
    return [
      table(
        `${data.namespace}: ${data.documents.length} document${data.documents.length === 1 ? '' : 's'}${data.truncated === true ? ' (truncated)' : ''}`,
        ['Key', 'Detail'],
        data.documents.map((doc) => {
          const { key, detail } = describeDocument(doc);
          return [key, h('code', {}, detail)];
        }),
      ),
    ];
  }
  const data = await ctx.api.json<StateRecordsWire>(path);
  return [
    table(
      `${data.stream}: the newest ${data.records.length} record${data.records.length === 1 ? '' : 's'}`,
      ['Record'],
      data.records.map((record) => [h('code', {}, boundedJson(record))]),
    ),
  ];
}

export const statePanel: PanelDefinition = {
  id: 'state',
  title: 'State inspector',
  wide: true,
  mount(body, ctx: AppContext) {
    const overview = new AsyncView('si-overview');
    const detail = new AsyncView('si-detail');
    detail.element.replaceChildren();
    const open = (entry: StateEntry): void => {
      detail.load(() => readEntry(ctx, entry));
      detail.element.scrollIntoView?.({ block: 'nearest' });
    };
    const load = (): void =>
      overview.load(async () => {
        const wire = await ctx.api.optionalJson<StateWire>('/state');
        const summary = wire === null ? null : summarizeState(wire, ctx.clock.now());
        if (summary === null)
          return [
            h(
              'p',
              { class: 'muted' },
              'This daemon has no durable state store (no state: section).',
            ),
          ];
        return renderOverview(summary, open);
      });
    body.append(
      h(
        'div',
        { class: 'panel-toolbar' },
        h('button', { class: 'btn', type: 'button', onclick: load }, 'Refresh'),
      ),
      overview.element,
      detail.element,
    );
    load();
    return {
      dispose: () => {
        overview.dispose();
        detail.dispose();
      },
    };
  },
};
