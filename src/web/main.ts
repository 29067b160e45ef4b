// The dashboard's entry point (bundled by scripts/build-web.mjs into dist/web/index.html):
// starts the app on the page's root element with the real clock once the early `/jobs` answer
// is in (bounded; ui/first-jobs.ts), and exposes a handle for browser tests and benchmarks as
// `window.__yacron2`.
import { systemClock } from '../common/clock.js';
import { startApp, type AppHandle } from './ui/app.js';
import { FIRST_JOBS_WAIT_MS, firstJobsIn } from './ui/first-jobs.js';

declare global {
  interface Window {
    __yacron2?: AppHandle;
  }
}

const root = document.getElementById('app');
if (root !== null) {
  const start = (): void => {
    window.__yacron2 = startApp(root, systemClock);
  };
  const early = window.__yacron2FirstJobs;
  if (early === undefined) start();
  else void firstJobsIn(early, systemClock, FIRST_JOBS_WAIT_MS).then(start);
}
