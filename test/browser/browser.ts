// Browser-test plumbing: one headless Debian Chromium per test file (playwright-core drives it;
// CI installs the `chromium` package), pages that record console errors, failed requests and
// uncaught exceptions and Content-Security-Policy violations, and artifact paths under the gitignored test-artifacts/ directory.
// Under c8 each page's dashboard coverage is written before its context or browser closes
// (coverage.ts): close contexts with closePage(), never directly.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../bench/lib/chromium.js';
import { REPO_ROOT, defer, type TeardownContext } from '../e2e/harness.js';
import { startPageCoverage, writePageCoverage } from './coverage.js';

/** Screenshots and other outputs a person may want to look at after a run. */
export const ARTIFACTS = join(REPO_ROOT, 'test-artifacts', 'browser');

/**
 * Launches Chromium once for the test (bench/lib/chromium.ts says which and how).
 */
export async function launchBrowser(t: TeardownContext): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS],
  });
  defer(t, async () => {
    for (const page of openPages.get(browser) ?? []) await writePageCoverage(page);
    await browser.close();
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  return browser;
}

/** Pages opened through openPage and not yet closed through closePage, per browser. */
const openPages = new WeakMap<Browser, Set<Page>>();

/** What went wrong on a page, for "no console errors" checks. */
export interface PageProblems {
  /** Console errors; the browser's own failed-resource lines carry the resource URL. */
  readonly console: { readonly text: string; readonly url: string }[];
  readonly exceptions: string[];
}

/**
 * Records every `securitypolicyviolation` event of a page's documents (an init script is not
 * itself subject to the page's Content-Security-Policy), read back by cspViolations().
 */
const RECORD_CSP_VIOLATIONS = `globalThis.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  globalThis.__cspViolations.push(event.effectiveDirective + ' blocked ' + (event.blockedURI || 'inline') + ' (' + event.disposition + ')');
});`;

/** The Content-Security-Policy violations of the page's current document so far. */
export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(
    () => (globalThis as { __cspViolations?: string[] }).__cspViolations ?? ['not recorded'],
  );
}

/**
 * A page in its own context (own sessionStorage and localStorage). tsx compiles test code with
 * esbuild's keepNames, whose `__name` helper functions passed to page.evaluate refer to; a no-op
 * shim in the page makes them run there.
 */
export async function openPage(
  browser: Browser,
  viewport = { width: 1280, height: 800 },
): Promise<{ page: Page; context: BrowserContext; problems: PageProblems }> {
  const context = await browser.newContext({ viewport, reducedMotion: 'reduce' });
  await context.addInitScript({ content: 'globalThis.__name = (target) => target;' });
  await context.addInitScript({ content: RECORD_CSP_VIOLATIONS });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems: PageProblems = { console: [], exceptions: [] };
  page.on('console', (message) => {
    if (message.type() === 'error')
      problems.console.push({ text: message.text(), url: message.location().url });
  });
  page.on('pageerror', (error) => problems.exceptions.push(error.message));
  await startPageCoverage(page);
  const pages = openPages.get(browser) ?? new Set<Page>();
  pages.add(page);
  openPages.set(browser, pages);
  return { page, context, problems };
}

/** Closes a page opened by openPage, with its context, after writing its coverage. */
export async function closePage(opened: { page: Page; context: BrowserContext }): Promise<void> {
  const browser = opened.context.browser();
  if (browser !== null) openPages.get(browser)?.delete(opened.page);
  await writePageCoverage(opened.page);
  await opened.context.close();
}

/**
 * Console errors and exceptions, except the browser's "Failed to load resource" line for a
 * response listed in `allowed` as `<path> <status>` (e.g. `/node 404` on a daemon without that
 * route: the page asks once, then hides the meter).
 */
export function unexpectedErrors(problems: PageProblems, allowed: readonly RegExp[]): string[] {
  const unexpected = problems.console.filter(({ text, url }) => {
    const status = /^Failed to load resource: the server responded with a status of (\d+)/.exec(
      text,
    )?.[1];
    if (status === undefined || url === '') return true;
    const response = `${new URL(url).pathname} ${status}`;
    return !allowed.some((pattern) => pattern.test(response));
  });
  return [...problems.exceptions, ...unexpected.map(({ text, url }) => `${text} (${url})`)];
}
