// The dashboard's entry point (bundled by scripts/build-web.mjs into dist/web/index.html):
// starts the app on the page's root element with the real clock, and exposes a handle for
// browser tests and benchmarks as `window.__yacron2`.
import { systemClock } from '../common/clock.js';
import { startApp, type AppHandle } from './ui/app.js';

declare global {
  interface Window {
    __yacron2?: AppHandle;
  }
}

const root = document.getElementById('app');
if (root !== null) window.__yacron2 = startApp(root, systemClock);
