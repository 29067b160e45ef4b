// Browser tests of the dashboard: the real built daemon on a random 127.0.0.1 port, Debian's
// Chromium driven by playwright-core, one browser for the whole file. Every wait is on a page
// condition with a bounded timeout; nothing sleeps. Screenshots go to test-artifacts/browser/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  REPO_ROOT,
  getJson,
  post,
  startDaemon,
  useTempDir,
  webUrlOf,
  writeConfig,
} from '../e2e/harness.js';
import { auditAccessibility, focusIndicator, type AuditIssue } from './audit.js';
import { assertPolicyCoversPage } from '../../src/http/testing.js';
import {
  ARTIFACTS,
  closePage,
  cspViolations,
  launchBrowser,
  openPage,
  unexpectedErrors,
} from './browser.js';

declare global {
  interface Window {
    /** The page's handle (src/web/main.ts). */
    __yacron2?: {
      readonly ctx: { readonly prefs: { update(change: Record<string, unknown>): void } };
    };
  }
}

interface JobBody {
  readonly name: string;
  readonly running: boolean;
  readonly last_run: { readonly outcome: string } | null;
}

const CONFIG = `jobs:
  - name: ticker
    command: echo tick
    schedule: "*/2 * * * * * *"
    captureStdout: true
  - name: manual
    command: printf 'manual run says hi\\n'; echo 'a warning' >&2; printf '\\033[31mred text\\033[0m\\n'
    schedule: "0 0 1 1 *"
    captureStdout: true
    captureStderr: true
    failsWhen:
      producesStdout: false
      producesStderr: false
  - name: long
    command: echo started; exec sleep 60
    schedule: "0 0 1 1 *"
    captureStdout: true
    killTimeout: 1
  - name: broken-a
    command: echo "database unreachable" >&2; exit 3
    schedule: "0 0 1 1 *"
    captureStderr: true
  - name: broken-b
    command: echo "database unreachable" >&2; exit 3
    schedule: "0 0 1 1 *"
    captureStderr: true
  - name: nightly-backup
    command: /usr/local/bin/backup --all --verify
    schedule: "30 2 * * *"
    timezone: America/New_York
  - name: paused
    command: "true"
    schedule: "@hourly"
    enabled: false
web:
  listen:
    - http://127.0.0.1:0
`;

/**
 * Routes a daemon without /node, resource sampling or a state store answers 404 (the page asks,
 * then hides or says so).
 */
const OPTIONAL_404 = [
  /^\/node 404$/,
  /^\/jobs\/[^/]+\/resources 404$/,
  /^\/jobs\/[^/]+\/output 404$/,
];

