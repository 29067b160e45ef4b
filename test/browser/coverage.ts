// Browser coverage for the dashboard's coverage gate (the README's "Tests"): when the tests run under c8
// (NODE_V8_COVERAGE is set), every page opened through browser.ts records Chromium's precise V8
// coverage; on close, the entries for the two inline dashboard scripts are written into
// NODE_V8_COVERAGE in Node's own format, with the scripts' source maps (dist/web-maps/, written by
// scripts/build-web.mjs) in its `source-map-cache`, so c8 maps them back to src/web like any
// Node-loaded file. Without NODE_V8_COVERAGE this records nothing.
// Must not: write a script it cannot map (a stale build, an unknown script): those are skipped.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from '../e2e/harness.js';

const OUT_DIR = process.env['NODE_V8_COVERAGE'];
const MAPS_DIR = join(REPO_ROOT, 'dist', 'web-maps');

interface BundleScript {
  /** A name under src/web that no Node process loads, so c8 keeps the entry apart. */
  readonly url: string;
  readonly code: string;
  readonly map: unknown;
}

let bundles: readonly BundleScript[] | null = null;

function loadBundles(): readonly BundleScript[] {
  bundles ??= ['main', 'prefetch'].flatMap((name) => {
    const code = join(MAPS_DIR, `${name}.js`);
    const map = join(MAPS_DIR, `${name}.js.map`);
    if (!existsSync(code) || !existsSync(map)) return [];
    return [
      {
        url: pathToFileURL(join(REPO_ROOT, 'src', 'web', `${name}.bundle.ts`)).href,
        code: readFileSync(code, 'utf8'),
        map: JSON.parse(readFileSync(map, 'utf8')) as unknown,
      },
    ];
  });
  return bundles;
}

/** Whether pages record coverage in this run. */
export const recordingCoverage = OUT_DIR !== undefined && OUT_DIR !== '';

/** Starts recording a page's coverage (no-op unless recordingCoverage). */
export async function startPageCoverage(page: Page): Promise<void> {
  if (!recordingCoverage) return;
  await page.coverage.startJSCoverage({ resetOnNavigation: false });
}

/** Stops recording and writes the page's dashboard-script coverage (no-op unless recording). */
export async function writePageCoverage(page: Page): Promise<void> {
  if (OUT_DIR === undefined || OUT_DIR === '' || page.isClosed()) return;
  const entries = await page.coverage.stopJSCoverage();
  const known = loadBundles();
  const result: { scriptId: string; url: string; functions: unknown }[] = [];
  const sourceMaps: Record<string, { lineLengths: number[]; data: unknown }> = {};
  for (const entry of entries) {
    const bundle = known.find((candidate) => candidate.code === entry.source?.trim());
    if (bundle === undefined) continue;
    result.push({ scriptId: entry.scriptId, url: bundle.url, functions: entry.functions });
    sourceMaps[bundle.url] = {
      lineLengths: bundle.code.split('\n').map((line) => line.length),
      data: bundle.map,
    };
  }
  if (result.length === 0) return;
  writeFileSync(
    join(OUT_DIR, `coverage-browser-${process.pid}-${randomUUID()}.json`),
    JSON.stringify({ result, 'source-map-cache': sourceMaps }),
  );
}
