// Browser tests of the screen features (docs/dashboard.md "Screen: scale, font, CRT, zen,
// self-test"): the UI scale and font chosen in the settings change the page's computed styles and
// survive a reload (a bad stored value falls back); the start-up self-test runs at load against a
// real daemon with every line OK, shows FAIL and lets the page start with a wrong token, is
// skipped by a key and under reduced motion; the wallboard's zen screensaver engages after the
// idle time (the page's clock moved by page.clock, nothing waits for real), input wakes it and a
// failure ends it; the CRT overlay shows on a CRT theme, stops flickering under reduced motion and
// is off, with its setting disabled and the reason shown, on a flat theme. The accessibility audit
// runs on each. Screenshots go to test-artifacts/browser/.
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
import { auditAccessibility, type AuditIssue } from './audit.js';
import {
  ARTIFACTS,
  closePage,
  cspViolations,
  launchBrowser,
  openPage,
  unexpectedErrors,
} from './browser.js';

const CONFIG = `jobs:
  - name: calm
    command: echo calm
    schedule: "0 0 1 1 *"
  - name: nightly
    command: echo nightly
    schedule: "30 2 * * *"
  - name: breaks
    command: echo "disk full" >&2; exit 4
    schedule: "0 0 1 1 *"
    captureStderr: true
  - name: paused
    command: "true"
    schedule: "@hourly"
    enabled: false
web:
  listen:
    - http://127.0.0.1:0
`;

/** Routes this daemon answers 404 (the page asks, then hides or says so). */
const OPTIONAL_404 = [/^\/(node|cluster) 404$/, /^\/jobs\/[^/]+\/(resources|output) 404$/];

const PREFS_KEY = 'yacron2.dashboard.prefs';
const STEPS = ['daemon', 'token', 'version', 'job-set', 'cluster', 'jobs'] as const;

function formatIssues(issues: readonly AuditIssue[]): string {
  return issues.map((issue) => `${issue.kind}: ${issue.element}: ${issue.detail}`).join('\n');
}

async function bodyStyle(page: Page): Promise<{ size: string; family: string; root: string }> {
  return page.evaluate(() => ({
    size: getComputedStyle(document.body).fontSize,
    family: getComputedStyle(document.body).fontFamily,
    root: getComputedStyle(document.documentElement).fontSize,
  }));
}

/** Stores `prefs` for the page's origin and loads `hash` afresh. */
async function loadWithPrefs(
  page: Page,
  base: string,
  prefs: Record<string, unknown>,
  hash = '',
): Promise<void> {
  await page.evaluate(([key, text]) => localStorage.setItem(key, text), [
    PREFS_KEY,
    JSON.stringify(prefs),
  ] as const);
  // A goto that changes only the hash stays in the document: the reload reads the prefs afresh.
  await page.goto(`${base}/${hash}`);
  await page.reload();
}

/** The self-test's lines as `step outcome`. */
/**
 * Moves the page's clock by `totalMs` a second at a time, letting each `GET /jobs` poll the step
 * started land before the next step: the polls travel in real time while the clock jumps, and a
 * jump past a poll still in flight would age the data into STALE (which blocks zen).
 */
async function runClockWithPolls(page: Page, pollsInFlight: () => number, totalMs: number) {
  for (let left = totalMs; left > 0; left -= 1000) {
    await page.clock.runFor(Math.min(1000, left));
    await waitUntil(() => pollsInFlight() === 0, "the page's GET /jobs polls to land", {
      timeoutMs: 15_000,
    });
  }
}

/** Counts the page's `GET /jobs` polls still waiting for their answer. */
function trackPolls(page: Page): () => number {
  const pending = new Set<unknown>();
  const isPoll = (url: string): boolean => new URL(url).pathname === '/jobs';
  page.on('request', (request) => {
    if (request.method() === 'GET' && isPoll(request.url())) pending.add(request);
  });
  const settle = (request: unknown): void => void pending.delete(request);
  page.on('requestfinished', settle);
  page.on('requestfailed', settle);
  return () => pending.size;
}

