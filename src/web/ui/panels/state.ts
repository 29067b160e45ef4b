// The state inspector (docs/dashboard.md "State inspector"), read-only: the store's identity and
// health from `GET /state` (operations with errors and mean latency, lock and throttle waits),
// what it holds by namespace and stream, leases with their time left, quarantine, this node's
// retries and slots; a namespace or stream opens its listing below (`/state/documents`,
// `/state/records`; KV values arrive as size and type only, `logs` streams are never listed).
// Cursors, idempotency claims and artifacts have their own lists (model/state-lists.ts): the
// scopes holding some, each opening a typed table. Read when opened and on Refresh, not every
// poll (an inventory walks the store).
import { formatAge, formatBytes, formatDuration, formatUtc } from '../../model/format.js';
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
import {
  artifactRows,
  claimRows,
  cursorRows,
  scopeLists,
  type ListKind,
  type ScopeEntry,
} from '../../model/state-lists.js';
import { AsyncView } from '../async-view.js';
import type { AppContext } from '../context.js';
import { dataTable, h, type Child } from '../dom.js';
import type { PanelDefinition } from './panel-host.js';

const RECORDS_LIMIT = 50;

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
      dataTable(
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
        ? dataTable(
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
        : dataTable(
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
        : dataTable(
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
        : dataTable(
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
      dataTable(
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
    dataTable(
      `${data.stream}: the newest ${data.records.length} record${data.records.length === 1 ? '' : 's'}`,
      ['Record'],
      data.records.map((record) => [h('code', {}, boundedJson(record))]),
    ),
  ];
}

const LIST_TITLES: Readonly<Record<ListKind, string>> = {
  cursors: 'Cursors',
  claims: 'Idempotency claims',
  artifacts: 'Artifacts',
};

function renderLists(wire: StateWire, open: (entry: ScopeEntry) => void): Node[] {
  if (!wire.enabled || !wire.enumerable) return [];
  const lists = scopeLists(wire);
  return (Object.keys(LIST_TITLES) as ListKind[]).map((kind) =>
    section(
      LIST_TITLES[kind],
      lists[kind].length === 0
        ? h('p', { class: 'muted' }, `No ${LIST_TITLES[kind].toLowerCase()} in the store.`)
        : dataTable(
            `${LIST_TITLES[kind]} by scope`,
            ['Scope', kind === 'artifacts' ? 'Records' : 'Count', ''],
            lists[kind].map((entry) => [
              entry.scope,
              String(entry.count),
              h(
                'button',
                {
                  class: 'btn btn-small',
                  type: 'button',
                  'data-list': kind,
                  'data-scope': entry.scope,
                  onclick: () => open(entry),
                },
                `Open ${entry.scope}`,
              ),
            ]),
          ),
    ),
  );
}

const at = (ms: number | null, nowMs: number): string =>
  ms === null
    ? '—'
    : `${formatUtc(ms)} (${formatAge(Math.abs(nowMs - ms))}${ms > nowMs ? ' from now' : ' ago'})`;

async function readList(ctx: AppContext, entry: ScopeEntry): Promise<Node[]> {
  const now = ctx.clock.now();
  const title = `${LIST_TITLES[entry.kind]} in ${entry.scope}`;
  if (entry.kind === 'artifacts') {
    const data = await ctx.api.json<StateRecordsWire>(entry.path);
    const rows = artifactRows(data.records);
    return [
      dataTable(
        `${title}: the newest ${rows.length} record${rows.length === 1 ? '' : 's'} (● = the version a read returns)`,
        ['Name', 'Size', 'sha256', 'Published'],
        rows.map((row) => [
          `${row.current ? '● ' : ''}${row.name}`,
          formatBytes(row.size),
          h('code', {}, row.sha256),
          at(row.atMs, now),
        ]),
      ),
    ];
  }
  const data = await ctx.api.json<StateDocumentsWire>(entry.path);
  const suffix = data.truncated === true ? ' (truncated)' : '';
  if (entry.kind === 'cursors') {
    const rows = cursorRows(data.documents);
    return [
      dataTable(
        `${title}: ${rows.length}${suffix}`,
        ['Name', 'Value', 'Updated'],
        rows.map((row) => [row.name, h('code', {}, row.value), at(row.updatedMs, now)]),
      ),
    ];
  }
  const rows = claimRows(data.documents, now);
  return [
    dataTable(
      `${title}: ${rows.length}${suffix}`,
      ['Key', 'Claimed', 'Expires'],
      rows.map((row) => [
        row.key,
        at(row.claimedMs, now),
        row.expiresMs === null
          ? 'never (permanent)'
          : row.expired
            ? h('span', { class: 'muted' }, `expired ${at(row.expiresMs, now)}`)
            : at(row.expiresMs, now),
      ]),
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
        return [
          ...renderOverview(summary, open),
          ...renderLists(wire!, (entry) => {
            detail.load(() => readList(ctx, entry));
            detail.element.scrollIntoView?.({ block: 'nearest' });
          }),
        ];
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
