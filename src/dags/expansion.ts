// Dynamic mapping (docs/dags.md "Dynamic mapping"): a ready mapped placeholder becomes one
// pending instance `<id>#<i>` per item of its upstream's XCom list. A missing key or a value that
// is not a list is an empty expansion (the mapped task succeeds with no instances). An expansion
// is capped by count and by bytes (the XCom value, each item, all items): beyond a cap the mapped
// task fails with the reason, so a large list can never grow the run document past what the
// store holds. The items are recorded in the run once (`mapped`) and never recomputed; an
// instance keeps only its index into them.
// Must not: read the store (the advancer reads the XCom value, within its cap, and hands it in).
import { pendingEntry, type RunDocument, type TaskEntry } from './run-document.js';

export const MAX_MAPPED_ITEMS = 1000;
/**
 * One item, JSON-encoded. The item reaches its instance as YACRON2_DAG_MAP_ITEM, and Linux
 * refuses to start a process with one environment string over 128 KiB.
 */
export const MAX_MAPPED_ITEM_BYTES = 64 * 1024;
/** All items of one expansion, JSON-encoded; also the most of an XCom list that is read. */
export const MAX_MAPPED_TOTAL_BYTES = 4 * 1024 * 1024;

/** The upstream's XCom value as the advancer found it. */
export type XcomList =
  | { readonly kind: 'items'; readonly items: readonly unknown[] }
  /** Missing, unreadable or not a JSON list. */
  | { readonly kind: 'none' }
  /** Over MAX_MAPPED_TOTAL_BYTES: not read. */
  | { readonly kind: 'too-large'; readonly bytes: number };

/** Why `found` cannot be expanded, or null when it can. */
export function expansionRefusal(found: XcomList): string | null {
  if (found.kind === 'too-large') {
    return `expand: the XCom list is ${found.bytes} bytes, over the limit of ${MAX_MAPPED_TOTAL_BYTES} bytes`;
  }
  if (found.kind === 'none') return null;
  const { items } = found;
  if (items.length > MAX_MAPPED_ITEMS) {
    return `expand: ${items.length} items exceed the limit of ${MAX_MAPPED_ITEMS} mapped instances`;
  }
  let total = 0;
  for (const [index, item] of items.entries()) {
    const bytes = Buffer.byteLength(JSON.stringify(item) ?? 'null', 'utf8');
    if (bytes > MAX_MAPPED_ITEM_BYTES) {
      return `expand: item ${index} is ${bytes} bytes, over the limit of ${MAX_MAPPED_ITEM_BYTES} bytes per item`;
    }
    total += bytes;
  }
  if (total > MAX_MAPPED_TOTAL_BYTES) {
    return `expand: the items are ${total} bytes, over the limit of ${MAX_MAPPED_TOTAL_BYTES} bytes`;
  }
  return null;
}

/** `doc` with the placeholder `taskKey` expanded, or null when it is not ready to be. */
export function expandPlaceholder(
  doc: RunDocument,
  taskKey: string,
  found: XcomList,
  nowMs: number,
): RunDocument | null {
  const entry = doc.tasks[taskKey];
  if (entry === undefined || entry.state !== 'pending' || entry.mapped !== true) return null;
  const recorded = doc.mapped[taskKey];
  const { mapped: _mapped, ...placeholder } = entry;
  const settle = (state: 'success' | 'failed', reason: string | null): RunDocument => ({
    ...doc,
    updatedAtMs: nowMs,
    tasks: {
      ...doc.tasks,
      [taskKey]: {
        ...placeholder,
        state,
        failReason: reason,
        startedAtMs: nowMs,
        finishedAtMs: nowMs,
        updatedAtMs: nowMs,
      },
    },
  });
  // Recorded items were judged when they were recorded: never recomputed.
  const refusal = recorded === undefined ? expansionRefusal(found) : null;
  if (refusal !== null) return settle('failed', refusal);
  const items = recorded?.items ?? (found.kind === 'items' ? found.items : []);
  const mapped = {
    ...doc.mapped,
    [taskKey]: recorded ?? { items: [...items], expandedAtMs: nowMs },
  };
  if (items.length === 0) return { ...settle('success', null), mapped };
  const tasks: Record<string, TaskEntry> = {
    ...doc.tasks,
    [taskKey]: { ...placeholder, state: 'expanded', startedAtMs: nowMs, updatedAtMs: nowMs },
  };
  for (let index = 0; index < items.length; index += 1) {
    tasks[`${entry.id}#${index}`] = { ...pendingEntry(entry.id, nowMs), mapIndex: index };
  }
  return { ...doc, updatedAtMs: nowMs, tasks, mapped };
}
