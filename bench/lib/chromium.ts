// How the dashboard's bench and browser tests start Chromium: Debian's build (CI installs the
// `chromium` package; YACRON2_CHROMIUM points elsewhere) with flags that keep it headless, off
// the network and quiet. Playwright adds a fresh temporary --user-data-dir of its own.
export const CHROMIUM_PATH = process.env['YACRON2_CHROMIUM'] ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
