// The wrapper that puts this daemon's `yacron2` first on the jobs' PATH: it runs the given script
// with the given node and every argument intact, whatever the paths hold; the directory is
// private-named, readable by other users, and gone after remove().
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { ENTRY_SCRIPT, installCliOnPath } from './cli-on-path.js';

function tempDir(t: TestContext, name = 'cli-on-path-'): string {
  const dir = mkdtempSync(join(tmpdir(), name));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

void test('the wrapper runs the script with this node and passes every argument through', (t) => {
  // A directory with a quote and a space in its name, as a checkout may have.
  const dir = tempDir(t, "it's a dir ");
  const script = join(dir, 'print-argv.js');
  writeFileSync(
    script,
    'console.log(JSON.stringify([process.execPath, ...process.argv.slice(2)]));\n',
  );
  const cli = installCliOnPath({
    env: { PATH: '/usr/bin:/bin', KEEP: 'kept' },
    script,
    parent: dir,
  });
  t.after(() => cli.remove());

  assert.equal(cli.env['YACRON2_BIN'], cli.bin);
  assert.equal(cli.env['PATH'], `${dirname(cli.bin)}:/usr/bin:/bin`);
  assert.equal(cli.env['KEEP'], 'kept');
  // Found by name on the PATH it sets, as a job's `yacron2 …` would be.
  const out = execFileSync('sh', ['-c', 'yacron2 "$@"', 'sh', 'a b', "it's", '$HOME', ''], {
    env: cli.env,
    encoding: 'utf8',
  });
  assert.deepEqual(JSON.parse(out), [process.execPath, 'a b', "it's", '$HOME', '']);
});

void test('the directory is 0755, the wrapper 0755, and remove() deletes both', (t) => {
  const parent = tempDir(t);
  const cli = installCliOnPath({ env: {}, parent });
  assert.equal(statSync(dirname(cli.bin)).mode & 0o777, 0o755);
  assert.equal(statSync(cli.bin).mode & 0o777, 0o755);
  assert.match(dirname(cli.bin), /\/yacron2-cli-[^/]+$/);
  cli.remove();
  cli.remove();
  assert.equal(existsSync(dirname(cli.bin)), false);
});

void test('an unset PATH becomes the wrapper directory before the usual search path', (t) => {
  const cli = installCliOnPath({ env: {}, parent: tempDir(t) });
  t.after(() => cli.remove());
  assert.equal(
    cli.env['PATH'],
    `${dirname(cli.bin)}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
  );
});

void test('the default script is the package entry point', () => {
  assert.match(ENTRY_SCRIPT, /\/bin\/yacron2\.js$/);
  assert.equal(existsSync(ENTRY_SCRIPT), true);
});