async function selfTestLines(page: Page): Promise<string[]> {
  return page
    .locator('.post-line')
    .evaluateAll((lines) =>
      lines.map(
        (line) =>
          `${line.getAttribute('data-step') ?? ''} ${line.querySelector('.post-result')?.getAttribute('data-outcome') ?? ''}`,
      ),
    );
}

test('screen features in a real browser', { timeout: 240_000 }, async (t) => {
  const dir = await useTempDir(t);
  const daemon = startDaemon(t, ['-c', await writeConfig(dir, CONFIG)]);
  const base = await webUrlOf(daemon);
  const browser = await launchBrowser(t);

  await t.test(
    'UI scale and font: set in the settings, applied, kept across a reload',
    async () => {
      const opened = await openPage(browser);
      const { page, problems } = opened;
      await page.goto(`${base}/`);
      await page.locator('.trow[data-job="calm"]').waitFor();
      const plain = await bodyStyle(page);
      assert.equal(plain.size, '14px');
      assert.equal(plain.root, '16px');
      assert.doesNotMatch(plain.family, /monospace/);

      await page.keyboard.press(',');
      const settings = page.locator('dialog.sheet[open]');
      await settings.getByLabel('UI scale').selectOption('125');
      await settings.getByLabel('Font', { exact: true }).selectOption('mono');
      const scaled = await bodyStyle(page);
      assert.equal(scaled.size, '17.5px');
      assert.equal(scaled.root, '20px');
      assert.match(scaled.family, /monospace/);
      assert.equal(formatIssues(await page.evaluate(auditAccessibility)), '');
      await page.screenshot({ path: join(ARTIFACTS, 'screen-settings-1280x800.png') });
      await page.keyboard.press('Escape');

      await page.reload();
      await page.locator('.trow[data-job="calm"]').waitFor();
      assert.deepEqual(await bodyStyle(page), scaled);
      await page.keyboard.press(',');
      assert.equal(await settings.getByLabel('UI scale').inputValue(), '125');
      assert.equal(await settings.getByLabel('Font', { exact: true }).inputValue(), 'mono');
      await page.keyboard.press('Escape');

      // The palette steps the scale and says so.
      await page.keyboard.press('Control+k');
      await page.locator('dialog.palette[open] input').fill('next ui scale');
      await page.keyboard.press('Enter');
      await page.locator('.toast', { hasText: 'UI scale: 140%' }).waitFor();
      assert.equal((await bodyStyle(page)).size, '19.6px');

      // A stored value the page does not know falls back to the default.
      await loadWithPrefs(page, base, { uiScale: 333, font: 'comic' });
      await page.locator('.trow[data-job="calm"]').waitFor();
      const fallback = await bodyStyle(page);
      assert.equal(fallback.size, '14px');
      assert.doesNotMatch(fallback.family, /monospace/);
      assert.deepEqual(unexpectedErrors(problems, OPTIONAL_404), []);
      assert.deepEqual(await cspViolations(page), []);
      await closePage(opened);

      // The largest scale in monospace still fits a 390 px phone.
      const phone = await openPage(browser, { width: 390, height: 844 });
      await phone.page.goto(`${base}/`);
      await loadWithPrefs(phone.page, base, { uiScale: 140, font: 'mono' });
      await phone.page.locator('.trow[data-job="calm"]').waitFor();
      assert.equal((await bodyStyle(phone.page)).size, '19.6px');
      const overflow = await phone.page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
      assert.ok(
        await phone.page.locator('.trow[data-job="calm"] [data-action="logs"]').isVisible(),
      );
      await phone.page.screenshot({ path: join(ARTIFACTS, 'screen-scale-font-390x844.png') });
      assert.equal(formatIssues(await phone.page.evaluate(auditAccessibility)), '');
      await closePage(phone);
    },
  );

  await t.test('the start-up self-test checks every step, then the page is there', async () => {
    const opened = await openPage(browser);
    const { page, problems } = opened;
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    // The page's clock stands still: the screen moves on only as the test advances it, and each
    // step's request is answered for real before that.
    const start = Date.now();
    await page.clock.install({ time: start });
    await page.clock.pauseAt(start + 1000);
    await page.goto(`${base}/`);
    await page.locator('.post').waitFor();
    await page.clock.runFor(200);
    for (const step of STEPS) {
      await page
        .locator(`.post-line[data-step="${step}"] .post-result:not([data-outcome="pending"])`)
        .waitFor();
      await page.clock.runFor(200);
    }
    await page
      .locator('.post[data-verdict="ready"] .post-verdict', { hasText: 'READY.' })
      .waitFor();
    assert.deepEqual(
      await selfTestLines(page),
      STEPS.map((step) => `${step} ok`),
    );
    const details = await page.locator('.post-detail').allTextContents();
    assert.equal(details[1], 'not needed');
    assert.match(details[2] ?? '', /^\d+\.\d+\.\d+/);
    assert.match(details[3] ?? '', /^v1:[0-9a-f]{8}… · 4 jobs$/);
    assert.equal(details[4], 'standalone (no cluster)');
    assert.equal(details[5], '4 jobs loaded');
    assert.equal(formatIssues(await page.evaluate(auditAccessibility)), '');
    await page.screenshot({ path: join(ARTIFACTS, 'screen-self-test-1280x800.png') });
    // The page was built underneath all along.
    assert.equal(await page.locator('.trow[data-job="calm"]').count(), 1);
    await page.clock.runFor(1000);
    await page.locator('.post').waitFor({ state: 'hidden' });
    assert.ok(await page.locator('.trow[data-job="calm"]').isVisible());
    assert.deepEqual(unexpectedErrors(problems, OPTIONAL_404), []);
    assert.deepEqual(await cspViolations(page), []);
    await closePage(opened);
  });

  await t.test('a key skips the self-test and does nothing else', async () => {
    const opened = await openPage(browser);
    const { page } = opened;
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    const start = Date.now();
    await page.clock.install({ time: start });
    await page.clock.pauseAt(start + 1000);
    await page.goto(`${base}/`);
    await page.locator('.post').waitFor();
    await page.keyboard.press('?');
    await page.locator('.post').waitFor({ state: 'hidden' });
    assert.equal(await page.locator('dialog[open]').count(), 0, 'the key opened nothing');
    await page.clock.runFor(100);
    await page.locator('.trow[data-job="calm"]').waitFor();
    // The next key is the page's again.
    await page.keyboard.press('?');
    await page.locator('dialog.sheet[open]').waitFor();
    await closePage(opened);
  });

  await t.test('no self-test under reduced motion, or with the setting off', async () => {
    const opened = await openPage(browser); // reduced motion
    const { page } = opened;
    await page.goto(`${base}/`);
    await page.locator('.trow[data-job="calm"]').waitFor();
    assert.equal(await page.locator('.post').isVisible(), false);
    assert.equal(
      await page.evaluate(() => localStorage.getItem('yacron2.dashboard.self-test-shown')),
      null,
    );
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await loadWithPrefs(page, base, { selfTest: false });
    await page.locator('.trow[data-job="calm"]').waitFor();
    assert.equal(await page.locator('.post').isVisible(), false);
    // On, but shown an hour ago: at most once in 12 hours.
    await page.evaluate(() =>
      localStorage.setItem('yacron2.dashboard.self-test-shown', String(Date.now() - 3_600_000)),
    );
    await loadWithPrefs(page, base, { selfTest: true });
    await page.locator('.trow[data-job="calm"]').waitFor();
    assert.equal(await page.locator('.post').isVisible(), false);
    // Turned off and on again in the settings: shown at the next load.
    await page.keyboard.press(',');
    const box = page.locator('dialog.sheet[open]').getByLabel(/^Start-up self-test/);
    await box.uncheck();
    await box.check();
    await page.keyboard.press('Escape');
    await page.reload();
    await page.locator('.post').waitFor();
    await page.locator('.post[data-verdict]').waitFor({ state: 'attached' });
    await closePage(opened);
  });

  await t.test(
    'the zen screensaver: idle engages it, input wakes it, a failure ends it',
    async () => {
      const opened = await openPage(browser);
      const { page, problems } = opened;
      const polls = trackPolls(page);
      const start = Date.now();
      await page.clock.install({ time: start });
      await page.clock.pauseAt(start + 1000);
      await page.goto(`${base}/#tv`);
      await page.locator('.wallboard:not([hidden]) .tile[data-job="calm"]').waitFor();
      // The shortest idle time, chosen in the settings by keyboard.
      await page.keyboard.press(',');
      await page
        .locator('dialog.sheet[open]')
        .getByLabel('Zen after the wallboard is idle for')
        .selectOption('5000');
      await page.keyboard.press('Escape');
      await page.locator('dialog.sheet[open]').waitFor({ state: 'detached' });
      const zen = page.locator('.wallboard .zen');

      await runClockWithPolls(page, polls, 2000);
      assert.equal(await zen.isVisible(), false, 'not before the idle time');
      await runClockWithPolls(page, polls, 5000);
      await zen.waitFor();
      assert.match(
        (await zen.locator('.zen-summary').textContent()) ?? '',
        /^3 jobs armed · \d\d:\d\d:\d\d UTC · next nightly in /,
      );
      assert.equal(await zen.locator('.zen-dot').count(), 3);
      assert.equal(formatIssues(await page.evaluate(auditAccessibility)), '');
      await page.screenshot({ path: join(ARTIFACTS, 'screen-zen-1280x800.png') });

      // A pointer move wakes it; so does a key, which still reaches the page.
      await page.mouse.move(300, 300);
      await zen.waitFor({ state: 'hidden' });
      assert.ok(await page.locator('.tile[data-job="calm"]').isVisible());
      await runClockWithPolls(page, polls, 7000);
      await zen.waitFor();
      await page.keyboard.press('Shift');
      await zen.waitFor({ state: 'hidden' });
      await runClockWithPolls(page, polls, 7000);
      await zen.waitFor();

      // A failure ends it at the next poll, and keeps it away.
      assert.equal(await post(`${base}/jobs/breaks/start`), 200);
      await waitUntil(
        async () =>
          (
            await getJson<{ name: string; last_run: { outcome: string } | null }[]>(`${base}/jobs`)
          ).find((job) => job.name === 'breaks')?.last_run?.outcome === 'failure',
        'the job failed',
      );
      await runClockWithPolls(page, polls, 2500);
      await zen.waitFor({ state: 'hidden' });
      await page.locator('.tile-failed[data-job="breaks"]').waitFor();
      await runClockWithPolls(page, polls, 8000);
      assert.equal(await zen.isVisible(), false, 'not while a job fails');
      assert.deepEqual(unexpectedErrors(problems, OPTIONAL_404), []);
      await closePage(opened);
    },
  );

  await t.test(
    'CRT effects: on a CRT theme, still under reduced motion, off on flat themes',
    async () => {
      const opened = await openPage(browser);
      const { page, problems } = opened;
      await page.goto(`${base}/`);
      await page.emulateMedia({ reducedMotion: 'no-preference' });
      await loadWithPrefs(
        page,
        base,
        { theme: 'green', crt: true, scanlines: true, selfTest: false },
        '#tv',
      );
      await page.locator('.wallboard:not([hidden]) .tile[data-job="breaks"]').waitFor();
      const crt = page.locator('.crt');
      await crt.waitFor();
      const drawn = (): Promise<{
        animation: string;
        lines: string;
        vignette: string;
        wall: string;
      }> =>
        page.evaluate(() => {
          const overlay = document.querySelector('.crt')!;
          return {
            animation: getComputedStyle(overlay).animationName,
            lines: getComputedStyle(overlay, '::before').backgroundImage,
            vignette: getComputedStyle(overlay, '::after').backgroundImage,
            wall: getComputedStyle(document.querySelector('.wallboard')!).backgroundImage,
          };
        });
      const on = await drawn();
      assert.equal(on.animation, 'crt-flicker');
      assert.match(on.lines, /^repeating-linear-gradient/);
      assert.match(on.vignette, /^radial-gradient/);
      assert.match(on.wall, /^radial-gradient/);
      assert.equal(
        await crt.evaluate((element) => getComputedStyle(element).pointerEvents),
        'none',
      );
      await page.screenshot({ path: join(ARTIFACTS, 'screen-crt-wallboard-1280x800.png') });
      // The overlay takes no click: a tile under it opens its job.
      await page.locator('.tile[data-job="calm"]').click();
      await page.locator('.drawer:not([hidden])').waitFor();

      await page.emulateMedia({ reducedMotion: 'reduce' });
      await page.waitForFunction(() => document.documentElement.dataset['flicker'] === 'off');
      assert.equal((await drawn()).animation, 'none');
      assert.ok(await crt.isVisible(), 'the still effects stay');

      await page.keyboard.press('Escape');
      await page.keyboard.press(',');
      const settings = page.locator('dialog.sheet[open]');
      const effects = settings.getByLabel('CRT effects (glow, vignette, flicker)');
      assert.equal(await effects.isChecked(), true);
      assert.equal(await effects.isDisabled(), false);
      assert.equal(formatIssues(await page.evaluate(auditAccessibility)), '');
      await settings.getByLabel('Theme (t cycles)').selectOption('modern');
      await crt.waitFor({ state: 'hidden' });
      assert.equal(await effects.isDisabled(), true);
      assert.equal(await settings.getByLabel('Scanlines').isDisabled(), true);
      assert.match(
        (await settings.locator('.setting-note:not([hidden])').first().textContent()) ?? '',
        /flat screens/,
      );
      assert.equal(formatIssues(await page.evaluate(auditAccessibility)), '');
      await settings.getByLabel('Theme (t cycles)').selectOption('amber');
      await crt.waitFor();
      assert.equal(await effects.isDisabled(), false);
      assert.deepEqual(unexpectedErrors(problems, OPTIONAL_404), []);
      assert.deepEqual(await cspViolations(page), []);
      await closePage(opened);
    },
  );
});

