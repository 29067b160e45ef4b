// Browser tests of the dashboard's cluster views against three real daemons over mTLS (the e2e
// cluster harness, interval 1 s): the cluster strip and panel show the leader and the peers
// agreed, the fleet matrix shows the three nodes, the state inspector lists a store's KV
// document written by a real job (value never shown), a stopped node turns unreachable; no
// console errors; screenshots at 1280×800 and 390×844. Every wait is on a page condition.
import assert from 'node:assert/strict';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { makeTestCa } from '../../src/cluster/testing.js';
import {
  getJson,
  nodeConfigYaml,
  ProxiedMesh,
  waitFor,
  type ClusterBody,
} from '../e2e/cluster-harness.js';
import {
  CLI,
  defer,
  shellQuote,
  startDaemon,
  useTempDir,
  writeConfig,
  type DaemonProcess,
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

const NAMES = ['a', 'b', 'c'] as const;
type Name = (typeof NAMES)[number];

/** A Leader job writing one KV key through the job API (the `yacron2` wrapper on PATH). */
const KV_JOB = `  - name: remember
    command: yacron2 state set greeting 'hello from the leader'
    schedule: "*/3 * * * * * *"
    clusterPolicy: Leader
    captureStderr: true
`;

async function openSheet(page: Page, action: string, title: string): Promise<void> {
  await page.keyboard.press('Control+k');
  await page.locator('.palette-input').fill(action);
  await page.keyboard.press('Enter');
  await page.locator('dialog.sheet[open] h2', { hasText: title }).waitFor();
}

test(
  'the cluster panel, fleet matrix and state inspector on a 3-node cluster',
  { timeout: 180_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(
      join(bin, 'yacron2'),
      `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(CLI)} "$@"\n`,
    );
    await chmod(join(bin, 'yacron2'), 0o755);
    const mesh = await ProxiedMesh.create(dir, NAMES, makeTestCa('browser'));
    defer(t, () => mesh.close());
    const daemons = new Map<Name, DaemonProcess>();
    const bases = new Map<Name, string>();
    for (const name of NAMES) {
      // Same jobs everywhere (one job set); each node its own store.
      const yaml = `${nodeConfigYaml(mesh.config(name, { extraJobs: KV_JOB }))}state:\n  path: ${join(dir, `store-${name}`)}\n`;
      const path = await writeConfig(dir, yaml, `${name}.yaml`);
      const daemon = startDaemon(t, ['-c', path], {
        env: { ...process.env, YC_NODE: name, PATH: `${bin}:${process.env['PATH'] ?? ''}` },
      });
      daemons.set(name, daemon);
      const log = await daemon.waitForLog(/^web: started listening on http:\/\/127\.0\.0\.1:\d+$/);
      bases.set(name, /http:\/\/\S+$/.exec(log.msg)![0]);
    }
    const base = bases.get('a')!;
    await waitFor(
      async () => {
        const view = await getJson<ClusterBody>(base, '/cluster');
        return view.leader === 'a' && view.peers.every((peer) => peer.status === 'agreed');
      },
      'a leading with both peers agreed',
      { timeoutMs: 30_000 },
    );

    const browser = await launchBrowser(t);
    const { page, problems } = await openPage(browser);
    await page.goto(`${base}/`);

    await t.test('the strip and the panel show the leader and the peers agreed', async () => {
      const bar = page.locator('.cluster-bar:not([hidden])');
      await bar.waitFor();
      assert.equal(await bar.locator('.cl-node').textContent(), 'a');
      await bar.locator('.cl-role', { hasText: 'leader' }).waitFor();
      await bar.locator('.cl-tally', { hasText: '2/2 agreed' }).waitFor();
      assert.equal(await bar.locator('.cl-quorum').textContent(), 'quorum 2 of 3');
      assert.equal(await page.locator('.cluster-alert').isVisible(), false);
      await bar.locator('button', { hasText: 'Details' }).click();
      const sheet = page.locator('dialog.sheet[open]');
      await sheet.locator('h2', { hasText: 'Cluster' }).waitFor();
      for (const peer of ['b', 'c'])
        await sheet.locator(`tr[data-peer="${peer}"][data-status="agreed"]`).waitFor();
      assert.match((await sheet.locator('.cl-facts').textContent()) ?? '', /Roleleader/);
      // The swimlane has a lane per peer (self excluded), agreed now.
      for (const peer of ['b', 'c'])
        await sheet
          .locator(`.cl-lane[data-peer="${peer}"] .cl-seg[data-status="agreed"]`)
          .waitFor();
      assert.equal(await sheet.locator('.cl-lane[data-peer="a"]').count(), 0);
      await page.screenshot({ path: join(ARTIFACTS, 'cluster-panel-1280x800.png') });
      assert.equal(formatAudit(await page.evaluate(auditAccessibility)), '');
      await page.keyboard.press('Escape');
      await sheet.waitFor({ state: 'hidden' });
    });

    await t.test('the header node meter, its history and the Resources tab', async () => {
      const meter = page.locator('.node-meter:not([hidden])');
      await meter.locator('.meter-label', { hasText: 'CPU' }).waitFor();
      assert.match((await meter.getAttribute('aria-label')) ?? '', /^Node a: CPU /);
      const history = await getJson<{ enabled: boolean }>(base, '/node/history');
      await meter.click();
      const sheet = page.locator('dialog.sheet[open]');
      await sheet
        .locator('p', {
          hasText: history.enabled ? /^a: \d+ samples every/ : 'The daemon keeps no node history',
        })
        .waitFor();
      await page.keyboard.press('Escape');
      await sheet.waitFor({ state: 'hidden' });
      await page.evaluate(() => (location.hash = '#job/every/resources'));
      await page
        .locator('.drawer:not([hidden]) .tab[data-tab="resources"][aria-selected="true"]')
        .waitFor();
      await page
        .locator('.drawer .resources p', { hasText: 'This job is not monitored' })
        .waitFor();
      await page.evaluate(() => (location.hash = ''));
      await page.locator('.drawer').waitFor({ state: 'hidden' });
    });

    await t.test('the fleet matrix shows the three nodes', async () => {
      await page.locator('.cluster-bar button', { hasText: 'Fleet' }).click();
      const sheet = page.locator('dialog.sheet[open]');
      await sheet.locator('h2', { hasText: 'Fleet' }).waitFor();
      for (const name of NAMES) await sheet.locator(`th.fm-node[data-node="${name}"]`).waitFor();
      assert.match((await sheet.locator('th.fm-self').textContent()) ?? '', /^aself · live/);
      // The EveryNode job runs every second on every node: a success in each column.
      await page.waitForFunction(
        () =>
          document.querySelectorAll('dialog.sheet[open] tr[data-job="every"] td.fm-success')
            .length === 3,
      );
      assert.equal(formatAudit(await page.evaluate(auditAccessibility)), '');
      await page.screenshot({ path: join(ARTIFACTS, 'fleet-1280x800.png') });
      await page.keyboard.press('Escape');
      await sheet.waitFor({ state: 'hidden' });
    });

    await t.test(
      "the state inspector lists the store and a KV document's key, not its value",
      async () => {
        await openSheet(page, 'state inspector', 'State inspector');
        const sheet = page.locator('dialog.sheet[open]');
        await sheet.locator('.facts dd', { hasText: join(dir, 'store-a') }).waitFor();
        // The job writes every 3 s; refresh until its namespace shows up.
        const open = sheet.locator('button', { hasText: 'Open kv/remember' });
        await waitFor(
          async () => {
            if (await open.isVisible()) return true;
            await sheet.locator('button', { hasText: 'Refresh' }).click();
            return false;
          },
          'the kv/remember namespace',
          { timeoutMs: 20_000, intervalMs: 500 },
        );
        await open.click();
        const row = sheet.locator('.si-detail tr', { hasText: 'greeting' });
        await row.waitFor();
        assert.match((await row.textContent()) ?? '', /str · \d+ B \(value not shown\)/);
        assert.ok(!((await sheet.textContent()) ?? '').includes('hello from the leader'));
        await sheet.locator('button', { hasText: 'Open runs/remember' }).click();
        await sheet
          .locator('.si-detail caption', { hasText: 'runs/remember: the newest' })
          .waitFor();
        assert.equal(formatAudit(await page.evaluate(auditAccessibility)), '');
        await page.screenshot({ path: join(ARTIFACTS, 'state-inspector-1280x800.png') });
        await page.keyboard.press('Escape');
        await sheet.waitFor({ state: 'hidden' });
      },
    );

    await t.test(
      'the phone layout shows the cluster strip without sideways scrolling',
      async () => {
        const phone = await openPage(browser, { width: 390, height: 844 });
        await phone.page.goto(`${base}/`);
        await phone.page
          .locator('.cluster-bar:not([hidden]) .cl-tally', { hasText: '2/2' })
          .waitFor();
        await phone.page.screenshot({ path: join(ARTIFACTS, 'cluster-390x844.png') });
        const overflow = await phone.page.evaluate(
          () => document.documentElement.scrollWidth - window.innerWidth,
        );
        assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
        await phone.page.locator('.cluster-bar button', { hasText: 'Fleet' }).click();
        await phone.page.locator('dialog.sheet[open] th.fm-node[data-node="c"]').waitFor();
        await phone.page.screenshot({ path: join(ARTIFACTS, 'fleet-390x844.png') });
        assert.deepEqual(unexpectedErrors(phone.problems, []), []);
        assert.deepEqual(await cspViolations(phone.page), []);
        await closePage(phone);
      },
    );

    await t.test('a stopped node shows unreachable', async () => {
      assert.equal(await daemons.get('c')!.stop(), 0);
      const bar = page.locator('.cluster-bar');
      await bar
        .locator('.cl-dot.dot-gone[aria-label="c: unreachable"]')
        .waitFor({ timeout: 30_000 });
      await bar.locator('.cl-tally', { hasText: '1/2 agreed' }).waitFor();
      // Two of three still agree: a keeps the lead and no alert is raised.
      await bar.locator('.cl-role', { hasText: 'leader' }).waitFor();
      await bar.locator('button', { hasText: 'Details' }).click();
      await page
        .locator('dialog.sheet[open] tr[data-peer="c"][data-status="unreachable"]')
        .waitFor();
      await page.keyboard.press('Escape');
    });

    await t.test('losing the quorum raises the CLUSTER ALERT', async () => {
      assert.equal(await daemons.get('b')!.stop(), 0);
      const alert = page.locator('.cluster-alert:not([hidden])');
      await alert.locator('li', { hasText: 'No quorum: fewer than 2 of 3 nodes agree' }).waitFor({
        timeout: 30_000,
      });
      await page.locator('.cluster-bar[data-role="no-quorum"]').waitFor();
      await page.screenshot({ path: join(ARTIFACTS, 'cluster-alert-1280x800.png') });
    });

    assert.deepEqual(unexpectedErrors(problems, []), []);
    assert.deepEqual(await cspViolations(page), []);
  },
);

function formatAudit(issues: readonly { kind: string; element: string; detail: string }[]): string {
  return issues.map((issue) => `${issue.kind}: ${issue.element}: ${issue.detail}`).join('\n');
}
