// Browser test of archived run output in the History tab (docs/dashboard.md "Job drawer"): the
// real built daemon with a `state:` section in a temp dir and an `archiveOutput: true` job run
// once; its History row opens the run's archived lines by keyboard in the log view (ANSI colours,
// search, the redacted text only), Close hands focus back; a job that archives nothing says so
// on its run; the same works at 390 px wide. No console errors, no CSP violations, no
// accessibility issues in the open viewer. Screenshots at 1280×800 and 390×844 in
// test-artifacts/browser/. Every wait is on a page or HTTP condition with a bounded timeout.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  getJson,
  post,
  startDaemon,
  useTempDir,
  waitUntil,
  webUrlOf,
  writeConfig,
} from '../e2e/harness.js';
import { auditAccessibility } from './audit.js';
import {
  ARTIFACTS,
  closePage,
  cspViolations,
  launchBrowser,
  openPage,
  unexpectedErrors,
} from './browser.js';

/** Routes a daemon without /node or resource sampling answers 404 (the page asks, then hides). */
const OPTIONAL_404 = [/^\/node 404$/, /^\/jobs\/[^/]+\/resources 404$/];

function config(store: string): string {
  return `jobs:
  - name: archived
    command: printf 'archived hello\\n'; echo 'PASSWORD=hunter2' >&2; printf '\\033[32mgreen done\\033[0m\\n'
    schedule: "0 0 0 1 1 * 2099"
    captureStdout: true
    captureStderr: true
    archiveOutput: true
    failsWhen:
      producesStdout: false
      producesStderr: false
  - name: plain
    command: echo not kept
    schedule: "0 0 0 1 1 * 2099"
    captureStdout: true
state:
  path: ${store}
web:
  listen:
    - http://127.0.0.1:0
`;
}

interface ArchivesBody {
  readonly archives: readonly { readonly id: string }[];
}
interface RunsBody {
  readonly runs: readonly unknown[];
}

async function openHistory(page: Page, job: string): Promise<void> {
  await page.evaluate((name) => (location.hash = `#job/${encodeURIComponent(name)}/history`), job);
  await page
    .locator('.drawer:not([hidden]) .tab[data-tab="history"][aria-selected="true"]')
    .waitFor();
}

test('archived run output in the History tab', { timeout: 120_000 }, async (t) => {
  const dir = await useTempDir(t);
  const daemon = startDaemon(t, ['-c', await writeConfig(dir, config(join(dir, 'store')))]);
  const base = await webUrlOf(daemon);
  // The store opens in the background: start the runs once the output route answers.
  await waitUntil(async () => {
    const response = await fetch(`${base}/jobs/archived/output`);
    await response.body?.cancel();
    return response.status === 200;
  }, 'the store is open');
  assert.equal(await post(`${base}/jobs/archived/start`), 200);
  assert.equal(await post(`${base}/jobs/plain/start`), 200);
  await waitUntil(
    async () => (await getJson<ArchivesBody>(`${base}/jobs/archived/output`)).archives.length === 1,
    'the archive is written',
  );
  await waitUntil(
    async () => (await getJson<RunsBody>(`${base}/jobs/plain/runs`)).runs.length === 1,
    'the plain run is recorded',
  );

  const browser = await launchBrowser(t);
  const opened = await openPage(browser);
  const { page, problems } = opened;
  await page.goto(`${base}/`);
  await page.locator('.trow[data-job="archived"]').waitFor();

  await t.test('a run opens its archived output by keyboard, in the log view', async () => {
    await openHistory(page, 'archived');
    const button = page.getByRole('button', {
      name: /^View output of the run finished .* \(success\)$/,
    });
    await button.waitFor();
    await button.focus();
    await page.keyboard.press('Enter');
    const viewer = page.locator('.drawer .archive-viewer:not([hidden])');
    const lines = viewer.locator('.log-lines');
    await lines.locator('.ln', { hasText: 'green done' }).waitFor();
    assert.equal(await lines.locator('.ln').count(), 3);
    // ANSI colours rendered, the escape codes gone from the text.
    assert.ok(!(await lines.innerText()).includes('\u001b'));
    assert.equal(await lines.locator('.ln span.a-fg-2', { hasText: 'green done' }).count(), 1);
    // Only the stored, redacted text.
    const text = await lines.innerText();
    assert.match(text, /PASSWORD=\*\*\*REDACTED\*\*\*/);
    assert.ok(!text.includes('hunter2'));
    assert.match(
      (await viewer.locator('.archive-summary').textContent()) ?? '',
      /^success · exit 0 · 3 lines · secrets redacted$/,
    );
    // The heading took the focus and names the run.
    assert.match(
      await page.evaluate(() => document.activeElement?.textContent ?? ''),
      /^Output of the run finished /,
    );
    // Search, as in a live run's view.
    await viewer.locator('.log-search').fill('hello');
    assert.equal(await viewer.locator('.log-count').textContent(), '1 match');
    assert.deepEqual(
      (await page.evaluate(auditAccessibility)).map((issue) => `${issue.kind}: ${issue.element}`),
      [],
    );
    await page.screenshot({ path: join(ARTIFACTS, 'history-output-1280x800.png') });
    // Close hands the focus back to the button that opened it.
    await viewer.getByRole('button', { name: 'Close the archived output' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('.drawer .archive-viewer[hidden]').waitFor({ state: 'attached' });
    assert.equal(
      await page.evaluate(() => document.activeElement?.classList.contains('archive-open')),
      true,
    );
  });

  await t.test('a run without an archive says so', async () => {
    await openHistory(page, 'plain');
    const row = page.locator('.drawer table.runs tbody tr').first();
    await row.locator('td', { hasText: 'Not archived' }).waitFor();
    await page
      .locator('.drawer .archive-note', { hasText: 'No run of this job has archived output' })
      .waitFor();
    assert.equal(await page.locator('.drawer .archive-open').count(), 0);
  });

  await t.test('390 px wide: the output opens and nothing overflows the page', async () => {
    const phone = await openPage(browser, { width: 390, height: 844 });
    try {
      await phone.page.goto(`${base}/`);
      await phone.page.locator('.trow[data-job="archived"]').waitFor();
      await openHistory(phone.page, 'archived');
      await phone.page.locator('.drawer .archive-open').first().click();
      await phone.page
        .locator('.drawer .archive-viewer:not([hidden]) .ln', { hasText: 'archived hello' })
        .waitFor();
      const overflow = await phone.page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
      await phone.page.screenshot({ path: join(ARTIFACTS, 'history-output-390x844.png') });
      assert.deepEqual(unexpectedErrors(phone.problems, OPTIONAL_404), []);
    } finally {
      await closePage(phone);
    }
  });

  assert.deepEqual(unexpectedErrors(problems, OPTIONAL_404), []);
  assert.deepEqual(await cspViolations(page), []);
  await closePage(opened);
});
