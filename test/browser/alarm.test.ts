// Browser test of the failure alarm (docs/dashboard.md "Alarm escalation") against the real
// built daemon: a failing job on the wallboard brings the red vignette and an incident timer that
// advances with the page's clock (page.clock, nothing waits for real); with audible cues on the
// standing alarm's tone repeats (counted by a wrapper around OscillatorNode.start: the real code
// path plays it) until `a` acknowledges, which also takes the vignette away; a new failure brings
// both back, the Acknowledge button works by keyboard, the setting turns the escalation off. The
// accessibility audit runs, and the strip fits 390 px. Screenshots go to test-artifacts/browser/.
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
import { ARTIFACTS, closePage, launchBrowser, openPage, unexpectedErrors } from './browser.js';

const CONFIG = `jobs:
  - name: calm
    command: echo calm
    schedule: "0 0 1 1 *"
  - name: breaks
    command: echo "disk full" >&2; exit 4
    schedule: "0 0 1 1 *"
  - name: also-breaks
    command: exit 3
    schedule: "0 0 1 1 *"
web:
  listen:
    - http://127.0.0.1:0
`;

const OPTIONAL_404 = [/^\/(node|cluster) 404$/, /^\/jobs\/[^/]+\/(resources|output) 404$/];
const PREFS_KEY = 'yacron2.dashboard.prefs';

/** Counts the square-wave oscillators started: the standing alarm's tones (two per alarm). */
const COUNT_ALARM_TONES = `
  globalThis.__alarmTones = 0;
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    if (this.type === 'square') globalThis.__alarmTones += 1;
    return start.apply(this, args);
  };
`;

function formatIssues(issues: readonly AuditIssue[]): string {
  return issues.map((issue) => `${issue.kind}: ${issue.element}: ${issue.detail}`).join('\n');
}

async function fail(base: string, job: string): Promise<void> {
  const before = await lastFinished(base, job);
  assert.equal(await post(`${base}/jobs/${job}/start`), 200);
  await waitUntil(async () => {
    const jobs = await getJson<
      { name: string; last_run: { outcome: string; finished_at: string } | null }[]
    >(`${base}/jobs`);
    const run = jobs.find((j) => j.name === job)?.last_run;
    return run?.outcome === 'failure' && run.finished_at !== before;
  }, `${job} failed`);
}

async function lastFinished(base: string, job: string): Promise<string | null> {
  const jobs = await getJson<{ name: string; last_run: { finished_at: string } | null }[]>(
    `${base}/jobs`,
  );
  return jobs.find((j) => j.name === job)?.last_run?.finished_at ?? null;
}

/** Moves the page's clock a second at a time until the next poll shows `job` failed. */
async function pollUntilFailed(page: Page, job: string): Promise<void> {
  const tile = page.locator(`.tile-failed[data-job="${job}"]`);
  await waitUntil(async () => {
    if (await tile.isVisible()) return true;
    await page.clock.runFor(1000);
    return false;
  }, `the wallboard shows ${job} failed`);
}

function tones(page: Page): Promise<number> {
  return page.evaluate(() => (globalThis as unknown as { __alarmTones: number }).__alarmTones);
}

/** The incident timer's seconds (`INCIDENT +1 m 05 s …` → 65). */
async function incidentSeconds(page: Page): Promise<number> {
  const text = (await page.locator('.tv-incident-time').textContent()) ?? '';
  const match = /^INCIDENT \+(?:(\d+) m )?(\d+) s/.exec(text);
  assert.ok(match, `incident text: ${text}`);
  return Number(match[1] ?? 0) * 60 + Number(match[2]);
}

