// Browser test of the run ledger, desktop notifications and audible cues (docs/dashboard.md
// "Run ledger, notifications and cues") against the real built daemon: a ledger turned on in the
// settings records a seconds-schedule job's runs and still holds them after a reload; a failing
// job raises a desktop notification (the context grants the permission, an init script records
// each `new Notification` before calling the real one) only while the setting is on and never
// for a failure that finished before the page loaded; a job whose latest run is far longer than
// the baseline of its stored runs (seeded in IndexedDB through the page) gets the `slow` chip
// and the History tab's ledger note; the settings pass the accessibility audit, by keyboard and
// at 390 px. Screenshots in test-artifacts/browser/. Every wait is on a page or HTTP condition
// with a bounded timeout.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { post, startDaemon, useTempDir, webUrlOf, writeConfig } from '../e2e/harness.js';
import { auditAccessibility } from './audit.js';
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
    /** What the recording Notification wrapper saw (the init script below). */
    __notifications?: { readonly title: string; readonly body: string }[];
  }
}

const OPTIONAL_404 = [
  /^\/node 404$/,
  /^\/jobs\/[^/]+\/resources 404$/,
  // The History tab asks for archived output; a daemon without a store answers 404.
  /^\/jobs\/[^/]+\/output 404$/,
];

const CONFIG = `jobs:
  - name: ticker
    command: echo tick
    schedule: "*/2 * * * * * *"
  - name: failing
    command: echo "disk full" >&2; exit 3
    schedule: "0 0 0 1 1 * 2099"
    captureStderr: true
  - name: slowjob
    command: sleep 1.2
    schedule: "0 0 0 1 1 * 2099"
web:
  listen:
    - http://127.0.0.1:0
`;

/** Records each Notification constructed, then constructs the real one. */
const RECORD_NOTIFICATIONS = `(() => {
  const Real = window.Notification;
  if (Real === undefined) return;
  window.__notifications = [];
  class Recording extends Real {
    constructor(title, options) {
      window.__notifications.push({ title, body: (options && options.body) || '' });
      super(title, options);
    }
  }
  window.Notification = Recording;
})();`;

const PREFS_KEY = 'yacron2.dashboard.prefs';

async function openSettings(page: Page): Promise<void> {
  await page.locator('body').press(',');
  await page.locator('dialog.sheet[open] .settings').waitFor();
}

async function closeSheet(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await page.locator('dialog.sheet[open]').waitFor({ state: 'detached' });
}

/** The rows stored in the page's IndexedDB ledger (ids). */
function storedIds(page: Page): Promise<string[]> {
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const request = indexedDB.open('yacron2-run-ledger', 1);
        request.onupgradeneeded = () => request.result.createObjectStore('runs', { keyPath: 'id' });
        request.onerror = () => reject(new Error('cannot open the ledger database'));
        request.onsuccess = () => {
          const keys = request.result.transaction('runs').objectStore('runs').getAllKeys();
          keys.onsuccess = () => {
            request.result.close();
            resolve(keys.result.map(String));
          };
        };
      }),
  );
}

/** The next `/jobs` answers the page receives. */
async function polls(page: Page, count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    await page.waitForResponse((response) => new URL(response.url()).pathname === '/jobs');
}