test(
  'the self-test with a wrong token: FAIL, and the page still starts',
  { timeout: 90_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const daemon = startDaemon(t, [
      '-c',
      await writeConfig(
        dir,
        `jobs:
  - name: guarded
    command: echo hi
    schedule: "0 0 1 1 *"
web:
  listen:
    - http://127.0.0.1:0
  authToken:
    value: screen-test-token
`,
      ),
    ]);
    const base = await webUrlOf(daemon);
    const browser = await launchBrowser(t);
    const opened = await openPage(browser);
    const { page, problems } = opened;
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await page.goto(`${base}/#token=wrong-token`);
    await page.locator('.post[data-verdict="halted"]').waitFor({ state: 'attached' });
    assert.deepEqual(await selfTestLines(page), [
      'daemon ok',
      'token fail',
      'version skipped',
      'job-set skipped',
      'cluster skipped',
      'jobs skipped',
    ]);
    assert.match(
      (await page.locator('.post-line[data-step="token"] .post-detail').textContent()) ?? '',
      /^refused/,
    );
    // The page started meanwhile and asks for the token; with it the jobs come.
    const dialog = page.locator('dialog.token-dialog[open]');
    await dialog.waitFor();
    await dialog.locator('input[type=password]').fill('screen-test-token');
    await dialog.locator('button', { hasText: 'Use token' }).click();
    await page.locator('.trow[data-job="guarded"]').waitFor();
    await page.locator('.post').waitFor({ state: 'hidden' });
    const allowed = [/^\/(jobs|node|cluster|dags|version|job-set-id) 401$/, /^\/node 404$/];
    assert.deepEqual(unexpectedErrors(problems, allowed), []);
    await closePage(opened);
  },
);
