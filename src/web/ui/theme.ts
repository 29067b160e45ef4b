// Applies the display preferences to the document: `data-theme`, `data-mode` (system mode
// resolved through prefers-color-scheme), `data-vision`, `data-density` and `data-motion`
// (prefers-reduced-motion always wins), then the screen preferences (screen/apply.ts). The
// stylesheet does the rest.
import type { Prefs } from './prefs.js';
import { applyScreenPrefs } from './screen/apply.js';

export function applyPrefs(
  root: HTMLElement,
  prefs: Prefs,
  media: (query: string) => boolean,
): void {
  const mode =
    prefs.mode === 'system'
      ? media('(prefers-color-scheme: light)')
        ? 'light'
        : 'dark'
      : prefs.mode;
  root.dataset['theme'] = prefs.theme;
  root.dataset['mode'] = mode;
  root.dataset['vision'] = prefs.vision;
  root.dataset['density'] = prefs.density;
  root.dataset['motion'] =
    prefs.motion === 'reduce' || media('(prefers-reduced-motion: reduce)') ? 'reduce' : 'full';
  root.style.colorScheme = mode;
  applyScreenPrefs(root, prefs);
}