test('run ledger, slow chip, desktop notifications', { timeout: 180_000 }, async (t) => {
  const dir = await useTempDir(t);
  const daemon = startDaemon(t, ['-c', await writeConfig(dir, CONFIG)]);
  const base = await webUrlOf(daemon);
  const browser = await launchBrowser(t);

  await t.test('the ledger records runs and still holds them after a reload', async () => {
    const opened = await openPage(browser);
    const { page } = opened;
    try {
      await page.goto(`${base}/`);
      await page.locator('.trow[data-job="ticker"]').waitFor();
      await openSettings(page);
      const toggle = page.getByRole('checkbox', { name: /^Run ledger/ });
      assert.equal(await toggle.isChecked(), false, 'off by default');
      await toggle.focus();
      await page.keyboard.press('Space');
      const stat = page.locator('.ledger-stat');
      await page.waitForFunction(
        () =>
          /^[1-9]\d* runs? · 1 job/.test(document.querySelector('.ledger-stat')?.textContent ?? ''),
        undefined,
        { timeout: 20_000 },
      );
      await page.waitForFunction(
        () =>
          new Promise<boolean>((resolve) => {
            const request = indexedDB.open('yacron2-run-ledger', 1);
            request.onerror = () => resolve(false);
            request.onsuccess = () => {
              const count = request.result.transaction('runs').objectStore('runs').count();
              count.onsuccess = () => {
                request.result.close();
                resolve(count.result > 0);
              };
              count.onerror = () => resolve(false);
            };
          }),
        undefined,
        { polling: 200 },
      );
      const before = await storedIds(page);
      assert.ok(
        before.every((id) => id.startsWith('ticker|')),
        before.join(', '),
      );
      assert.equal(new Set(before).size, before.length);

      await page.reload();
      await page.locator('.trow[data-job="ticker"]').waitFor();
      await page.evaluate(() => (location.hash = '#job/ticker/history'));
      const note = page.locator('.drawer .ledger-note:not([hidden])');
      await note.waitFor();
      const noteText = (await note.textContent()) ?? '';
      const match = /^Run ledger \(this browser\): (\d+) runs? · /.exec(noteText);
      assert.ok(match !== null, noteText);
      assert.ok(Number(match[1]) >= before.length, `${match[1]} runs after the reload`);
      const after = await storedIds(page);
      for (const id of before) assert.ok(after.includes(id), `${id} kept`);
      await page.evaluate(() => (location.hash = ''));
      await page.locator('.drawer').waitFor({ state: 'hidden' });
      await openSettings(page);
      assert.equal(await page.getByRole('checkbox', { name: /^Run ledger/ }).isChecked(), true);
      assert.match((await stat.textContent()) ?? '', /^[1-9]\d* runs? · 1 job · ~/);
      // Purge empties it, here and in storage.
      await page.getByRole('button', { name: 'Purge' }).click();
      await page.waitForFunction(() =>
        document.querySelector('.ledger-stat')?.textContent?.startsWith('0 runs'),
      );
      assert.deepEqual(await storedIds(page), []);
      assert.deepEqual(unexpectedErrors(opened.problems, OPTIONAL_404), []);
      assert.deepEqual(await cspViolations(page), []);
    } finally {
      await closePage(opened);
    }
  });

  await t.test('a failing job raises a desktop notification only while it is on', async () => {
    const opened = await openPage(browser);
    const { page, context } = opened;
    try {
      await context.grantPermissions(['notifications'], { origin: base });
      await context.addInitScript({ content: RECORD_NOTIFICATIONS });
      await page.goto(`${base}/`);
      await page.locator('.trow[data-job="failing"]').waitFor();
      // Off: a failure raises nothing.
      assert.equal(await post(`${base}/jobs/failing/start`), 200);
      await page.locator('.trow[data-job="failing"][data-status="failed"]').waitFor();
      await polls(page, 1);
      assert.deepEqual(await page.evaluate(() => window.__notifications), []);

      await openSettings(page);
      const toggle = page.getByRole('checkbox', { name: /^Desktop notifications/ });
      await toggle.focus();
      await page.keyboard.press('Space');
      await page.waitForFunction(() =>
        localStorage.getItem('yacron2.dashboard.prefs')?.includes('"notify":true'),
      );
      assert.equal(await toggle.isChecked(), true);
      await closeSheet(page);
      // The failure from before is not announced when the setting comes on.
      await polls(page, 2);
      assert.deepEqual(await page.evaluate(() => window.__notifications), []);

      assert.equal(await post(`${base}/jobs/failing/start`), 200);
      await page.waitForFunction(() => (window.__notifications ?? []).length > 0);
      const notes = (await page.evaluate(() => window.__notifications)) ?? [];
      assert.equal(notes.length, 1);
      assert.equal(notes[0]!.title, 'yacron2: job failed');
      assert.match(notes[0]!.body, /^failing \(exit 3\)\n\S/);

      // After a reload the setting is remembered, and the failure that finished before the page
      // loaded raises nothing.
      await page.reload();
      await page.locator('.trow[data-job="failing"][data-status="failed"]').waitFor();
      await polls(page, 2);
      assert.deepEqual(await page.evaluate(() => window.__notifications), []);
      assert.match(
        (await page.evaluate((key) => localStorage.getItem(key), PREFS_KEY)) ?? '',
        /"notify":true/,
      );
      assert.deepEqual(unexpectedErrors(opened.problems, OPTIONAL_404), []);
    } finally {
      await closePage(opened);
    }
  });

  await t.test('a run far above its ledger baseline gets the slow chip and the note', async () => {
    const opened = await openPage(browser);
    const { page } = opened;
    try {
      await page.goto(`${base}/`);
      await page.locator('.trow[data-job="slowjob"]').waitFor();
      // Ten earlier successful runs of about 0.1 s, stored as the page stores them, and the
      // ledger on; then the page loads them back.
      await page.evaluate(
        ([key]) =>
          new Promise<void>((resolve, reject) => {
            const request = indexedDB.open('yacron2-run-ledger', 1);
            request.onupgradeneeded = () =>
              request.result.createObjectStore('runs', { keyPath: 'id' });
            request.onerror = () => reject(new Error('cannot open the ledger database'));
            request.onsuccess = () => {
              const transaction = request.result.transaction('runs', 'readwrite');
              const store = transaction.objectStore('runs');
              const start = Date.parse('2026-01-01T00:00:00Z');
              for (let i = 0; i < 10; i++) {
                const finishedMs = start + i * 60_000;
                const finishedAt = new Date(finishedMs).toISOString().replace('Z', '+00:00');
                store.put({
                  id: `slowjob||${finishedAt}`,
                  job: 'slowjob',
                  startedAt: null,
                  finishedAt,
                  finishedMs,
                  outcome: 'success',
                  exitCode: 0,
                  durationS: 0.1 + (i % 3) * 0.01,
                  failReason: null,
                });
              }
              transaction.oncomplete = () => {
                request.result.close();
                localStorage.setItem(key, JSON.stringify({ ledger: true }));
                resolve();
              };
            };
          }),
        [PREFS_KEY] as const,
      );
      await page.reload();
      await page.locator('.trow[data-job="slowjob"]').waitFor();
      assert.equal(await page.locator('.trow[data-job="slowjob"] .chip-slow').count(), 0);
      assert.equal(await post(`${base}/jobs/slowjob/start`), 200);
      const chip = page.locator('.trow[data-job="slowjob"] .chip-slow');
      await chip.waitFor({ timeout: 20_000 });
      assert.match((await chip.textContent()) ?? '', /^slow ×\d+\.\d$/);
      assert.equal(await page.locator('.trow[data-job="ticker"] .chip-slow').count(), 0);

      await page.evaluate(() => (location.hash = '#job/slowjob/history'));
      const note = page.locator('.drawer .ledger-note:not([hidden])');
      await note.waitFor();
      assert.match(
        (await note.textContent()) ?? '',
        /^Run ledger \(this browser\): 11 runs · 11 ok \/ 0 failed · oldest \d+[smhd] ago · median 1\d\d ms · latest run slow \(1\.\d s, ×\d+\.\d\)$/,
      );
      await page.locator('.drawer table.runs tbody tr').first().waitFor();
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-ledger.png') });
      assert.deepEqual(unexpectedErrors(opened.problems, OPTIONAL_404), []);
      assert.deepEqual(await cspViolations(page), []);
    } finally {
      await closePage(opened);
    }
  });

  await t.test('the settings pass the accessibility audit, by keyboard and at 390 px', async () => {
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const opened = await openPage(browser, viewport);
      const { page } = opened;
      try {
        await page.goto(`${base}/`);
        await page.locator('.trow[data-job="ticker"]').waitFor();
        await openSettings(page);
        // Every new control is reached with Tab.
        const reached = new Set<string>();
        for (let i = 0; i < 40 && reached.size < 5; i++) {
          await page.keyboard.press('Tab');
          const name = await page.evaluate(() => {
            const active = document.activeElement;
            if (active === null) return '';
            const label =
              active.id === '' ? null : document.querySelector(`label[for="${active.id}"]`);
            return (label?.textContent ?? active.textContent ?? '').trim();
          });
          for (const wanted of [
            'Desktop notifications',
            'Audible cues',
            'Cue volume',
            'Run ledger',
          ])
            if (name.startsWith(wanted)) reached.add(wanted);
          if (name === 'Export') reached.add(name);
          if (name.startsWith('Run ledger') && !reached.has('toggled')) {
            await page.keyboard.press('Space');
            reached.add('toggled');
          }
        }
        for (const wanted of ['Desktop notifications', 'Audible cues', 'Run ledger', 'Export'])
          assert.ok(reached.has(wanted), `${wanted} reached by Tab (${[...reached].join(', ')})`);
        await page.locator('.ledger-storage:not([hidden])').waitFor();
        await page.getByRole('checkbox', { name: /^Audible cues/ }).check();
        assert.equal(await page.getByLabel('Cue volume').isDisabled(), false);
        assert.deepEqual(
          (await page.evaluate(auditAccessibility)).map(
            (issue) => `${issue.kind}: ${issue.element} ${issue.detail}`,
          ),
          [],
        );
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
        await page.locator('dialog.sheet[open] .ledger-storage').scrollIntoViewIfNeeded();
        await page.screenshot({
          path: join(ARTIFACTS, `dashboard-notifications-${viewport.width}.png`),
        });
        assert.deepEqual(unexpectedErrors(opened.problems, OPTIONAL_404), []);
        assert.deepEqual(await cspViolations(page), []);
      } finally {
        await closePage(opened);
      }
    }
  });
});
