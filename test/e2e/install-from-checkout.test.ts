// E2E: the README's way to get a `yacron2` command from a checkout (README.md "Using it"): a
// fresh clone, `npm ci` (whose prepare step builds dist/, the page and the native helper), then
// `npm link` into a private prefix. The linked command answers `next` and validates a config.
// Slow (an npm install and a build, about a minute here), so one test does the whole path.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT, useTempDir, writeConfig } from './harness.js';

const run = promisify(execFile);

test(
  'a fresh clone: npm ci builds the CLI and npm link puts a working yacron2 on a PATH',
  { timeout: 600_000, skip: !existsSync(join(REPO_ROOT, '.git')) && 'not a git checkout' },
  async (t) => {
    const dir = await useTempDir(t);
    const checkout = join(dir, 'checkout');
    const prefix = join(dir, 'prefix');
    await run('git', ['clone', '--quiet', '--local', '--no-hardlinks', REPO_ROOT, checkout]);
    assert.equal(existsSync(join(checkout, 'dist')), false, 'a clone has no build');

    // The packages come from npm's cache, which the suite's own `npm ci` filled.
    const env = { ...process.env, NPM_CONFIG_PREFIX: prefix, NPM_CONFIG_UPDATE_NOTIFIER: 'false' };
    await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: checkout,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
    assert.ok(existsSync(join(checkout, 'dist', 'cli', 'main.js')), 'npm ci did not build dist/');
    await run('npm', ['link', '--no-audit', '--no-fund'], { cwd: checkout, env });

    const yacron2 = join(prefix, 'bin', 'yacron2');
    const next = await run(yacron2, ['next', '30 2 * * *', '--tz', 'UTC', '-n', '1'], {
      env: process.env,
    });
    assert.match(next.stdout, /02:30:00 UTC/);
    const config = await writeConfig(
      dir,
      'jobs:\n  - name: hello\n    command: echo hi\n    schedule: "* * * * *"\n',
    );
    const validated = await run(yacron2, ['-c', config, '-v'], { env: process.env });
    assert.match(validated.stderr, /Configuration is valid\./);
  },
);
