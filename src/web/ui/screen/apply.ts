// Applies the screen preferences to the document root (docs/dashboard.md "Screen: scale, font,
// CRT, zen, self-test"): `--ui-scale` (the stylesheet scales the type and the rem-based spacing
// by it), `data-font` (sans or mono), and `data-crt` / `data-scanlines` / `data-flicker` for the
// CRT overlay, as model/crt.ts decides them for the theme and motion. Called after theme.ts has
// set `data-theme` and `data-motion`.
import { crtEffects } from '../../model/crt.js';
import type { Prefs } from '../prefs.js';

export function applyScreenPrefs(root: HTMLElement, prefs: Prefs): void {
  root.style.setProperty('--ui-scale', String(prefs.uiScale / 100));
  root.dataset['font'] = prefs.font;
  const crt = crtEffects({
    theme: prefs.theme,
    effects: prefs.crt,
    scanlines: prefs.scanlines,
    reducedMotion: root.dataset['motion'] === 'reduce',
  });
  root.dataset['crt'] = crt.glow ? 'on' : 'off';
  root.dataset['scanlines'] = crt.scanlines ? 'on' : 'off';
  root.dataset['flicker'] = crt.flicker ? 'on' : 'off';
}