async function waitForJobs(base: string, check: (jobs: JobBody[]) => boolean): Promise<void> {
  const deadline = performance.now() + 15_000;
  for (;;) {
    if (check(await getJson<JobBody[]>(`${base}/jobs`))) return;
    if (performance.now() > deadline) throw new Error('timed out waiting for the job list');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function formatIssues(issues: readonly AuditIssue[]): string {
  return issues.map((issue) => `${issue.kind}: ${issue.element}: ${issue.detail}`).join('\n');
}

async function openJob(page: Page, job: string, tab: string): Promise<void> {
  await page.evaluate(([name, id]) => (location.hash = `#job/${encodeURIComponent(name)}/${id}`), [
    job,
    tab,
  ] as const);
  await page
    .locator(`.drawer:not([hidden]) .tab[data-tab="${tab}"][aria-selected="true"]`)
    .waitFor();
}

test('the dashboard in a real browser', { timeout: 180_000 }, async (t) => {
  const dir = await useTempDir(t);
  const daemon = startDaemon(t, ['-c', await writeConfig(dir, CONFIG)]);
  const base = await webUrlOf(daemon);
  // Two jobs fail the same way before the page opens (the verdict correlates them).
  assert.equal(await post(`${base}/jobs/broken-a/start`), 200);
  assert.equal(await post(`${base}/jobs/broken-b/start`), 200);
  await waitForJobs(
    base,
    (jobs) =>
      jobs.filter((job) => job.name.startsWith('broken-') && job.last_run?.outcome === 'failure')
        .length === 2,
  );

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser);

  await t.test(
    'the page loads with live data, the security headers and no console errors',
    async () => {
      const response = await page.goto(`${base}/`);
      assert.equal(response?.status(), 200);
      const headers = response?.headers() ?? {};
      // The default policy allows the served page's inline scripts and style by hash only.
      const policy = headers['content-security-policy'] ?? '';
      assertPolicyCoversPage((await response?.text()) ?? '', policy);
      assert.match(policy, /script-src 'sha256-[^;]+; style-src 'sha256-/);
      assert.equal(headers['x-frame-options'], 'DENY');
      await page.locator('.trow[data-job="ticker"]').waitFor();
      await page.locator('.conn[data-state="live"]').waitFor();
      assert.equal(await page.locator('.pill-total .pill-count').textContent(), '7');
      assert.equal(await page.locator('.pill-failing .pill-count').textContent(), '2');
      assert.match((await page.locator('.meta-version').textContent()) ?? '', /^v\d+\.\d+\.\d+/);
      assert.match(
        (await page.locator('.meta-jobset').getAttribute('title')) ?? '',
        /^v1:[0-9a-f]{64}$/,
      );
      assert.equal(
        await page.locator('.trow[data-job="nightly-backup"] .english').textContent(),
        'at 02:30, every day',
      );
      // The Next cell's tooltip is the next fire's wall time in the job's zone, written when the
      // pointer arrives (not on each update).
      const next = page.locator('.trow[data-job="nightly-backup"] .cell-next');
      await next.hover();
      assert.match(
        (await next.getAttribute('title')) ?? '',
        /^\d{4}-\d{2}-\d{2} 02:30:00 \(America\/New_York\)$/,
      );
      assert.deepEqual(unexpectedErrors(problems, OPTIONAL_404), []);
      assert.deepEqual(await cspViolations(page), []);
    },
  );

  await t.test('a job fires and its row updates without a reload', async () => {
    await page.evaluate(() => ((window as unknown as { loadedMark: number }).loadedMark = 42));
    // The trend sparkline gains a bar (its bars are drawn as one path per outcome).
    const runsShown = (): number =>
      Number(
        document.querySelector('.trow[data-job="ticker"] .spark')?.getAttribute('data-runs') ?? 0,
      );
    const before = await page.evaluate(runsShown);
    await page.waitForFunction(
      (count) =>
        Number(
          document.querySelector('.trow[data-job="ticker"] .spark')?.getAttribute('data-runs') ?? 0,
        ) > count,
      before,
      { timeout: 15_000 },
    );
    assert.equal(await page.locator('.trow[data-job="ticker"] .exit').textContent(), 'exit 0');
    assert.equal(
      await page.evaluate(() => (window as unknown as { loadedMark?: number }).loadedMark),
      42,
    );
  });

  await t.test('the verdict bar correlates the two failures', async () => {
    const text = await page.locator('.verdict:not([hidden]) .verdict-text').textContent();
    assert.equal(
      text,
      'FLEET EVENT — 2 jobs failing, 2 share exit=3 (failsWhen=nonzeroReturn and retcode=3) — likely one cause',
    );
  });

  await t.test('Run now starts a run and its output streams into the log tail', async () => {
    await openJob(page, 'manual', 'logs');
    await page.locator('.drawer .log-notice:not([hidden])').waitFor();
    await page.locator('.drawer button:has-text("Run now")').click();
    const lines = page.locator('.drawer .log-lines');
    await lines.locator('.ln-stdout', { hasText: 'manual run says hi' }).waitFor();
    await lines.locator('.ln-stderr', { hasText: 'a warning' }).waitFor();
    // ANSI colour: the escape is gone and the text carries the theme's red.
    await lines.locator('.a-fg-1', { hasText: 'red text' }).waitFor();
    const shown = (await lines.textContent()) ?? '';
    assert.ok(!shown.includes('\u001b') && !shown.includes('[31m'), shown);
    await lines.locator('.ln-marker', { hasText: 'end of run output' }).waitFor();
    // Search with a count.
    await page.locator('.drawer .log-search').fill('WARN');
    assert.equal(await page.locator('.drawer .log-count').textContent(), '1 match');
  });

  await t.test(
    'the history tab shows the run, and says this daemon archives no output',
    async () => {
      await page.locator('.drawer .tab[data-tab="history"]').click();
      await page.locator('.drawer table.runs tbody tr', { hasText: 'success' }).first().waitFor();
      // No `state:` section: no store, so no archived output and no Output column.
      await page.locator('.drawer .archive-note', { hasText: 'no state store' }).waitFor();
      assert.equal(await page.locator('.drawer .archive-open').count(), 0);
      assert.equal(
        await page.locator('.drawer .stat', { hasText: 'Runs' }).locator('dd').textContent(),
        '1',
      );
      assert.ok(page.url().endsWith('#job/manual/history'), page.url());
    },
  );

  await t.test('Cancel stops a long run', async () => {
    await openJob(page, 'long', 'logs');
    await page.locator('.drawer button:has-text("Run now")').click();
    await page.locator('.drawer .ln-stdout', { hasText: 'started' }).waitFor();
    await page.locator('.trow[data-job="long"][data-status="running"]').waitFor();
    await page.locator('.drawer button:has-text("Cancel"):not([disabled])').click();
    await page.locator('.trow[data-job="long"][data-status="cancelled"]').waitFor();
    await page.locator('.drawer .ln-marker', { hasText: 'end of run output' }).waitFor();
    const jobs = await getJson<JobBody[]>(`${base}/jobs`);
    const long = jobs.find((job) => job.name === 'long')!;
    assert.equal(long.running, false);
    assert.equal(long.last_run?.outcome, 'cancelled');
  });

  await t.test('the cron sandbox previews a DST-zone expression', async () => {
    await page.keyboard.press('Escape');
    await page.locator('.drawer').waitFor({ state: 'hidden' });
    await page.keyboard.press('Control+k');
    await page.locator('.palette-input').fill('cron sandbox');
    await page.keyboard.press('Enter');
    const sheet = page.locator('dialog.sheet[open]');
    await sheet.locator('h2', { hasText: 'Cron sandbox' }).waitFor();
    await sheet.getByLabel('Expression').fill('30 2 * 3,11 sun');
    await sheet.getByLabel('Timezone').fill('America/New_York');
    await sheet
      .locator('.english', { hasText: 'Valid: at 02:30, on Sunday, in March and November.' })
      .waitFor();
    assert.equal(await sheet.locator('.fires li').count(), 12);
    const note = sheet.locator('.dst-note', { hasText: 'spring forward' }).first();
    await note.waitFor();
    assert.match((await note.textContent()) ?? '', /fires at 03:30 instead/);
    await sheet.getByLabel('Expression').fill('61 * * * *');
    await sheet
      .locator('[role=alert]', {
        hasText: "invalid schedule '61 * * * *': minute 61 is out of range 0-59",
      })
      .waitFor();
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'hidden' });
  });

  await t.test(
    'keyboard: j/k and Enter open a job, ? lists the shortcuts, focus is always visible',
    async () => {
      await page.locator('body').click({ position: { x: 5, y: 790 } });
      await page.keyboard.press('j');
      await page.keyboard.press('Enter');
      await page.locator('.drawer:not([hidden])').waitFor();
      assert.match(page.url(), /#job\//);
      await page.keyboard.press('Escape');
      await page.locator('.drawer').waitFor({ state: 'hidden' });
      await page.keyboard.press('?');
      await page.locator('dialog.sheet[open] kbd', { hasText: 'Ctrl-K' }).waitFor();
      await page.keyboard.press('Escape');
      await page.locator('dialog.sheet').waitFor({ state: 'hidden' });
      await page.keyboard.press('/');
      assert.equal(
        await page.evaluate(() => document.activeElement?.getAttribute('type')),
        'search',
      );
      // The dialog's 'close' event is a queued task, so a key handled between Esc and that
      // event (here: focus moved by hand right after close()) must keep its focus.
      await page.locator('body').click({ position: { x: 5, y: 790 } });
      await page.keyboard.press('?');
      await page.locator('dialog.sheet[open] kbd', { hasText: 'Ctrl-K' }).waitFor();
      const keptFocus = await page.evaluate(
        () =>
          new Promise<string | null>((resolve) => {
            const sheet = document.querySelector('dialog.sheet');
            const filter = document.querySelector<HTMLInputElement>('input[type=search]');
            if (!(sheet instanceof HTMLDialogElement) || filter === null) {
              resolve('missing');
              return;
            }
            sheet.addEventListener(
              'close',
              () => setTimeout(() => resolve(document.activeElement?.getAttribute('type') ?? null)),
              { once: true },
            );
            sheet.close();
            filter.focus();
          }),
      );
      assert.equal(keptFocus, 'search');
      const stops: string[] = [];
      for (let i = 0; i < 30; i++) {
        await page.keyboard.press('Tab');
        const focus = await page.evaluate(focusIndicator);
        if (focus === null) continue;
        stops.push(focus.element);
        assert.ok(focus.visible, `no visible focus on ${focus.element}`);
      }
      assert.ok(
        stops.some((stop) => stop.startsWith('a') && stop.includes('broken')),
        `job links reachable: ${stops.join(', ')}`,
      );
    },
  );

  await t.test(
    'contrast and accessible names pass in every theme and colour-vision palette',
    async () => {
      // The audit itself catches what it should: low-contrast text and a nameless control.
      await page.evaluate(() => {
        const text = document.createElement('p');
        text.id = 'planted-text';
        text.textContent = 'barely readable';
        text.style.color = '#1c2a38';
        const button = document.createElement('button');
        button.id = 'planted-button';
        button.className = 'btn';
        button.append(document.createElement('span'));
        document.querySelector('.toolbar')!.append(text, button);
      });
      const caught = await page.evaluate(auditAccessibility);
      assert.deepEqual(
        caught.map((issue) => [issue.kind, issue.element]),
        [
          ['contrast', 'p "barely readable"'],
          ['name', 'button.btn'],
        ],
      );
      await page.evaluate(() => {
        for (const element of document.querySelectorAll('#planted-text, #planted-button'))
          element.remove();
      });

      await openJob(page, 'manual', 'logs');
      const failures: string[] = [];
      const combos: [string, string, string][] = [];
      for (const theme of ['carolina', 'amber', 'green', 'modern', 'standard']) {
        for (const mode of ['dark', 'light']) combos.push([theme, mode, 'normal']);
      }
      for (const vision of ['red-green', 'blue-yellow']) {
        for (const mode of ['dark', 'light']) combos.push(['carolina', mode, vision]);
      }
      for (const [theme, mode, vision] of combos) {
        await page.evaluate(
          ([th, mo, vi]) => window.__yacron2!.ctx.prefs.update({ theme: th, mode: mo, vision: vi }),
          [theme, mode, vision] as const,
        );
        await page.waitForFunction(
          ([th, mo]) =>
            document.documentElement.dataset['theme'] === th &&
            document.documentElement.dataset['mode'] === mo,
          [theme, mode] as const,
        );
        const issues = await page.evaluate(auditAccessibility);
        if (issues.length > 0)
          failures.push(`${theme}/${mode}/${vision}:\n${formatIssues(issues)}`);
      }
      await page.evaluate(() =>
        window.__yacron2!.ctx.prefs.update({ theme: 'carolina', mode: 'dark', vision: 'normal' }),
      );
      // Panels: the timeline and the palette.
      await page.keyboard.press('Escape');
      await page.keyboard.press('i');
      await page.locator('dialog.sheet[open] .tl-item').first().waitFor();
      const panelIssues = await page.evaluate(auditAccessibility);
      if (panelIssues.length > 0) failures.push(`timeline:\n${formatIssues(panelIssues)}`);
      await page.keyboard.press('Escape');
      assert.equal(failures.join('\n\n'), '');
    },
  );

  await t.test(
    'screenshots at 1280×800 and 390×844; the phone layout keeps Run and Logs',
    async () => {
      await page.evaluate(() => (location.hash = ''));
      await page.locator('.drawer').waitFor({ state: 'hidden' });
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-1280x800.png') });
      await openJob(page, 'manual', 'logs');
      await page.locator('.drawer .ln-stdout').first().waitFor();
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-drawer-1280x800.png') });

      const phone = await openPage(browser, { width: 390, height: 844 });
      await phone.page.goto(`${base}/`);
      await phone.page.locator('.trow[data-job="ticker"]').waitFor();
      await phone.page.screenshot({ path: join(ARTIFACTS, 'dashboard-390x844.png') });
      assert.ok(
        await phone.page.locator('.trow[data-job="ticker"] [data-action="logs"]').isVisible(),
      );
      const overflow = await phone.page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
      const phoneIssues = await phone.page.evaluate(auditAccessibility);
      assert.equal(formatIssues(phoneIssues), '');
      assert.deepEqual(unexpectedErrors(phone.problems, OPTIONAL_404), []);
      await closePage(phone);
    },
  );

  await t.test('the wallboard dims under NO SIGNAL when polls fail for 15 s', async () => {
    const tv = await openPage(browser);
    await tv.page.clock.install();
    await tv.page.goto(`${base}/#tv`);
    await tv.page.locator('.wallboard:not([hidden]) .tile[data-job="ticker"]').waitFor();
    assert.equal(await tv.page.locator('.tv-banner').isVisible(), false);
    await tv.page.route('**/jobs', (route) => route.abort());
    await tv.page.clock.runFor(20_000);
    await tv.page.locator('.wallboard.stale .tv-banner', { hasText: 'NO SIGNAL' }).waitFor();
    await closePage(tv);
  });

  assert.deepEqual(unexpectedErrors(problems, OPTIONAL_404), []);
  assert.deepEqual(await cspViolations(page), []);
});

