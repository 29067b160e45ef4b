// The native spawn helper's side of the protocol, byte for byte (docs/performance.md "The spawn
// path"): the binary runs with a plain Unix socket as its channel, so this test writes the
// daemon's requests itself and reads the raw reply lines, including the ones Node's channel would
// handle on its own (handles, their acknowledgements and refusals) and input no daemon sends.
// The handles it passes are dropped by the kernel here (a plain socket read takes no fds); the
// harness is test-raw-helper.ts, shared with the protocol test.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isPidGone } from './process-group.js';
import { helperLaunch } from './test-helper-launch.js';
import { startRawHelper, type RawHelper } from './test-raw-helper.js';

type Harness = RawHelper;

/** `body` against a fresh helper that said `ready`; the helper is closed after it. */
async function withHarness(body: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startRawHelper();
  try {
    assert.deepEqual(await h.next(), { type: 'ready' });
    await body(h);
  } finally {
    await h.close();
  }
}

/** Registers `env` as the base, then sends one batch of `launches`. */
function spawnBatch(h: Harness, env: Record<string, string>, launches: unknown[]): void {
  h.send({ type: 'base-env', env });
  h.send({ type: 'spawn', launches });
}

const launch = helperLaunch;

void test('native helper: ready, then the pid, the exit code and a signal by Node’s name', async () => {
  await withHarness(async (h) => {
    spawnBatch(h, { PATH: '/usr/bin:/bin' }, [
      launch(1, '/bin/sh', ['-c', 'exit 3']),
      launch(2, 'sh', ['-c', 'kill -TERM $$']), // found in the base's PATH
      launch(3, '/bin/sh', ['-c', 'kill -34 $$']), // a real-time signal: Node has no name
    ]);
    const replies = [];
    for (let index = 0; index < 6; index++) replies.push(await h.next());
    const spawned = replies.filter((reply) => reply.type === 'spawned');
    assert.deepEqual(
      spawned.map((reply) => reply.id),
      [1, 2, 3],
    );
    for (const reply of spawned)
      assert.ok(Number.isInteger(reply.pid) && (reply.pid as number) > 0);
    const exits = replies.filter((reply) => reply.type === 'exit');
    exits.sort((a, b) => (a.id as number) - (b.id as number));
    assert.deepEqual(exits, [
      { type: 'exit', id: 1, code: 3, signal: null, empty: [] },
      { type: 'exit', id: 2, code: null, signal: 'SIGTERM', empty: [] },
      { type: 'exit', id: 3, code: 128 + 34, signal: null, empty: [] },
    ]);
  });
});

