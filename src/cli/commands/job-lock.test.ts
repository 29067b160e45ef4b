// `yacron2 lock acquire|release|run` against the in-test endpoint, with real child processes for
// `lock run`: the hold token, exit 3 when no permit is free, the command's own exit code, signals
// forwarded to it, and the permit given back on every path.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeStateEndpoint, runJob } from '../job-client/endpoint-fixture.test.js';

/** `node -e SCRIPT`: the command `lock run` wraps. */
const node = (script: string): string[] => [process.execPath, '-e', script];

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

void describe('yacron2 lock acquire|release', () => {
  let endpoint: FakeStateEndpoint;
  const run = (...argv: string[]) => runJob(argv, { env: endpoint.env });
  before(async () => {
    endpoint = await FakeStateEndpoint.start();
  });
  after(() => endpoint.close());

  void it('acquire prints the hold token; a taken mutex exits 3 with `lock not acquired: NAME`', async () => {
    const first = await run('lock', 'acquire', 'db');
    assert.equal(first.code, 0);
    assert.match(first.stdout, /^[0-9a-f]{32}\n$/);
    assert.deepEqual(endpoint.requestsTo('/v1/lock/acquire').at(-1)?.body, {
      name: 'db',
      permits: 1,
      wait: false,
      blockSeconds: 0,
    });
    const second = await run('lock', 'acquire', 'db');
    assert.deepEqual(
      [second.code, second.stdout, second.stderr],
      [3, '', 'yacron2 lock: lock not acquired: db\n'],
    );
    assert.equal((await run('lock', 'release', first.stdout.trim())).code, 0);
    assert.equal(endpoint.heldSlots('db'), 0);
  });

  void it('--permits N lets N holders in; release of a token not held still exits 0', async () => {
    const tokens = [];
    for (let holder = 0; holder < 2; holder++) {
      const result = await run('lock', 'acquire', 'pool', '--permits', '2');
      assert.equal(result.code, 0);
      tokens.push(result.stdout.trim());
    }
    assert.equal((await run('lock', 'acquire', 'pool', '--permits', '2')).code, 3);
    for (const token of tokens) assert.equal((await run('lock', 'release', token)).code, 0);
    assert.equal((await run('lock', 'release', tokens[0]!)).code, 0);
    assert.deepEqual(endpoint.requestsTo('/v1/lock/release').at(-1)?.body, { token: tokens[0] });
  });

  void it('sends --wait, --timeout as blockSeconds, --ttl and the scope', async () => {
    const result = await run(
      'lock',
      'acquire',
      'x',
      '--wait',
      '--timeout',
      '2.5',
      '--ttl',
      '10',
      '--global',
    );
    assert.equal(result.code, 0);
    assert.deepEqual(endpoint.requestsTo('/v1/lock/acquire').at(-1)?.body, {
      scope: 'global',
      name: 'x',
      permits: 1,
      wait: true,
      blockSeconds: 2.5,
      ttl: 10,
    });
  });

  void it("permits < 1 is the endpoint's 400, exit 1", async () => {
    const result = await run('lock', 'acquire', 'x', '--permits', '0');
    assert.deepEqual(
      [result.code, result.stderr],
      [1, 'yacron2 lock: permits must be an integer >= 1\n'],
    );
  });
});

