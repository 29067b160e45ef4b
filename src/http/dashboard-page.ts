// The bytes served at `GET /` and their Content-Security-Policy: the dashboard page that
// `npm run build` bundles from src/web into dist/web/index.html, with the sha256 hashes of its
// inline blocks that the same build writes to dist/web/csp-hashes.txt
// (docs/dashboard.md "Delivery and security headers"). The daemon only reads the two files and
// serves them; the page is public like the placeholder it replaces because it holds no data
// (docs/http-api.md "Authentication"). A checkout that was never built (or whose hashes file is
// missing or malformed, so the page could not run under its policy) serves the placeholder
// instead of failing.
// Must not: serve a page under a policy that was not built for its bytes.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pagePolicy, parseCspHashes } from './page-policy.js';
import { PLACEHOLDER_PAGE, PLACEHOLDER_STYLE } from './placeholder-page.js';

/** dist/web/ of the package (this file is in src/http/ or dist/http/). */
export const DASHBOARD_DIR_URL = new URL('../../dist/web/', import.meta.url);

interface ServedPage {
  readonly html: string;
  /** The Content-Security-Policy header value for `html`. */
  readonly contentSecurityPolicy: string;
}

/**
 * The built dashboard, or the placeholder; `problem` says why a build that is there was not
 * served (null: nothing was built).
 */
export type DashboardPage =
  | (ServedPage & { readonly kind: 'built' })
  | (ServedPage & { readonly kind: 'placeholder'; readonly problem: string | null });

function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The placeholder: no script at all, its one style by hash. */
export const PLACEHOLDER_POLICY = pagePolicy({
  scripts: [],
  styles: [sha256Source(PLACEHOLDER_STYLE)],
});

function placeholder(problem: string | null): DashboardPage {
  return {
    kind: 'placeholder',
    html: PLACEHOLDER_PAGE,
    contentSecurityPolicy: PLACEHOLDER_POLICY,
    problem,
  };
}

function readText(url: URL): string | null {
  try {
    return readFileSync(url, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The built page of `dir` (index.html and csp-hashes.txt), or the placeholder when either is
 * missing or the hashes file is malformed. Read once per app instance.
 */
export function loadDashboardPage(dir: URL = DASHBOARD_DIR_URL): DashboardPage {
  const html = readText(new URL('index.html', dir));
  if (html === null) return placeholder(null);
  const hashesUrl = new URL('csp-hashes.txt', dir);
  const hashes = readText(hashesUrl);
  if (hashes === null) return placeholder(`${hashesUrl.pathname} is missing`);
  const parsed = parseCspHashes(hashes);
  if (parsed.kind === 'invalid') return placeholder(`${hashesUrl.pathname}: ${parsed.reason}`);
  return { html, contentSecurityPolicy: pagePolicy(parsed.hashes), kind: 'built' };
}
