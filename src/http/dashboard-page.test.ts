// The page at `GET /` and its policy (docs/dashboard.md "Delivery and security headers"): the
// build's page and hashes read from dist/web/, every inline block of what is served allowed by
// hash and nothing by 'unsafe-inline', and the placeholder when the build is missing or broken.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DASHBOARD_DIR_URL, loadDashboardPage, type DashboardPage } from './dashboard-page.js';
import { PLACEHOLDER_PAGE } from './placeholder-page.js';
import { assertPolicyCoversPage, directive, inlineBlocks, sha256 } from './test-page-policy.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-page-'));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const dirUrl = (dir: string): URL => pathToFileURL(`${dir}/`);

void describe('loadDashboardPage', () => {
  void it('reads dist/web/ of the package', () => {
    assert.match(DASHBOARD_DIR_URL.pathname, /\/dist\/web\/$/);
  });

  void it('serves what scripts/build-web.mjs builds under a policy that allows exactly its inline scripts and style by hash', () =>
    withDir(async (dir) => {
      // Rejects (failing the test with the build's stderr) when the build fails.
      await promisify(execFile)(process.execPath, ['scripts/build-web.mjs', '--out', dir], {
        cwd: REPO_ROOT,
        timeout: 60_000,
      });
      const page = loadDashboardPage(dirUrl(dir));
      assert.equal(page.kind, 'built');
      assert.equal(inlineBlocks(page.html, 'script').length, 2, 'the <head> script and the bundle');
      assert.equal(inlineBlocks(page.html, 'style').length, 1);
      assertPolicyCoversPage(page.html, page.contentSecurityPolicy);
      assert.match(page.contentSecurityPolicy, /^default-src 'self'; /);
      assert.match(page.contentSecurityPolicy, /; frame-ancestors 'none'; object-src 'none'$/);
    }));

  void it('serves the page it is given byte for byte, under its hashes file', () =>
    withDir(async (dir) => {
      const html = '<!doctype html><script>go()</script><style>p{}</style>';
      await writeFile(join(dir, 'index.html'), html);
      await writeFile(
        join(dir, 'csp-hashes.txt'),
        `script-src ${sha256('go()')}\nstyle-src ${sha256('p{}')}\n`,
      );
      const page = loadDashboardPage(dirUrl(dir));
      assert.equal(page.html, html);
      assert.equal(
        page.contentSecurityPolicy,
        `default-src 'self'; script-src ${sha256('go()')}; style-src ${sha256('p{}')}; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'`,
      );
    }));

  void it('falls back to the placeholder, which says how to build, when the page is missing', () => {
    const page = loadDashboardPage(pathToFileURL('/nonexistent/yacron2/'));
    assert.deepEqual(
      { kind: page.kind, html: page.html, problem: page.kind === 'placeholder' && page.problem },
      { kind: 'placeholder', html: PLACEHOLDER_PAGE, problem: null },
    );
    assert.match(page.html, /npm run build/);
    // No script at all; its one style by hash.
    assertPolicyCoversPage(page.html, page.contentSecurityPolicy);
    assert.deepEqual(directive(page.contentSecurityPolicy, 'script-src'), ["'none'"]);
  });

  void it('serves the placeholder, saying which file is wrong, when the hashes are missing or malformed', () =>
    withDir(async (dir) => {
      await writeFile(join(dir, 'index.html'), '<script>go()</script>');
      const problem = (page: DashboardPage): string | null =>
        page.kind === 'placeholder' ? page.problem : 'served the page';
      assert.equal(
        problem(loadDashboardPage(dirUrl(dir))),
        `${join(dir, 'csp-hashes.txt')} is missing`,
      );
      const cases: [string, RegExp][] = [
        [`script-src 'unsafe-inline'\nstyle-src ${sha256('')}\n`, /line 1: script-src needs/],
        [`script-src ${sha256('go()')}\n`, /a script-src and a style-src line are both required/],
        [
          `script-src ${sha256('a')}\nscript-src ${sha256('b')}\n`,
          /line 2: script-src given twice/,
        ],
        [`default-src *\n`, /line 1: unknown directive default-src/],
      ];
      for (const [text, expected] of cases) {
        await writeFile(join(dir, 'csp-hashes.txt'), text);
        const page = loadDashboardPage(dirUrl(dir));
        assert.equal(page.html, PLACEHOLDER_PAGE);
        assert.match(problem(page) ?? '', /csp-hashes\.txt: /);
        assert.match(problem(page) ?? '', expected);
      }
    }));
});
