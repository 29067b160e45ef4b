// findJobCommand(): which command lines go to the job client (docs/cli.md "Job-facing commands").
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { findJobCommand } from './route.js';

void describe('findJobCommand()', () => {
  void it('routes state get|set|delete|keys and the job commands, at the command word', () => {
    for (const argv of [
      ['state', 'get', 'k'],
      ['state', 'set', 'k', 'v'],
      ['state', 'delete', 'k'],
      ['state', 'keys'],
      ['cursor'],
      ['cursor', 'advance', 'w', '5'],
      ['idempotent', 'k'],
      ['lock', 'run', 'x', '--', 'true'],
      ['artifact', 'list'],
      ['secret', 'get', 'S'],
      ['xcom', 'list'],
    ]) {
      assert.equal(findJobCommand(argv), 0, argv.join(' '));
    }
  });

  void it('leaves the admin actions, the daemon and next to the daemon CLI', () => {
    for (const argv of [
      [],
      ['state'],
      ['state', 'gc'],
      ['state', 'backup', '-o', 'x.tar.gz'],
      ['state', '-c', 'x', 'get'],
      ['-c', 'jobs.yaml'],
      ['next', '* * * * *'],
      ['--version'],
      ['--', 'lock', 'run'],
    ]) {
      assert.equal(findJobCommand(argv), -1, argv.join(' '));
    }
  });

  void it('skips leading daemon options, which job commands ignore', () => {
    assert.equal(findJobCommand(['-c', '/etc/x', 'cursor', 'get', 'w']), 2);
    assert.equal(findJobCommand(['--log-level=DEBUG', '-v', 'state', 'get', 'k']), 2);
    assert.equal(findJobCommand(['-lDEBUG', 'lock', 'release', 't']), 1);
  });
});