/**
 * Records which line of the page sent each `GET /jobs` (CDP `Network.requestWillBeSent`'s
 * initiator), to tell the <head> script's early request (docs/dashboard.md "First render") from
 * the bundle's polls; `headLines` is how many lines the page's <head> spans.
 */
async function jobsInitiators(page: Page): Promise<{ lines: number[]; headLines: number }> {
  const lines: number[] = [];
  const cdp = await page.context().newCDPSession(page);
  cdp.on('Network.requestWillBeSent', (event) => {
    if (new URL(event.request.url).pathname !== '/jobs') return;
    lines.push(event.initiator.stack?.callFrames[0]?.lineNumber ?? -1);
  });
  await cdp.send('Network.enable');
  const html = readFileSync(join(REPO_ROOT, 'dist/web/index.html'), 'utf8');
  return { lines, headLines: html.slice(0, html.indexOf('</head>')).split('\n').length };
}

test(
  'the token prompt, the per-tab token and a strict hash-based CSP',
  { timeout: 90_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const hashes = readFileSync(join(REPO_ROOT, 'dist/web/csp-hashes.txt'), 'utf8');
    const script = /^script-src (.+)$/m.exec(hashes)![1]!;
    const style = /^style-src (.+)$/m.exec(hashes)![1]!;
    const csp = `default-src 'none'; script-src ${script}; style-src ${style}; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
    const daemon = startDaemon(t, [
      '-c',
      await writeConfig(
        dir,
        `jobs:
  - name: secret-job
    command: echo hi
    schedule: "0 0 1 1 *"
web:
  listen:
    - http://127.0.0.1:0
  authToken:
    value: browser-test-token
  headers:
    Content-Security-Policy: "${csp}"
`,
      ),
    ]);
    const base = await webUrlOf(daemon);
    const browser = await launchBrowser(t);
    const { page, context, problems } = await openPage(browser);

    const response = await page.goto(`${base}/`);
    assert.equal(response?.headers()['content-security-policy'], csp);
    const dialog = page.locator('dialog.token-dialog[open]');
    await dialog.waitFor();
    assert.equal(await page.locator('.tbody .trow').count(), 0);
    await dialog.locator('input[type=password]').fill('browser-test-token');
    await dialog.locator('button', { hasText: 'Use token' }).click();
    await page.locator('.trow[data-job="secret-job"]').waitFor();
    assert.equal(
      await page.evaluate(() => sessionStorage.getItem('yacron2.dashboard.token')),
      'browser-test-token',
    );
    assert.equal(await page.evaluate(() => localStorage.getItem('yacron2.dashboard.token')), null);

    // A reload of the tab keeps the token; another tab has to ask again. The rows come from the
    // early request of the page's <head>, sent with the stored token before the bundle ran.
    const initiators = await jobsInitiators(page);
    await page.reload();
    await page.locator('.trow[data-job="secret-job"]').waitFor();
    assert.equal(await page.locator('dialog.token-dialog[open]').count(), 0);
    assert.ok(initiators.lines.length >= 1);
    assert.ok(initiators.lines[0]! >= 0 && initiators.lines[0]! < initiators.headLines, 'early');
    const other = await context.newPage();
    await other.goto(`${base}/`);
    await other.locator('dialog.token-dialog[open]').waitFor();
    await other.close();

    // The URL `npm start` prints carries the token in the fragment: taken, stored, removed.
    const linked = await context.browser()!.newContext();
    const linkedPage = await linked.newPage();
    await linkedPage.goto(`${base}/#token=browser-test-token`);
    await linkedPage.locator('.trow[data-job="secret-job"]').waitFor();
    assert.equal(new URL(linkedPage.url()).hash, '');
    assert.equal(await linkedPage.locator('dialog.token-dialog[open]').count(), 0);
    await linked.close();

    // The strict CSP (hashes instead of 'unsafe-inline') let the page run: no violation reports.
    const allowed = [/^\/(jobs|node|cluster|dags|version|job-set-id) 401$/, /^\/node 404$/];
    assert.deepEqual(unexpectedErrors(problems, allowed), []);
    assert.deepEqual(await cspViolations(page), []);
  },
);
