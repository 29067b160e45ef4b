// The `?` overlay: every keyboard shortcut, from the same table the key handler uses.
import type { AppContext } from '../context.js';
import { h } from '../dom.js';
import { SHORTCUTS } from '../shortcuts.js';
import type { PanelDefinition } from './panel-host.js';

export const helpPanel: PanelDefinition = {
  id: 'help',
  title: 'Keyboard shortcuts',
  keys: '?',
  mount(body, _ctx: AppContext) {
    body.append(
      h(
        'dl',
        { class: 'shortcuts' },
        ...SHORTCUTS.flatMap((shortcut) => [
          h(
            'dt',
            {},
            ...shortcut.keys.flatMap((key, i) => [i > 0 ? ' / ' : null, h('kbd', {}, key)]),
          ),
          h('dd', {}, shortcut.description),
        ]),
      ),
      h(
        'p',
        { class: 'muted' },
        'Every action is also in the command palette (Ctrl-K). Shortcuts pause while you type in a field.',
      ),
    );
    return { dispose: () => undefined };
  },
};