void describe('yacron2 lock run', () => {
  let endpoint: FakeStateEndpoint;
  let dir: string;
  before(async () => {
    endpoint = await FakeStateEndpoint.start();
    dir = await mkdtemp(join(tmpdir(), 'yacron2-lock-run-'));
  });
  after(async () => {
    await endpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  void it("holds the lock while CMD runs, releases it after, and exits with CMD's code", async () => {
    const result = await runJob(['lock', 'run', 'db', '--', ...node('process.exit(7)')], {
      env: endpoint.env,
    });
    assert.deepEqual([result.code, result.stderr], [7, '']);
    const routes = endpoint.requests
      .filter((request) => request.path.startsWith('/v1/lock/'))
      .slice(-2);
    assert.deepEqual(
      routes.map((request) => request.path),
      ['/v1/lock/acquire', '/v1/lock/release'],
    );
    assert.equal(endpoint.heldSlots('db'), 0);
  });

  void it('forwards SIGTERM to CMD; a second holder is refused meanwhile', async () => {
    const ready = join(dir, 'ready');
    const term = join(dir, 'term');
    const signals = new Map<string, () => void>();
    const script =
      `const fs = require('fs'); process.on('SIGTERM', () => { fs.writeFileSync(${JSON.stringify(term)}, 'got'); process.exit(0); });` +
      `fs.writeFileSync(${JSON.stringify(ready)}, ''); setInterval(() => {}, 1000);`;
    const pending = runJob(['lock', 'run', 'maint', '--', ...node(script)], {
      env: endpoint.env,
      signals,
    });
    await until(() => existsSync(ready), 'the wrapped command to start');
    assert.equal(endpoint.heldSlots('maint'), 1);
    assert.equal((await runJob(['lock', 'acquire', 'maint'], { env: endpoint.env })).code, 3);
    signals.get('SIGTERM')?.();
    const result = await pending;
    assert.equal(result.code, 0);
    assert.equal(readFileSync(term, 'utf8'), 'got');
    assert.equal(endpoint.heldSlots('maint'), 0);
    assert.equal(signals.size, 0, 'signal listeners are removed afterwards');
  });

  void it('a CMD killed by a signal exits 128 + N', async () => {
    const result = await runJob(
      ['lock', 'run', 'db', '--', ...node("process.kill(process.pid, 'SIGKILL')")],
      { env: endpoint.env },
    );
    assert.equal(result.code, 137);
    assert.equal(endpoint.heldSlots('db'), 0);
  });

  void it('a CMD that cannot run exits 1 and the lock is still released', async () => {
    const result = await runJob(['lock', 'run', 'db', '--', join(dir, 'no-such-program'), 'arg'], {
      env: endpoint.env,
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^yacron2 lock: cannot run .*no-such-program: spawn .* ENOENT/);
    assert.equal(endpoint.requestsTo('/v1/lock/release').length > 0, true);
    assert.equal(endpoint.heldSlots('db'), 0);
  });

  void it('no CMD exits 1 before anything is acquired', async () => {
    const before = endpoint.requestsTo('/v1/lock/acquire').length;
    for (const argv of [
      ['lock', 'run', 'db'],
      ['lock', 'run', 'db', '--'],
    ]) {
      const result = await runJob(argv, { env: endpoint.env });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^yacron2 lock: no command given/);
    }
    assert.equal(endpoint.requestsTo('/v1/lock/acquire').length, before);
  });

  void it('a lock held elsewhere exits 3 and CMD never runs', async () => {
    const holder = await runJob(['lock', 'acquire', 'busy'], { env: endpoint.env });
    const marker = join(dir, 'ran');
    const result = await runJob(
      [
        'lock',
        'run',
        'busy',
        '--',
        ...node(`require('fs').writeFileSync(${JSON.stringify(marker)}, '')`),
      ],
      { env: endpoint.env },
    );
    assert.deepEqual([result.code, result.stderr], [3, 'yacron2 lock: lock not acquired: busy\n']);
    assert.equal(existsSync(marker), false);
    await runJob(['lock', 'release', holder.stdout.trim()], { env: endpoint.env });
  });

  void it('a signal while waiting for the lock stops waiting and exits 128 + N', async () => {
    endpoint.override('/v1/lock/acquire', 'hang');
    try {
      const signals = new Map<string, () => void>();
      const before = endpoint.requestsTo('/v1/lock/acquire').length;
      const pending = runJob(
        ['lock', 'run', 'slow', '--wait', '--timeout', '600', '--', ...node('0')],
        {
          env: endpoint.env,
          signals,
        },
      );
      await until(
        () => endpoint.requestsTo('/v1/lock/acquire').length > before,
        'the acquire request',
      );
      signals.get('SIGINT')?.();
      const result = await pending;
      assert.deepEqual([result.code, result.stderr], [130, '']);
    } finally {
      endpoint.restore('/v1/lock/acquire');
    }
  });
});
