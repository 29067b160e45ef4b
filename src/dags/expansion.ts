// Dynamic mapping (docs/dags.md "Dynamic mapping"): a ready mapped placeholder becomes one
// pending instance `<id>#<i>` per item of its upstream's XCom list. A missing key or a value that
// is not a list is an empty expansion (the mapped task succeeds with no instances); more than
// MAX_MAPPED_ITEMS items fail it. The items are recorded in the run once and never recomputed.
// Must not: read the store (the advancer reads the XCom value and hands in what it found).
import { pendingEntry, type RunDocument, type TaskEntry } from './run-document.js';

export const MAX_MAPPED_ITEMS = 1000;

/** The upstream's XCom value as the advancer found it. */
export type XcomList =
  | { readonly kind: 'items'; readonly items: readonly unknown[] }
  /** Missing, unreadable or not a JSON list. */
  | { readonly kind: 'none' };

/** `doc` with the placeholder `taskKey` expanded, or null when it is not ready to be. */
export function expandPlaceholder(
  doc: RunDocument,
  taskKey: string,
  found: XcomList,
  nowMs: number,
): RunDocument | null {
  const entry = doc.tasks[taskKey];
  if (entry === undefined || entry.state !== 'pending' || entry.mapped !== true) return null;
  const now = nowMs / 1000;
  const recorded = doc.mapped[taskKey];
  const items = recorded?.items ?? (found.kind === 'items' ? found.items : []);
  const { mapped: _mapped, ...placeholder } = entry;
  const settle = (state: 'success' | 'failed', reason: string | null): RunDocument => ({
    ...doc,
    updatedAt: now,
    tasks: {
      ...doc.tasks,
      [taskKey]: {
        ...placeholder,
        state,
        failReason: reason,
        startedAt: now,
        finishedAt: now,
        updatedAt: now,
      },
    },
  });
  if (items.length > MAX_MAPPED_ITEMS) {
    return settle(
      'failed',
      `expand: ${items.length} items exceed the limit of ${MAX_MAPPED_ITEMS} mapped instances`,
    );
  }
  const mapped = { ...doc.mapped, [taskKey]: recorded ?? { items: [...items], expandedAt: now } };
  if (items.length === 0) return { ...settle('success', null), mapped };
  const tasks: Record<string, TaskEntry> = {
    ...doc.tasks,
    [taskKey]: { ...placeholder, state: 'expanded', startedAt: now, updatedAt: now },
  };
  items.forEach((item, index) => {
    tasks[`${entry.id}#${index}`] = {
      ...pendingEntry(entry.id, now),
      mapIndex: index,
      mapItem: item,
    };
  });
  return { ...doc, updatedAt: now, tasks, mapped };
}
