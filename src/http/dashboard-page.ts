// The bytes served at `GET /`: the dashboard page that `npm run build` bundles from src/web into
// dist/web/index.html (docs/dashboard.md). The daemon only reads and serves the file; it is one
// self-contained HTML document (inline script and style), public like the placeholder it
// replaces because it holds no data (docs/http-api.md "Authentication"). A checkout that was never
// built serves the placeholder with a note instead of failing.
import { readFileSync } from 'node:fs';
import { PLACEHOLDER_PAGE } from './placeholder-page.js';

/** dist/web/index.html of the package (this file is in src/http/ or dist/http/). */
export const DASHBOARD_PAGE_URL = new URL('../../dist/web/index.html', import.meta.url);

/** The built page, or the placeholder when there is none. Read once per app instance. */
export function loadDashboardPage(url: URL = DASHBOARD_PAGE_URL): string {
  try {
    return readFileSync(url, 'utf8');
  } catch {
    return PLACEHOLDER_PAGE;
  }
}
