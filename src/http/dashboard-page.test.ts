import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DASHBOARD_PAGE_URL, loadDashboardPage } from './dashboard-page.js';
import { PLACEHOLDER_PAGE } from './placeholder-page.js';

void describe('loadDashboardPage', () => {
  void it('reads the built page from dist/web/index.html of the package', () => {
    assert.match(DASHBOARD_PAGE_URL.pathname, /\/dist\/web\/index\.html$/);
  });

  void it('serves the file it is given, byte for byte', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'yacron2-page-'));
    try {
      const file = join(dir, 'index.html');
      await writeFile(file, '<!doctype html><title>built</title>');
      assert.equal(loadDashboardPage(pathToFileURL(file)), '<!doctype html><title>built</title>');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  void it('falls back to the placeholder, which says how to build, when the page is missing', () => {
    const page = loadDashboardPage(pathToFileURL('/nonexistent/yacron2/index.html'));
    assert.equal(page, PLACEHOLDER_PAGE);
    assert.match(page, /npm run build/);
  });
});
