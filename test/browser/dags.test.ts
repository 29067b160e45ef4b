// Browser tests of the dashboard's DAG cards and run drawer against the real built daemon with a
// `dags:` config and a store in a temp dir: a run triggered from the page advances to success
// in the drawer without a reload (every task node turns success, the mapped task's instances
// and the XCom value show), a running run is cancelled from the drawer by keyboard (its task's
// process ends), a task's live output streams into the drawer, a waiting gate is approved from
// the drawer, a backfill is created from the card's form; the state inspector's
// cursor, claim and artifact lists show what a task wrote; no console errors;
// screenshots at 1280×800 and 390×844. Every wait is on a page or file condition.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  getJson,
  shellQuote,
  startDaemon,
  waitUntil,
  webUrlOf,
  writeConfig,
} from '../e2e/harness.js';
import { useJobState } from '../e2e/job-fixture.test.js';
import { auditAccessibility } from './audit.js';
import { ARTIFACTS, cspViolations, launchBrowser, openPage, unexpectedErrors } from './browser.js';

/** Optional routes a daemon without host sampling answers 404 (the page asks, then hides). */
const OPTIONAL_404 = [/^\/node 404$/];

function config(dir: string, store: string): string {
  const go = shellQuote(join(dir, 'go'));
  const pid = shellQuote(join(dir, 'prepare.pid'));
  return `jobs:
  - name: heartbeat
    command: "true"
    schedule: "0 0 1 1 *"
state:
  path: ${store}
web:
  listen:
    - http://127.0.0.1:0
dags:
  - name: pipeline
    schedule: "0 3 * * *"
    tasks:
      - id: extract
        command: printf '["a.csv", "b.csv"]' | yacron2 xcom push --key files
      - id: load
        dependsOn:
          - extract
        expand:
          fromTask: extract
          key: files
        command: echo "loading $YACRON2_DAG_MAP_ITEM"
      - id: report
        dependsOn:
          - load
        triggerRule: all_done
        command: yacron2 cursor advance watermark 42 && yacron2 idempotent report-once --ttl 3600 && echo report
  - name: release
    tasks:
      - id: prepare
        captureStdout: true
        command: echo $$ > ${pid}; echo "waiting for go"; while [ ! -e ${go} ]; do sleep 0.05; done; echo "got go"
      - id: gate
        type: approval
        dependsOn:
          - prepare
      - id: publish
        dependsOn:
          - gate
        command: echo published
`;
}

function formatAudit(issues: readonly { kind: string; element: string; detail: string }[]): string {
  return issues.map((issue) => `${issue.kind}: ${issue.element}: ${issue.detail}`).join('\n');
}

async function nodeStates(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll<HTMLElement>('.dag-drawer .dag-node')].map((node) => [
        node.dataset['task'] ?? '',
        node.dataset['state'] ?? '',
      ]),
    ),
  );
}

async function waitForAllSuccess(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const nodes = [...document.querySelectorAll<HTMLElement>('.dag-drawer .dag-node')];
      return (
        nodes.length > 0 &&
        nodes.every((node) => node.dataset['state'] === 'success') &&
        document.querySelector('.dag-drawer .status')?.getAttribute('data-state') === 'success'
      );
    },
    undefined,
    { timeout: 30_000 },
  );
}