test('the failure alarm in a real browser', { timeout: 180_000 }, async (t) => {
  const dir = await useTempDir(t);
  const daemon = startDaemon(t, ['-c', await writeConfig(dir, CONFIG)]);
  const base = await webUrlOf(daemon);
  const browser = await launchBrowser(t);
  const opened = await openPage(browser);
  const { page, context, problems } = opened;
  await context.addInitScript({ content: COUNT_ALARM_TONES });
  const start = Date.now();
  await page.clock.install({ time: start });
  await page.clock.pauseAt(start + 1000);
  await page.goto(`${base}/`);
  await page.evaluate(([key, text]) => localStorage.setItem(key, text), [
    PREFS_KEY,
    JSON.stringify({ selfTest: false, zen: false, sound: true }),
  ] as const);
  await page.goto(`${base}/#tv`);
  await page.reload();
  await page.locator('.wallboard:not([hidden]) .tile[data-job="calm"]').waitFor();
  // A key press is the gesture that lets the page's audio start.
  await page.keyboard.press('Shift');
  const vignette = page.locator('.wallboard .tv-alarm');
  const strip = page.locator('.wallboard .tv-incident');
  assert.equal(await vignette.isVisible(), false, 'nothing while no job fails');
  assert.equal(await strip.isVisible(), false);

  // A failure: the vignette, the timer, and the standing alarm.
  await fail(base, 'breaks');
  await pollUntilFailed(page, 'breaks');
  await vignette.waitFor();
  await strip.waitFor();
  assert.match(
    (await strip.textContent()) ?? '',
    /^INCIDENT \+\d+ s · 1 failing job unacknowledged/,
  );
  assert.equal(
    await vignette.evaluate((element) => getComputedStyle(element).animationName),
    'none',
    'still under reduced motion',
  );
  await waitUntil(async () => (await tones(page)) >= 2, 'the first alarm tone');
  const first = await incidentSeconds(page);
  await page.clock.runFor(5000);
  // Five seconds later by the page's clock (the strip redraws on each ticker second).
  const later = await incidentSeconds(page);
  assert.ok(
    later >= first + 4 && later <= first + 6,
    `the timer follows the clock: ${first} → ${later}`,
  );
  await page.clock.runFor(7000);
  await waitUntil(async () => (await tones(page)) >= 4, 'the alarm repeats');
  assert.equal(formatIssues(await page.evaluate(auditAccessibility)), '');
  await page.screenshot({ path: join(ARTIFACTS, 'alarm-wallboard-1280x800.png') });

  // `a` acknowledges: no vignette, a muted strip, no more tones.
  await page.keyboard.press('a');
  await vignette.waitFor({ state: 'hidden' });
  await page.locator('.tv-incident.acknowledged').waitFor();
  assert.match((await page.locator('.tv-incident-time').textContent()) ?? '', /· acknowledged$/);
  const quiet = await tones(page);
  await page.clock.runFor(20_000);
  assert.equal(await tones(page), quiet, 'silent once acknowledged');
  assert.equal(await vignette.isVisible(), false);

  // A new failure raises it again; the button acknowledges it by keyboard.
  await fail(base, 'also-breaks');
  await pollUntilFailed(page, 'also-breaks');
  await vignette.waitFor();
  assert.match((await strip.textContent()) ?? '', /1 failing job unacknowledged/);
  await waitUntil(async () => (await tones(page)) > quiet, 'the alarm again');

  // 390 px: the strip and its button fit.
  await page.setViewportSize({ width: 390, height: 800 });
  const button = strip.getByRole('button', { name: 'Acknowledge (a)' });
  const box = await button.boundingBox();
  assert.ok(
    box !== null && box.x >= 0 && box.x + box.width <= 390,
    `button box ${JSON.stringify(box)}`,
  );
  assert.ok(
    await page.evaluate(() => document.querySelector('.wallboard')!.scrollWidth <= 390),
    'no sideways scroll',
  );
  assert.equal(formatIssues(await page.evaluate(auditAccessibility)), '');
  await page.screenshot({ path: join(ARTIFACTS, 'alarm-wallboard-390.png') });
  await page.setViewportSize({ width: 1280, height: 800 });

  // The setting off: nothing shows while the failure stands; on again, it is back.
  const escalation = async (on: boolean): Promise<void> => {
    await page.keyboard.press(',');
    await page.locator('dialog.sheet[open]').getByLabel('Alarm escalation').setChecked(on);
    await page.keyboard.press('Escape');
    await page.locator('dialog.sheet[open]').waitFor({ state: 'detached' });
  };
  await escalation(false);
  await strip.waitFor({ state: 'hidden' });
  await page.clock.runFor(3000);
  assert.equal(await vignette.isVisible(), false, 'no vignette with the setting off');
  assert.equal(await strip.isVisible(), false, 'no timer with the setting off');
  await escalation(true);
  await vignette.waitFor();

  await button.focus();
  await page.keyboard.press('Enter');
  await vignette.waitFor({ state: 'hidden' });
  await page.locator('.tv-incident.acknowledged').waitFor();

  assert.deepEqual(unexpectedErrors(problems, OPTIONAL_404), []);
  await closePage(opened);
});
