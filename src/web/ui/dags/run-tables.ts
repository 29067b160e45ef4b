// The run drawer's tables (docs/dashboard.md "DAG cards and the run drawer"): a task's attempts
// (or a mapped task's instances) with state, host, timing, exit code and detail, and the run's
// XCom values (bounded; binary and oversize values named, not shown).
import { formatDuration, formatUtc } from '../../model/format.js';
import { STATE_META, type TaskEntry, type XcomWire } from '../../model/dags.js';
import { dataTable, h, type Child } from '../dom.js';

const VALUE_PREVIEW = 400;

export function when(seconds: number | null | undefined): string {
  return seconds === null || seconds === undefined ? '—' : formatUtc(seconds * 1000);
}

function boundedText(text: string): string {
  return text.length > VALUE_PREVIEW
    ? `${text.slice(0, VALUE_PREVIEW)}… (${text.length} chars)`
    : text;
}

function stateCell(state: TaskEntry['state']): HTMLElement {
  const meta = STATE_META[state];
  return h(
    'span',
    { class: `status status-${meta.tone}` },
    h('span', { class: 'glyph', 'aria-hidden': 'true' }, meta.glyph),
    meta.label,
  );
}

/** One row of the attempts table; `item` is a mapped instance's item (undefined otherwise). */
export function attemptRow(key: string, entry: TaskEntry, item: unknown): Child[] {
  const duration =
    entry.startedAt === null || entry.finishedAt === null
      ? null
      : entry.finishedAt - entry.startedAt;
  const extra = [
    item === undefined ? null : `item ${boundedText(JSON.stringify(item))}`,
    entry.pokeCount === undefined
      ? null
      : `${entry.pokeCount} poke${entry.pokeCount === 1 ? '' : 's'}`,
    entry.approval === undefined
      ? null
      : `${entry.approval.decision} by ${entry.approval.by} at ${when(entry.approval.at)}`,
    entry.failReason,
  ].filter((part) => part !== null);
  return [
    key,
    stateCell(entry.state),
    String(entry.attempt),
    entry.host ?? '—',
    when(entry.startedAt),
    formatDuration(duration),
    entry.exitCode === null ? '—' : String(entry.exitCode),
    extra.join(' · ') || '—',
  ];
}

export const ATTEMPT_HEAD = [
  'Task key',
  'State',
  'Attempt',
  'Host',
  'Started',
  'Took',
  'Exit',
  'Detail',
];

export function xcomSection(wire: XcomWire): Node[] {
  return [
    h('h3', {}, 'XCom'),
    wire.entries.length === 0
      ? h('p', { class: 'muted' }, 'No XCom values in this run.')
      : dataTable(
          `${wire.entries.length} value${wire.entries.length === 1 ? '' : 's'}${wire.truncated ? ' (the first 500)' : ''}`,
          ['Task key', 'Key', 'Size', 'Value'],
          wire.entries.map((entry) => [
            entry.taskkey,
            entry.key,
            `${entry.size} B`,
            entry.oversize === true
              ? h('span', { class: 'muted' }, 'over 64 KiB: not shown')
              : entry.binary === true
                ? h('span', { class: 'muted' }, 'binary')
                : h('code', { class: 'dag-xcom-value' }, boundedText(entry.value ?? '')),
          ]),
        ),
  ];
}
