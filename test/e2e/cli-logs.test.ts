// E2E: `yacron2 logs` (docs/cli.md "yacron2 logs") against a real daemon with a `state:` section
// and a token from a file: a job archiving its output runs on three planned seconds, and
// `logs --last 3` prints the three archives oldest first, exactly as the store holds them, with
// a printed password and a staged secret redacted; `logs --follow` on a running job prints its
// lines as they come (the job waits on a file the test creates) and ends with the run's header;
// `--run ID` prints that run again; a wrong token and an unknown job fail with their messages.
// `logs JOB -c CONFIG` (and `yacron2 -c CONFIG logs JOB`) finds the daemon's listener and token
// in its configuration, with no flag or variable; the environment still wins over it.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  freePort,
  readStoreStream,
  runCli,
  secondsSchedule,
  shellQuote,
  startDaemon,
  waitForStoreRecords,
  webUrlOf,
} from './harness.js';
import { useJobState } from './job-fixture.test.js';

const TOKEN = 'e2e-logs-token-0123456789abcdef';
const SECRET = 'staged-s3cr3t-value';
const PASSWORD = 'hunter2-in-the-output';

test(
  'logs --last 3 prints the archived runs redacted; --follow streams a running job to its exit',
  { timeout: 90_000 },
  async (t) => {
    const setup = await useJobState(t);
    const tokenFile = join(setup.dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const gate = join(setup.dir, 'gate');
    // Three slots 2 s apart, far enough ahead for the daemon to be up.
    const firstMs = Math.ceil((Date.now() + 5_000) / 1000) * 1000;
    const slots = [firstMs, firstMs + 2_000, firstMs + 4_000];
    const config = await setup.writeJobs(`jobs:
  - name: echoer
    schedule: "${secondsSchedule(slots)}"
    command: |
      echo "run $YACRON2_RUN_ID"
      echo "password=${PASSWORD}"
      echo "key $(yacron2 secret get API_KEY)" >&2
    captureStdout: true
    captureStderr: true
    archiveOutput: true
    failsWhen:
      producesStdout: false
      producesStderr: false
    secrets:
      - name: API_KEY
        value: ${SECRET}
  - name: follower
    schedule: "0 0 0 1 1 * 2099"
    command: |
      echo first
      while [ ! -e ${shellQuote(gate)} ]; do sleep 0.05; done
      echo second >&2
      exit 4
    captureStdout: true
    captureStderr: true
    archiveOutput: true
web:
  listen:
    - http://127.0.0.1:0
  authToken:
    fromFile: ${shellQuote(tokenFile)}
`);
    const daemon = startDaemon(t, ['-c', config], { env: setup.env });
    const base = await webUrlOf(daemon);
    const cliEnv = { ...setup.env, YACRON2_API_TOKEN_FILE: tokenFile };
    const logs = (...args: string[]) => runCli(['logs', ...args, '--url', base], { env: cliEnv });

    // --last 3: the three archives, oldest first, as the store holds them.
    const archived = await waitForStoreRecords(
      setup.store,
      'logs/echoer',
      (records) => records.length >= 3,
      { daemon, timeoutMs: 30_000 },
    );
    assert.equal(archived.length, 3, 'one archive per planned slot');
    const last = await logs('echoer', '--last', '3');
    assert.equal(last.stderr, '');
    assert.equal(last.code, 0);
    const sections = last.stdout.split(/^(?=== )/m);
    assert.equal(sections.length, 3, last.stdout);
    const runIds: string[] = [];
    for (const [index, section] of sections.entries()) {
      const [head, ...lines] = section.trimEnd().split('\n');
      assert.match(
        head!,
        /^== echoer run \S+ finished \d{4}-\d\d-\d\dT[\d:.]+\+00:00: success \(exit 0\) \(redacted\) ==$/,
      );
      const stored = archived[index]!['lines'] as { stream: string; line: string }[];
      assert.deepEqual(
        lines,
        stored.map((entry) => entry.line.replace(/\n$/, '')),
        'the archive as stored',
      );
      const runLine = lines.find((line) => line.startsWith('run '));
      assert.match(runLine ?? '', /^run [0-9a-f]{32}$/);
      runIds.push(runLine!);
      assert.ok(lines.includes('password=***REDACTED***'), section);
      assert.ok(lines.includes('key [REDACTED]'), section);
    }
    assert.equal(new Set(runIds).size, 3, 'three different runs');
    assert.ok(!last.stdout.includes(PASSWORD) && !last.stdout.includes(SECRET));
    assert.deepEqual(
      readStoreStream(setup.store, 'logs/echoer').length,
      3,
      'no fourth run meanwhile',
    );

    // Failures: a wrong token (never echoed), an unknown job.
    const wrong = await runCli(['logs', 'echoer', '--url', base], {
      env: { ...setup.env, YACRON2_API_TOKEN: 'not-the-token' },
    });
    assert.equal(wrong.code, 1);
    assert.equal(
      wrong.stderr,
      `yacron2 logs: the daemon at ${base} refused the token from YACRON2_API_TOKEN (401)\n`,
    );
    const unknown = await logs('nope');
    assert.deepEqual(
      { code: unknown.code, stderr: unknown.stderr },
      { code: 4, stderr: `yacron2 logs: no job named nope at ${base}\n` },
    );

    // --follow on a running job.
    const started = await fetch(`${base}/jobs/follower/start`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(started.status, 200);
    await daemon.waitForLine(/^\[follower stdout\] first$/);
    const follow = startDaemon(t, ['logs', 'follower', '--follow', '--url', base], {
      env: cliEnv,
    });
    await follow.waitForLine(/^first$/);
    assert.deepEqual(follow.stdoutLines, ['first'], 'the run is still waiting on the gate');
    assert.ok(follow.running);
    writeFileSync(gate, '');
    assert.equal(await follow.exited(), 0, follow.lines.join('\n'));
    assert.deepEqual(follow.stdoutLines.slice(0, 2), ['first', 'second']);
    const end = follow.stdoutLines[2] ?? '';
    const match = /^== follower run (\S+) finished \S+: failure \(exit 4\) \(redacted\) ==$/.exec(
      end,
    );
    assert.ok(match, follow.lines.join('\n'));
    assert.equal(follow.stdoutLines.length, 3);

    // --run ID: the followed run, from its archive.
    const again = await logs('follower', '--run', match[1]!);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, `${end}\nfirst\nsecond\n`);
    assert.equal(await daemon.stop(), 0);
  },
);

test(
  'logs JOB -c CONFIG reads the listener and the token from the daemon configuration',
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const tokenFile = join(setup.dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const port = await freePort();
    const config = await setup.writeJobs(`jobs:
  - name: greeter
    schedule: "0 0 0 1 1 * 2099"
    command: echo "hello from the archive"
    captureStdout: true
    archiveOutput: true
web:
  listen:
    - http://127.0.0.1:${port}
  authToken:
    fromFile: ${shellQuote(tokenFile)}
`);
    // Neither the daemon nor the client is told the URL or the token another way.
    const env = Object.fromEntries(
      Object.entries(setup.env).filter(([name]) => !name.startsWith('YACRON2_API_')),
    );
    const daemon = startDaemon(t, ['-c', config], { env });
    const base = await webUrlOf(daemon);
    const started = await fetch(`${base}/jobs/greeter/start`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(started.status, 200);
    const [record] = await waitForStoreRecords(
      setup.store,
      'logs/greeter',
      (records) => records.length >= 1,
      { daemon },
    );
    assert.ok(record);

    const header = /^== greeter run \S+ finished \S+: success \(exit 0\) \(redacted\) ==$/;
    for (const args of [
      ['logs', 'greeter', '-c', config],
      ['logs', 'greeter', '--config', setup.dir],
      ['-c', config, 'logs', 'greeter'],
    ]) {
      const result = await runCli(args, { env });
      assert.equal(result.stderr, '', args.join(' '));
      assert.equal(result.code, 0, args.join(' '));
      const [head, ...lines] = result.stdout.trimEnd().split('\n');
      assert.match(head ?? '', header, args.join(' '));
      assert.deepEqual(lines, ['hello from the archive'], args.join(' '));
    }

    // The environment wins over the configuration: a wrong token there is refused, by name.
    const wrong = await runCli(['logs', 'greeter', '-c', config], {
      env: { ...env, YACRON2_API_TOKEN: 'not-the-token' },
    });
    assert.equal(wrong.code, 1);
    assert.equal(
      wrong.stderr,
      `yacron2 logs: the daemon at http://127.0.0.1:${port} refused the token from YACRON2_API_TOKEN (401)\n`,
    );
    // A configuration without a web section says so.
    const bare = join(setup.dir, 'bare.yaml');
    writeFileSync(bare, 'jobs:\n');
    const none = await runCli(['logs', 'greeter', '-c', bare], { env });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /has no web section: the daemon serves no control API/);
    assert.equal(await daemon.stop(), 0);
  },
);
