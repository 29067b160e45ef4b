// Settings (docs/dashboard.md "Themes, colour vision, motion, screen sizes"): theme family,
// dark/light, colour-vision palette, density, motion and the refresh interval. Stored in
// localStorage by PrefsStore.
import type { AppContext } from '../context.js';
import { h } from '../dom.js';
import { DENSITIES, MODES, MOTION, REFRESH_CHOICES, THEMES, VISION } from '../prefs.js';
import type { PanelDefinition } from './panel-host.js';
import { selectSetting } from './setting-controls.js';
import { screenSettingRows } from '../screen/screen-settings.js';
import { alertSettingRows } from './alert-settings.js';

const LABELS: Readonly<Record<string, string>> = {
  carolina: 'Carolina (blue)',
  amber: 'Amber',
  green: 'Green',
  modern: 'Modern (violet)',
  standard: 'Standard (grey)',
  dark: 'Dark',
  light: 'Light',
  system: 'Follow the system',
  normal: 'Default colours',
  'red-green': 'Red-green safe (blue / orange)',
  'blue-yellow': 'Blue-yellow safe (teal / magenta)',
  comfortable: 'Comfortable',
  compact: 'Compact',
  reduce: 'Reduce motion',
};

export const settingsPanel: PanelDefinition = {
  id: 'settings',
  title: 'Settings',
  keys: ',',
  mount(body, ctx: AppContext) {
    const name = (value: string): string => LABELS[value] ?? value;
    const p = ctx.prefs.value;
    // Run ledger, desktop notifications, audible cues (docs/dashboard.md "Run ledger, notifications and cues").
    const alerts = alertSettingRows(ctx);
    body.append(
      h(
        'div',
        { class: 'settings' },
        selectSetting('Theme (t cycles)', THEMES, p.theme, name, (theme) =>
          ctx.prefs.update({ theme }),
        ),
        selectSetting('Light or dark (T toggles)', MODES, p.mode, name, (mode) =>
          ctx.prefs.update({ mode }),
        ),
        selectSetting('Colour vision', VISION, p.vision, name, (vision) =>
          ctx.prefs.update({ vision }),
        ),
        selectSetting('Density', DENSITIES, p.density, name, (density) =>
          ctx.prefs.update({ density }),
        ),
        selectSetting(
          'Motion (the system setting is always honoured)',
          MOTION,
          p.motion,
          name,
          (motion) => ctx.prefs.update({ motion }),
        ),
        selectSetting(
          'Refresh',
          REFRESH_CHOICES,
          p.refreshMs as (typeof REFRESH_CHOICES)[number],
          (value) => (value === 0 ? 'Paused (g refreshes)' : `Every ${value / 1000} s`),
          (refreshMs) => ctx.prefs.update({ refreshMs }),
        ),
        // Screen: UI scale and font, CRT effects, the wallboard's zen screensaver, the self-test.
        ...screenSettingRows(ctx),
        // Run ledger, desktop notifications, audible cues.
        ...alerts.rows,
      ),
      h(
        'p',
        { class: 'muted' },
        'Preferences stay in this browser (localStorage); the access token stays in this tab only (sessionStorage).',
      ),
    );
    return { dispose: () => alerts.dispose() };
  },
};
