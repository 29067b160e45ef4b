// The configuration size the daemon's tier cap reads (docs/performance.md "Capping the
// optimising compiler"): a file's bytes, a directory's YAML files' bytes, null when unreadable.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { configSizeBytes } from './daemon.js';

void test('a file, a directory of YAML files (other files and subdirectories not counted), a missing path', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'config-size-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'a.yaml'), 'x'.repeat(100));
  writeFileSync(join(dir, 'b.yml'), 'x'.repeat(20));
  writeFileSync(join(dir, 'notes.txt'), 'x'.repeat(1000));
  mkdirSync(join(dir, 'sub.yaml'));
  assert.equal(configSizeBytes(join(dir, 'a.yaml')), 100);
  assert.equal(configSizeBytes(dir), 120);
  assert.equal(configSizeBytes(join(dir, 'missing.yaml')), null);
});
