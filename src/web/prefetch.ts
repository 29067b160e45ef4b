// The page's first script, inlined in <head> before the dashboard's bundle (scripts/build-web.mjs):
// starts the first `GET /jobs` at once and leaves the pending answer for the app's first poll
// (ui/first-jobs.ts; docs/dashboard.md "First render").
// Must not: grow. It runs before the page's stylesheet and bundle are parsed.
import { startFirstJobs } from './ui/first-jobs.js';

try {
  window.__yacron2FirstJobs = startFirstJobs();
} catch {
  // No early request (an old browser without AbortSignal.timeout): the first poll asks.
}