/** Replies until one of type `type` about `id`; the ones before it are returned too. */
async function until(
  h: Harness,
  match: (reply: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>[]> {
  const seen: Record<string, unknown>[] = [];
  for (;;) {
    const reply = await h.next();
    seen.push(reply);
    if (match(reply)) return seen;
  }
}

void test('native helper: the environment is the base with the delta applied in order, or the whole one sent', async () => {
  await withHarness(async (h) => {
    h.send({ type: 'base-env', env: { A: '1', B: '2', C: '3', PATH: '/usr/bin:/bin' } });
    const cases: [unknown, string][] = [
      [
        { kind: 'delta', unset: ['B'], set: { C: 'three', D: 'é "q"\\', E: '\ud83d\ude00' } },
        'A=1 C=three PATH=/usr/bin:/bin D=é "q"\\ E=\u{1F600}',
      ],
      [{ kind: 'whole', env: { E: 'e', A: 'a' } }, 'E=e A=a'],
      [{ kind: 'delta', unset: ['A', 'B', 'C', 'PATH'], set: { D: 'x\ud800y' } }, 'D=x\uFFFDy'],
    ];
    let printed = 0;
    for (const [index, [env, expected]] of cases.entries()) {
      // /usr/bin/env prints its environment in the order it was given.
      h.send({ type: 'spawn', launches: [launch(index, '/usr/bin/env', [], { env })] });
      await until(h, (reply) => reply.type === 'exit' && reply.id === index);
      await h.printed(`${expected.split(' ').at(-1)!}\n`);
      const lines = h.stdout().slice(printed).trim().split('\n');
      printed = h.stdout().length;
      assert.equal(lines.join(' '), expected);
    }
  });
});

void test('native helper: an executable without a #! line runs under /bin/sh, as with Node', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-native-script-'));
  try {
    const script = join(dir, 'no-shebang');
    await writeFile(script, 'echo "ran as $0 with $1"\n', { mode: 0o700 });
    await withHarness(async (h) => {
      h.send({ type: 'base-env', env: { PATH: dir } });
      h.send({ type: 'spawn', launches: [launch(1, 'no-shebang', ['one'])] });
      const replies = await until(h, (reply) => reply.type === 'exit');
      assert.deepEqual(replies.at(-1), { type: 'exit', id: 1, code: 0, signal: null, empty: [] });
      await h.printed('\n');
      assert.equal(h.stdout(), `ran as ${script} with one\n`);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

void test('native helper: what cannot start is a failed reply with Node’s error code, and nothing runs', async () => {
  await withHarness(async (h) => {
    spawnBatch(h, { PATH: '/nonexistent-dir' }, [
      launch(1, '/nonexistent/program', []),
      launch(2, 'sh', ['-c', 'echo found']), // not in this PATH
      launch(3, '/bin/sh', ['-c', 'echo ran', 'a\u0000b']),
      launch(4, '/etc', []),
      launch(5, '/bin/sh', ['-c', 'echo after the failures']),
    ]);
    const replies = await until(h, (reply) => reply.type === 'exit' && reply.id === 5);
    assert.deepEqual(
      replies.filter((reply) => reply.type === 'failed'),
      [
        { type: 'failed', id: 1, message: 'spawn /nonexistent/program ENOENT', code: 'ENOENT' },
        { type: 'failed', id: 2, message: 'spawn sh ENOENT', code: 'ENOENT' },
        {
          type: 'failed',
          id: 3,
          message: 'spawn /bin/sh ERR_INVALID_ARG_VALUE',
          code: 'ERR_INVALID_ARG_VALUE',
        },
        { type: 'failed', id: 4, message: 'spawn /etc EACCES', code: 'EACCES' },
      ],
    );
    await h.printed('after the failures\n');
    assert.equal(h.stdout(), 'after the failures\n', 'none of the failed launches ran');
  });
});

void test('native helper: a uid or gid outside 0..4294967294, or not a whole number, fails the launch; it is never cast', async () => {
  await withHarness(async (h) => {
    // Run as root, the first would have run as uid 0 if 2^32 were cast to a 32-bit uid_t.
    const refused: [Record<string, unknown>, string][] = [
      [{ uid: 4_294_967_296 }, 'uid 4294967296 is outside 0..4294967294: refused'],
      [{ uid: 4_294_967_295 }, 'uid 4294967295 is outside 0..4294967294: refused'],
      [{ gid: 4_294_967_296 }, 'gid 4294967296 is outside 0..4294967294: refused'],
      [{ uid: -1 }, 'uid -1 is outside 0..4294967294: refused'],
      [{ uid: 1.5 }, 'uid 1.5 is outside 0..4294967294: refused'],
      [{ gid: '0' }, 'gid is not a number: refused'],
    ];
    spawnBatch(h, { PATH: '/usr/bin:/bin' }, [
      ...refused.map(([ids], index) => launch(index + 1, '/bin/sh', ['-c', 'echo ran'], ids)),
      launch(99, '/bin/sh', ['-c', 'echo after the refusals']),
    ]);
    const replies = await until(h, (reply) => reply.type === 'exit' && reply.id === 99);
    assert.deepEqual(
      replies.filter((reply) => reply.type === 'failed'),
      refused.map(([, detail], index) => ({
        type: 'failed',
        id: index + 1,
        message: `spawn /bin/sh EINVAL: ${detail}`,
        code: 'EINVAL',
      })),
    );
    await h.printed('after the refusals\n');
    assert.equal(h.stdout(), 'after the refusals\n', 'none of the refused launches ran');
  });
});

void test('native helper: a reply longer than 511 bytes arrives whole', async () => {
  await withHarness(async (h) => {
    const file = `/nonexistent/${'d'.repeat(60)}/`.repeat(10) + 'program';
    spawnBatch(h, {}, [launch(1, file, [])]);
    const reply = await h.next();
    assert.ok(JSON.stringify(reply).length > 600);
    assert.deepEqual(reply, {
      type: 'failed',
      id: 1,
      message: `spawn ${file} ENOENT`,
      code: 'ENOENT',
    });
  });
});

void test('native helper: a captured pipe is a raw Node handle message; refused, it is sent again, then reported lost', async () => {
  await withHarness(async (h) => {
    h.send({ type: 'base-env', env: {} });
    h.send({
      type: 'spawn',
      launches: [launch(9, '/bin/sh', ['-c', 'exit 0'], { captureStderr: true })],
    });
    const handle = {
      cmd: 'NODE_HANDLE',
      type: 'net.Native',
      msg: { type: 'pipe', id: 9, stream: 'stderr', held: true },
    };
    const all: Record<string, unknown>[] = [];
    const first = await until(h, (reply) => reply.cmd === 'NODE_HANDLE');
    all.push(...first);
    assert.equal(first[0]!.type, 'spawned');
    assert.deepEqual(first.at(-1), handle);
    // Node refuses a handle it could not take (MSG_CTRUNC): three more tries, then given up.
    for (let attempt = 0; attempt < 3; attempt++) {
      h.send({ cmd: 'NODE_HANDLE_NACK' });
      const resent = await until(h, (reply) => reply.cmd === 'NODE_HANDLE');
      all.push(...resent);
      assert.deepEqual(resent.at(-1), handle, `resent (${attempt + 1})`);
    }
    h.send({ cmd: 'NODE_HANDLE_NACK' });
    const rest = await until(h, (reply) => reply.type === 'pipe');
    assert.deepEqual(rest.at(-1), { type: 'pipe', id: 9, stream: 'stderr' }, 'reported lost');
    all.push(...rest);
    if (!all.some((reply) => reply.type === 'exit')) all.push(await h.next());
    assert.deepEqual(
      all.filter((reply) => reply.type === 'exit'),
      [{ type: 'exit', id: 9, code: 0, signal: null, empty: [] }],
    );
  });
});

/**
 * A launch gated on a FIFO, its handles acknowledged: the helper watches its pipes before the job
 * goes on (a failed launch answered after the ACKs proves they were read). Returns the gate.
 */
async function gatedLaunch(
  h: Harness,
  dir: string,
  id: number,
  script: string,
  capture: { captureStdout?: boolean; captureStderr?: boolean },
): Promise<{ open(): Promise<void> }> {
  const gate = join(dir, `gate-${id}`);
  execFileSync('mkfifo', [gate]);
  h.send({
    type: 'spawn',
    launches: [launch(id, '/bin/sh', ['-c', `read x < "$1"; ${script}`, 'sh', gate], capture)],
  });
  const handles = (capture.captureStdout ? 1 : 0) + (capture.captureStderr ? 1 : 0);
  const seen = await until(h, (reply) => reply.type === 'spawned' && reply.id === id);
  let received = seen.filter((reply) => reply.cmd === 'NODE_HANDLE').length;
  while (received < handles) if ((await h.next()).cmd === 'NODE_HANDLE') received++;
  for (let index = 0; index < handles; index++) h.send({ cmd: 'NODE_HANDLE_ACK' });
  h.send({ type: 'spawn', launches: [launch(id + 1000, '/nonexistent', [])] });
  await until(h, (reply) => reply.type === 'failed' && reply.id === id + 1000);
  return { open: () => writeFile(gate, 'go\n') };
}

void test('native helper: a held pipe with output is announced; one that ends empty is named in the exit (or just before it)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-native-held-'));
  try {
    await withHarness(async (h) => {
      h.send({ type: 'base-env', env: {} });
      const gate = await gatedLaunch(h, dir, 1, 'echo out; exit 4', {
        captureStdout: true,
        captureStderr: true,
      });
      await gate.open();
      const replies = await until(h, (reply) => reply.type === 'exit');
      assert.deepEqual(
        replies.filter((reply) => reply.type === 'output'),
        [{ type: 'output', id: 1, stream: 'stdout' }],
        'announced before the exit',
      );
      const exit = replies.at(-1)!;
      assert.deepEqual(
        { ...exit, empty: undefined },
        {
          type: 'exit',
          id: 1,
          code: 4,
          signal: null,
          empty: undefined,
        },
      );
      // The pipe's end and the exit come a moment apart: named in the exit, or said just before.
      const emptied = replies.filter((reply) => reply.type === 'empty');
      assert.deepEqual(
        [...emptied.map((reply) => reply.stream), ...(exit.empty as string[])],
        ['stderr'],
      );
      for (const reply of emptied)
        assert.deepEqual(reply, { type: 'empty', id: 1, stream: 'stderr' });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

void test('native helper: a held pipe a background process keeps open ends after the exit, with its own message', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-native-held-'));
  const pidFile = join(dir, 'background.pid');
  try {
    await withHarness(async (h) => {
      h.send({ type: 'base-env', env: {} });
      const gate = await gatedLaunch(h, dir, 2, `sleep 60 & echo $! > "${pidFile}"`, {
        captureStderr: true,
      });
      await gate.open();
      const replies = await until(h, (reply) => reply.type === 'exit');
      assert.deepEqual(replies.at(-1), { type: 'exit', id: 2, code: 0, signal: null, empty: [] });
      assert.ok(!replies.some((reply) => reply.type === 'empty' || reply.type === 'output'));
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
      assert.deepEqual(await h.next(), { type: 'empty', id: 2, stream: 'stderr' });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** The helper's open fds (its copies of the held pipes among them). */
function openFds(h: Harness): number {
  return readdirSync(`/proc/${h.process.pid}/fd`).length;
}

/** A request answered after every earlier one was handled (the channel keeps the order). */
async function roundTrip(h: Harness, id: number): Promise<void> {
  h.send({ type: 'spawn', launches: [launch(id, '/nonexistent', [])] });
  await until(h, (reply) => reply.type === 'failed' && reply.id === id);
}

void test('native helper: `forget` closes its copies of a given-up run’s pipes, watched or not yet answered', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-native-forget-'));
  const pids: number[] = [];
  try {
    await withHarness(async (h) => {
      h.send({ type: 'base-env', env: {} });
      // Run 1: both pipes watched, held open by a background process after the exit.
      const pidFile = join(dir, 'one.pid');
      const gate = await gatedLaunch(h, dir, 1, `sleep 60 & echo $! > "${pidFile}"`, {
        captureStdout: true,
        captureStderr: true,
      });
      await gate.open();
      const exit = (await until(h, (reply) => reply.type === 'exit')).at(-1);
      assert.deepEqual(exit, { type: 'exit', id: 1, code: 0, signal: null, empty: [] });
      pids.push(Number(readFileSync(pidFile, 'utf8')));
      const watching = openFds(h);
      h.send({ type: 'forget', id: 1 });
      await roundTrip(h, 1001);
      assert.equal(openFds(h), watching - 2, 'both watched pipes closed');

      // Run 2: its handle not answered yet when it is forgotten; closed on the answer.
      h.send({
        type: 'spawn',
        launches: [launch(2, '/bin/sh', ['-c', 'sleep 60 & echo $!'], { captureStderr: true })],
      });
      await until(h, (reply) => reply.cmd === 'NODE_HANDLE');
      await h.printed('\n');
      pids.push(Number(h.stdout().trim()));
      const unanswered = openFds(h);
      h.send({ type: 'forget', id: 2 });
      h.send({ cmd: 'NODE_HANDLE_ACK' });
      await roundTrip(h, 1002);
      assert.equal(openFds(h), unanswered - 1, 'the unanswered handle closed on its answer');
      // Neither run is spoken of again: the next reply is the next request's.
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      h.send({ type: 'spawn', launches: [launch(1003, '/nonexistent', [])] });
      assert.equal((await h.next()).id, 1003);
    });
  } finally {
    for (const pid of pids) if (!isPidGone(pid)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

void test('native helper: junk on the channel is skipped with a line on stderr; `stop` and a closed channel end it with 0', async () => {
  await withHarness(async (h) => {
    h.sendRaw('not json\n{"type":"spawn","launches":[1,\n[]\n{"type":"base-env"}\n');
    h.sendRaw('{"type":"spawn","launches":[{"id":"x"},{"id":2}]}\n');
    h.send({ type: 'base-env', env: {} });
    h.send({ type: 'spawn', launches: [launch(5, '/bin/sh', ['-c', 'echo still here'])] });
    await h.printed('still here\n');
    const replies = await until(h, (reply) => reply.type === 'exit' && reply.id === 5);
    assert.deepEqual(
      replies.filter((reply) => reply.type === 'failed'),
      [
        {
          type: 'failed',
          id: 2,
          message: 'spawn ? ERR_INVALID_ARG_VALUE',
          code: 'ERR_INVALID_ARG_VALUE',
        },
      ],
    );
    assert.match(h.stderr(), /a request that is not a JSON object was ignored/);
    assert.match(h.stderr(), /a base-env without an env object was ignored/);
    h.send({ type: 'stop' });
    const [code] = (await once(h.process, 'exit')) as [number | null];
    assert.equal(code, 0);
  });
  const closed = await startRawHelper();
  assert.deepEqual(await closed.next(), { type: 'ready' });
  const exited = once(closed.process, 'exit');
  await closed.close();
  assert.deepEqual(await exited, [0, null]);
});