test('DAG cards and the run drawer in a real browser', { timeout: 180_000 }, async (t) => {
  // A temp dir, its store, and `yacron2` on PATH for the tasks' job-API calls.
  const setup = await useJobState(t);
  const dir = setup.dir;
  const daemon = startDaemon(t, ['-c', await writeConfig(dir, config(dir, setup.store))], {
    env: setup.env,
  });
  const base = await webUrlOf(daemon);

  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser);
  await page.goto(`${base}/`);

  await t.test('a card per DAG, with its schedule and no runs yet', async () => {
    const card = page.locator('.dag-card[data-dag="pipeline"]');
    await card.waitFor();
    assert.match((await card.locator('.dag-schedule').textContent()) ?? '', /at 03:00, every day/);
    assert.match((await card.locator('.dag-next').textContent()) ?? '', /^Next run in /);
    assert.equal(await card.locator('.dag-runs li').textContent(), 'No runs yet');
    const release = page.locator('.dag-card[data-dag="release"]');
    assert.match((await release.locator('.dag-schedule').textContent()) ?? '', /Manual runs only/);
    assert.equal(await release.locator('.dag-backfill-menu').isHidden(), true);
  });

  let pipelineRun = '';
  await t.test('Trigger opens the run; the graph advances to success without reload', async () => {
    await page.locator('.dag-card[data-dag="pipeline"] button', { hasText: 'Trigger' }).click();
    await page.waitForFunction(() => /^#dag\/pipeline\/manual-[0-9a-f]{12}$/.test(location.hash));
    pipelineRun = decodeURIComponent((await page.evaluate(() => location.hash)).split('/')[2]!);
    const drawer = page.locator('.dag-drawer:not([hidden])');
    await drawer.locator('.dag-node[data-task="extract"]').waitFor();
    assert.deepEqual(Object.keys(await nodeStates(page)).sort(), ['extract', 'load', 'report']);
    await waitForAllSuccess(page);
    // The mapped task summarises its two instances; the XCom list shows the pushed value.
    assert.match(
      (await drawer.locator('.dag-node[data-task="load"] .dag-node-detail').textContent()) ?? '',
      /^2 mapped: 2 success$/,
    );
    await drawer.locator('.dag-xcom td', { hasText: 'files' }).waitFor();
    assert.equal(
      await drawer.locator('.dag-xcom .dag-xcom-value').first().textContent(),
      '["a.csv", "b.csv"]',
    );
    await drawer.locator('.dag-node[data-task="load"]').click();
    await drawer.locator('.dag-task tr[data-taskkey="load#1"]', { hasText: '"b.csv"' }).waitFor();
    assert.equal(await drawer.locator('.dag-progress').textContent(), '4/4 tasks done');
    // The card shows the run (the page polled it; no reload).
    await page
      .locator(
        `.dag-card[data-dag="pipeline"] .dag-run[data-run="${pipelineRun}"][data-state="success"]`,
      )
      .waitFor();
    assert.equal(formatAudit(await page.evaluate(auditAccessibility)), '');
    await page.screenshot({ path: join(ARTIFACTS, 'dag-drawer-1280x800.png') });
  });

  await t.test('the state inspector lists the run’s cursor, claim and XCom artifact', async () => {
    await page.keyboard.press('Escape');
    await page.locator('.dag-drawer').waitFor({ state: 'hidden' });
    await page.keyboard.press('Control+k');
    await page.locator('.palette-input').fill('state inspector');
    await page.keyboard.press('Enter');
    const sheet = page.locator('dialog.sheet[open]');
    const scope = `dagxcom/pipeline/`;
    const expectations: [string, RegExp][] = [
      ['cursors', /^watermark42/],
      ['claims', /^report-once\d{4}-.*ago\).*from now\)$/],
      ['artifacts', /^● extract\/files18 B[0-9a-f]{12}/],
    ];
    for (const [list, row] of expectations) {
      const open = sheet.locator(`button[data-list="${list}"]`, { hasText: scope });
      await open.click();
      // The detail shows the previous list until this one's read lands (aria-busy meanwhile).
      const first = sheet.locator('.si-detail:not([aria-busy]) tbody tr').first();
      await first.waitFor();
      assert.match((await first.textContent()) ?? '', row);
    }
    assert.equal(formatAudit(await page.evaluate(auditAccessibility)), '');
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'hidden' });
  });

  await t.test(
    'Cancel run stops a running run from the keyboard; its task process ends',
    async () => {
      await page.keyboard.press('Control+k');
      await page.locator('.palette-input').fill('Trigger DAG release');
      await page.keyboard.press('Enter');
      const drawer = page.locator('.dag-drawer:not([hidden])');
      await drawer.locator('.dag-node[data-task="prepare"][data-state="running"]').waitFor();
      const runKey = decodeURIComponent((await page.evaluate(() => location.hash)).split('/')[2]!);
      const pid = await waitUntil(async () => {
        const text = (await readFile(join(dir, 'prepare.pid'), 'utf8').catch(() => '')).trim();
        return text === '' ? undefined : Number(text);
      }, 'the prepare task wrote its pid');
      const cancel = drawer.getByRole('button', { name: `Cancel run ${runKey}` });
      await cancel.focus();
      await page.keyboard.press('Enter');
      await page.locator('.toast', { hasText: `Cancelled release run ${runKey}` }).waitFor();
      await drawer.locator('.status[data-state="failed"]').waitFor();
      await drawer.locator('.dag-ended', { hasText: /^cancelled by dashboard at / }).waitFor();
      await cancel.waitFor({ state: 'detached' });
      assert.deepEqual(await nodeStates(page), {
        prepare: 'failed',
        gate: 'skipped',
        publish: 'skipped',
      });
      await waitUntil(() => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      }, `the prepare task's process ${pid} ended`);
      const run = await getJson<{ ended?: { kind: string; by: string } }>(
        `${base}/dags/release/runs/${encodeURIComponent(runKey)}`,
      );
      assert.deepEqual([run.ended?.kind, run.ended?.by], ['cancelled', 'dashboard']);
      assert.equal(formatAudit(await page.evaluate(auditAccessibility)), '');
      await page.keyboard.press('Escape');
      await page.locator('.dag-drawer').waitFor({ state: 'hidden' });
    },
  );

  await t.test('a task streams its output; a gate is approved from the drawer', async () => {
    // Triggered from the command palette this time.
    await page.keyboard.press('Control+k');
    await page.locator('.palette-input').fill('Trigger DAG release');
    await page.keyboard.press('Enter');
    const drawer = page.locator('.dag-drawer:not([hidden])');
    await drawer.locator('.dag-node[data-task="prepare"][data-state="running"]').waitFor();
    await drawer.locator('.dag-node[data-task="prepare"]').click();
    await drawer.locator('.dag-log', { hasText: 'waiting for go' }).waitFor();
    await writeFile(join(dir, 'go'), '');
    await drawer.locator('.dag-log', { hasText: 'got go' }).waitFor();
    const gate = drawer.locator('.dag-gate[data-gate="gate"]');
    await gate.waitFor({ timeout: 30_000 });
    assert.equal((await nodeStates(page))['gate'], 'running');
    assert.match(
      (await drawer.locator('.dag-node[data-task="gate"]').getAttribute('aria-label')) ?? '',
      /waiting for approval/,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'dag-gate-1280x800.png') });
    await gate.locator('button', { hasText: 'Approve' }).click();
    await waitForAllSuccess(page);
    await gate.waitFor({ state: 'detached' });
    const runKey = decodeURIComponent((await page.evaluate(() => location.hash)).split('/')[2]!);
    const run = await getJson<{
      tasks: Record<string, { approval?: { decision: string; by: string } }>;
    }>(`${base}/dags/release/runs/${encodeURIComponent(runKey)}`);
    assert.deepEqual(
      { decision: run.tasks['gate']?.approval?.decision, by: run.tasks['gate']?.approval?.by },
      { decision: 'approved', by: 'dashboard' },
    );
  });

  await t.test('Backfill creates the runs of a date range from the card', async () => {
    await page.keyboard.press('Escape');
    await page.locator('.dag-drawer').waitFor({ state: 'hidden' });
    const card = page.locator('.dag-card[data-dag="pipeline"]');
    await card.locator('summary', { hasText: 'Backfill' }).click();
    await card.locator('input[type="date"]').first().fill('2026-01-01');
    await card.locator('input[type="date"]').nth(1).fill('2026-01-02');
    await card.locator('button', { hasText: 'Create runs' }).click();
    await page.locator('.toast', { hasText: 'Backfill of pipeline: 2 logical dates' }).waitFor();
    await card.locator('.dag-run[data-run="2026-01-02T03:00:00_00:00"]').waitFor();
    const runs = await getJson<{ runs: { kind: string }[] }>(`${base}/dags/pipeline/runs`);
    assert.equal(runs.runs.filter((run) => run.kind === 'backfill').length, 2);
    await page.screenshot({ path: join(ARTIFACTS, 'dag-cards-1280x800.png') });
  });

  await t.test('the phone layout: cards and the drawer at 390×844', async () => {
    const phone = await openPage(browser, { width: 390, height: 844 });
    await phone.page.goto(`${base}/#dag/pipeline/${encodeURIComponent(pipelineRun)}`);
    await phone.page
      .locator('.dag-drawer:not([hidden]) .dag-node[data-state="success"]')
      .first()
      .waitFor();
    await waitForAllSuccess(phone.page);
    await phone.page.screenshot({ path: join(ARTIFACTS, 'dag-drawer-390x844.png') });
    await phone.page.keyboard.press('Escape');
    await phone.page.locator('.dag-card[data-dag="pipeline"]').waitFor();
    await phone.page.screenshot({ path: join(ARTIFACTS, 'dag-cards-390x844.png') });
    assert.deepEqual(unexpectedErrors(phone.problems, OPTIONAL_404), []);
    assert.deepEqual(await cspViolations(phone.page), []);
  });

  assert.deepEqual(unexpectedErrors(problems, OPTIONAL_404), []);
  assert.deepEqual(await cspViolations(page), []);
});
