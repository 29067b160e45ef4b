// Keyboard shortcuts (docs/dashboard.md "Keyboard"): one table from key to action id, read by
// the `?` overlay too. Keys are ignored while typing in a field, except Escape and the palette.
import type { ActionRegistry } from './actions.js';
import { isTyping } from './dom.js';

export interface Shortcut {
  readonly keys: readonly string[];
  readonly action: string;
  readonly description: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { keys: ['Ctrl-K', '⌘K', 'Ctrl-P'], action: 'palette', description: 'Command palette' },
  { keys: ['/'], action: 'focus-filter', description: 'Filter jobs' },
  { keys: ['j', '↓'], action: 'select-next', description: 'Next job' },
  { keys: ['k', '↑'], action: 'select-previous', description: 'Previous job' },
  { keys: ['Enter'], action: 'open-selected', description: 'Open the selected job' },
  { keys: ['r'], action: 'run-selected', description: 'Run the selected job' },
  { keys: ['x'], action: 'cancel-selected', description: 'Cancel the selected job' },
  { keys: ['c'], action: 'copy-selected', description: "Copy the selected job's command" },
  { keys: ['g'], action: 'refresh', description: 'Refresh now' },
  { keys: ['t'], action: 'cycle-theme', description: 'Next theme' },
  { keys: ['T'], action: 'toggle-mode', description: 'Light / dark' },
  { keys: ['w'], action: 'wallboard', description: 'Wallboard' },
  { keys: ['a'], action: 'alarm-ack', description: 'Acknowledge the failure alarm' },
  { keys: ['i'], action: 'panel:timeline', description: 'Incident timeline' },
  { keys: [','], action: 'panel:settings', description: 'Settings' },
  { keys: ['?'], action: 'help', description: 'This list' },
  { keys: ['Esc'], action: 'close', description: 'Close the drawer, panel or wallboard' },
];

const KEY_TO_ACTION: Readonly<Record<string, string>> = {
  '/': 'focus-filter',
  j: 'select-next',
  ArrowDown: 'select-next',
  k: 'select-previous',
  ArrowUp: 'select-previous',
  Enter: 'open-selected',
  r: 'run-selected',
  x: 'cancel-selected',
  c: 'copy-selected',
  g: 'refresh',
  t: 'cycle-theme',
  T: 'toggle-mode',
  w: 'wallboard',
  a: 'alarm-ack',
  i: 'panel:timeline',
  ',': 'panel:settings',
  '?': 'help',
};

/** Installs the document-level key handler. `inDialog` says whether a modal owns the keys. */
export function installShortcuts(
  doc: Document,
  actions: ActionRegistry,
  inDialog: () => boolean,
): void {
  doc.addEventListener('keydown', (event) => {
    if (event.defaultPrevented) return;
    const palette =
      (event.key === 'k' || event.key === 'K' || event.key === 'p') &&
      (event.ctrlKey || event.metaKey) &&
      !event.altKey;
    if (palette) {
      event.preventDefault();
      actions.run('palette');
      return;
    }
    if (event.key === 'Escape') {
      // Native dialogs handle their own Escape.
      if (!inDialog() && actions.run('close')) event.preventDefault();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target) || inDialog())
      return;
    // Enter and arrows keep their meaning on buttons, links, tabs and other controls.
    const onControl =
      event.target instanceof HTMLElement &&
      event.target.closest('button, a, [role=tab], summary, select') !== null;
    if ((event.key === 'Enter' || event.key.startsWith('Arrow')) && onControl) return;
    const action = KEY_TO_ACTION[event.key];
    if (action !== undefined && actions.run(action)) event.preventDefault();
  });
}
