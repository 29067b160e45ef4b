// Every message kind of docs/performance.md "The native helper's protocol" round-trips through the
// real native helper, a real child process. First over the daemon's own kind of channel (Node's
// IPC with JSON serialization, as spawn-helper.ts starts it): typed HelperRequests in, every
// reply checked field by field against the protocol and read back as a HelperReply, held pipes
// arriving as real handles whose bytes are read. Then over a plain socket, for what Node's channel
// does by itself and so cannot be steered from there (test-raw-helper.ts): the NODE_HANDLE line
// byte for byte, its NODE_HANDLE_ACK and NODE_HANDLE_NACK, and a pipe reported lost. The kind tables below are typed
// over the protocol's unions, so a new kind does not compile until this test covers it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeferred } from '../common/index.js';
import { within } from '../state/testing.js';
import { isPidGone } from './process-group.js';
import { socketFor, type HeldPipe } from './spawn-helper.js';
import type { HelperReply, HelperRequest } from './spawn-helper-protocol.js';
import { helperLaunch } from './test-helper-launch.js';
import {
  HELPER_WAIT_MS,
  helperEnv,
  nativeHelperBinary,
  startRawHelper,
} from './test-raw-helper.js';
import type { OutputStream } from './types.js';

const WAIT_MS = HELPER_WAIT_MS;

/** Every kind each way: typed over the unions, so none can be left out. */
const REQUEST_KINDS: Record<HelperRequest['type'], true> = {
  'base-env': true,
  spawn: true,
  forget: true,
  stop: true,
};
const REPLY_KINDS: Record<HelperReply['type'], true> = {
  ready: true,
  spawned: true,
  pipe: true,
  output: true,
  empty: true,
  failed: true,
  exit: true,
};
/** Node's own channel messages (a handle, and the daemon's answers to it). */
const CHANNEL_KINDS = ['NODE_HANDLE', 'NODE_HANDLE_ACK', 'NODE_HANDLE_NACK'] as const;

const sentKinds = new Set<string>();
const receivedKinds = new Set<string>();
const channelKinds = new Set<string>();

const isStream = (value: unknown): value is OutputStream =>
  value === 'stdout' || value === 'stderr';
const isSignalName = (value: unknown): value is NodeJS.Signals =>
  typeof value === 'string' && Object.hasOwn(constants.signals, value);
const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * One reply as the protocol lays it out: exactly its fields, each of its type; `handled` says
 * whether a handle came with it (a `pipe` carries `held: true` exactly then).
 */
function decodeReply(message: unknown, handled: boolean): HelperReply {
  assert.ok(
    typeof message === 'object' && message !== null && !Array.isArray(message),
    `a reply is a JSON object: ${JSON.stringify(message)}`,
  );
  const fields = new Map<string, unknown>(Object.entries(message));
  const type = fields.get('type');
  const shown = JSON.stringify(message);
  const keys = (...names: string[]): void =>
    assert.deepEqual(
      [...fields.keys()].sort(),
      ['type', ...names].sort(),
      `the fields of ${shown}`,
    );
  const id = (): number => {
    const value = fields.get('id');
    assert.ok(isId(value), `a launch id in ${shown}`);
    return value;
  };
  const stream = (): OutputStream => {
    const value = fields.get('stream');
    assert.ok(isStream(value), `a stream in ${shown}`);
    return value;
  };
  receivedKinds.add(String(type));
  switch (type) {
    case 'ready':
      keys();
      return { type: 'ready' };
    case 'spawned': {
      keys('id', 'pid');
      const pid = fields.get('pid');
      assert.ok(typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0, shown);
      return { type: 'spawned', id: id(), pid };
    }
    case 'pipe':
      if (!handled) {
        keys('id', 'stream');
        return { type: 'pipe', id: id(), stream: stream() };
      }
      keys('id', 'stream', 'held');
      assert.equal(fields.get('held'), true, shown);
      return { type: 'pipe', id: id(), stream: stream(), held: true };
    case 'output':
      keys('id', 'stream');
      return { type: 'output', id: id(), stream: stream() };
    case 'empty':
      keys('id', 'stream');
      return { type: 'empty', id: id(), stream: stream() };
    case 'failed': {
      keys('id', 'message', 'code');
      const text = fields.get('message');
      const code = fields.get('code');
      assert.ok(typeof text === 'string' && typeof code === 'string', shown);
      return { type: 'failed', id: id(), message: text, code };
    }
    case 'exit': {
      keys('id', 'code', 'signal', 'empty');
      const code = fields.get('code');
      const signal = fields.get('signal');
      const empty = fields.get('empty');
      assert.ok(code === null || (typeof code === 'number' && Number.isInteger(code)), shown);
      assert.ok(signal === null || isSignalName(signal), shown);
      assert.ok((code === null) !== (signal === null), `a code or a signal: ${shown}`);
      assert.ok(Array.isArray(empty) && empty.every(isStream), shown);
      return { type: 'exit', id: id(), code, signal, empty: empty.filter(isStream) };
    }
  }
  assert.fail(`a reply of no kind of the protocol: ${shown}`);
}

const launch = helperLaunch;

/** A FIFO a job waits on (`read x < "$GATE"`) until the test opens it. */
function fifo(dir: string, name: string): { path: string; open(): Promise<void> } {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return { path, open: () => writeFile(path, 'go\n') };
}

interface Received {
  readonly reply: HelperReply;
  readonly handle: HeldPipe | undefined;
}

/** The native helper on a Node IPC channel, as the daemon runs it. */
interface IpcHelper {
  readonly process: ChildProcess;
  readonly received: readonly Received[];
  send(request: HelperRequest): void;
  /** The first reply received (now or later) that `match` takes. */
  waitFor(what: string, match: (reply: HelperReply) => boolean): Promise<Received>;
}

const isHeldPipe = (handle: unknown): handle is HeldPipe =>
  typeof handle === 'object' &&
  handle !== null &&
  'close' in handle &&
  typeof handle.close === 'function';

function startIpcHelper(): IpcHelper {
  const helper = spawn(nativeHelperBinary(), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
    env: helperEnv(),
  });
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  helper.on('message', (message: unknown, handle: unknown) => {
    assert.ok(handle === undefined || isHeldPipe(handle), 'a handle is a raw pipe handle');
    received.push({ reply: decodeReply(message, handle !== undefined), handle });
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    process: helper,
    received,
    send(request) {
      sentKinds.add(request.type);
      helper.send(request);
    },
    async waitFor(what, match) {
      for (;;) {
        const found = received.find((entry) => match(entry.reply));
        if (found !== undefined) return found;
        const arrived = createDeferred<void>();
        waiters.push(() => arrived.resolve());
        await within(arrived.promise, WAIT_MS, what);
      }
    },
  };
}

/** All of a socket's bytes until it ends. */
async function readAll(socket: Socket): Promise<string> {
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  await within(once(socket, 'end'), WAIT_MS, 'the end of a held pipe');
  return text;
}

const about = (id: number) => (entries: readonly Received[]) =>
  entries.filter((entry) => entry.reply.type !== 'ready' && entry.reply.id === id);

void test('protocol over a Node IPC channel: every request and reply kind through the real native helper', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-protocol-'));
  const h = startIpcHelper();
  try {
    const ready = await h.waitFor('ready', (reply) => reply.type === 'ready');
    assert.equal(h.received[0], ready, '`ready` comes first');

    // base-env, then one spawn of four launches: the environment travels as a delta or whole.
    const gates = ['held', 'signal', 'forget'].map((name) => fifo(dir, name));
    const [held, signalled, forgotten] = gates.map((gate) => gate.path);
    h.send({ type: 'base-env', env: { PATH: '/usr/bin:/bin', GREETING: 'hello' } });
    h.send({
      type: 'spawn',
      launches: [
        // Output on stdout, stderr closed without a byte, then an exit code.
        launch(1, 'sh', ['-c', 'printf "$GREETING"; exec 2>&-; read x < "$GATE"; exit 3'], {
          env: { kind: 'delta', unset: [], set: { GATE: held! } },
          captureStdout: true,
          captureStderr: true,
        }),
        launch(2, '/nonexistent/yacron2-protocol-test', ['x']),
        // Killed by a signal, its stderr still open until it ends.
        launch(3, 'sh', ['-c', 'read x < "$GATE"; kill -TERM $$'], {
          env: { kind: 'whole', env: { PATH: '/usr/bin:/bin', GATE: signalled! } },
          captureStderr: true,
        }),
        // Given up by the daemon while it runs.
        launch(4, 'sh', ['-c', 'read x < "$GATE"'], {
          env: { kind: 'delta', unset: ['GREETING'], set: { GATE: forgotten! } },
          captureStdout: true,
        }),
      ],
    });

    const failed = await h.waitFor('failed 2', (reply) => reply.type === 'failed');
    assert.deepEqual(failed.reply, {
      type: 'failed',
      id: 2,
      message: 'spawn /nonexistent/yacron2-protocol-test ENOENT',
      code: 'ENOENT',
    });
    const pipes = new Map<string, HeldPipe>();
    for (const [id, stream] of [
      [1, 'stdout'],
      [1, 'stderr'],
      [3, 'stderr'],
      [4, 'stdout'],
    ] as const) {
      const pipe = await h.waitFor(
        `pipe ${id} ${stream}`,
        (reply) => reply.type === 'pipe' && reply.id === id && reply.stream === stream,
      );
      assert.ok(pipe.handle !== undefined, `pipe ${id} ${stream} came with its handle`);
      pipes.set(`${id}:${stream}`, pipe.handle);
    }
    // Node acknowledged each handle as it arrived; a reply to a later request proves the helper
    // has read those acknowledgements (the channel keeps the order), so it watches every pipe.
    h.send({ type: 'spawn', launches: [launch(100, '/nonexistent/barrier', [])] });
    await h.waitFor('the first barrier', (reply) => reply.type === 'failed' && reply.id === 100);

    // Run 1: `output` for stdout (read through the handle), `empty` for stderr, then its exit.
    await h.waitFor('output 1', (reply) => reply.type === 'output' && reply.id === 1);
    await h.waitFor('empty 1', (reply) => reply.type === 'empty' && reply.id === 1);
    pipes.get('1:stderr')!.close();
    const stdout = readAll(socketFor(pipes.get('1:stdout')!));
    await gates[0]!.open();
    const exit1 = await h.waitFor('exit 1', (reply) => reply.type === 'exit' && reply.id === 1);
    assert.deepEqual(exit1.reply, { type: 'exit', id: 1, code: 3, signal: null, empty: [] });
    assert.equal(await stdout, 'hello', 'the bytes stayed in the pipe for the daemon');
    const kinds1 = about(1)(h.received).map((entry) => entry.reply.type);
    assert.deepEqual(kinds1.slice(0, 3), ['spawned', 'pipe', 'pipe']);
    assert.deepEqual(kinds1.slice(3, 5).sort(), ['empty', 'output']);
    assert.deepEqual(kinds1.slice(5), ['exit']);

    // Run 3: a signal by Node's name; its stderr ended empty with it, named once.
    await gates[1]!.open();
    const exit3 = await h.waitFor('exit 3', (reply) => reply.type === 'exit' && reply.id === 3);
    assert.ok(exit3.reply.type === 'exit');
    assert.deepEqual([exit3.reply.code, exit3.reply.signal], [null, 'SIGTERM']);
    const emptied = about(3)(h.received).flatMap((entry) => {
      if (entry.reply.type === 'empty') return [entry.reply.stream];
      return entry.reply.type === 'exit' ? (entry.reply.empty ?? []) : [];
    });
    assert.deepEqual(emptied, ['stderr'], 'named empty once: in the exit, or just before it');
    pipes.get('3:stderr')!.close();

    // Run 4: forgotten, then it ends: nothing more comes about it.
    h.send({ type: 'forget', id: 4 });
    pipes.get('4:stdout')!.close();
    const spawned4 = about(4)(h.received).find((entry) => entry.reply.type === 'spawned');
    assert.ok(spawned4?.reply.type === 'spawned');
    await gates[2]!.open();
    // Reaped by the helper (its parent) once gone: any exit it would still send is sent by then.
    for (let waited = 0; !isPidGone(spawned4.reply.pid); waited += 10) {
      assert.ok(waited < WAIT_MS, 'run 4 ended');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    h.send({ type: 'spawn', launches: [launch(101, '/nonexistent/barrier', [])] });
    await h.waitFor('the second barrier', (reply) => reply.type === 'failed' && reply.id === 101);
    assert.deepEqual(
      about(4)(h.received).map((entry) => entry.reply.type),
      ['spawned', 'pipe'],
      'after forget, no output, empty or exit about the run',
    );

    // stop: the helper exits 0.
    const exited = once(h.process, 'exit');
    h.send({ type: 'stop' });
    assert.deepEqual(await within(exited, WAIT_MS, 'the helper exits'), [0, null]);
  } finally {
    if (h.process.exitCode === null && h.process.signalCode === null) h.process.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

/** The exact line of a held pipe's handle message (docs: Node's own framing, `net.Native`). */
const handleLine = (id: number, stream: OutputStream): string =>
  `{"cmd":"NODE_HANDLE","type":"net.Native","msg":{"type":"pipe","id":${id},"stream":"${stream}","held":true}}`;

/** A line as a reply: a handle message's `msg` (with its handle), else the line itself. */
function replyOfLine(line: string): HelperReply {
  const parsed: unknown = JSON.parse(line);
  if (typeof parsed === 'object' && parsed !== null && 'cmd' in parsed) {
    assert.equal(parsed.cmd, 'NODE_HANDLE', line);
    channelKinds.add('NODE_HANDLE');
    assert.ok('msg' in parsed, line);
    return decodeReply(parsed.msg, true);
  }
  return decodeReply(parsed, false);
}

void test('protocol over a plain socket: the NODE_HANDLE line, NACK (resent, then lost) and ACK (then watched)', async () => {
  const h = await startRawHelper();
  try {
    assert.equal(await h.waitFor('ready', () => true), '{"type":"ready"}');
    h.send({ type: 'base-env', env: { PATH: '/usr/bin:/bin' } } satisfies HelperRequest);
    h.send({
      type: 'spawn',
      // Writes nothing: the pipe it would write to is lost below (a write would be a SIGPIPE).
      launches: [launch(1, 'sh', ['-c', 'exit 0'], { captureStdout: true })],
    } satisfies HelperRequest);

    // Refused: the same line again, three times; the fourth refusal reports the pipe lost.
    let handles = 0;
    const countHandles = (): number =>
      h.lines.filter((line) => line === handleLine(1, 'stdout')).length;
    for (let attempt = 0; attempt < 4; attempt++) {
      await h.waitFor(`handle ${attempt + 1}`, () => countHandles() > handles);
      handles = countHandles();
      h.send({ cmd: 'NODE_HANDLE_NACK' });
      channelKinds.add('NODE_HANDLE_NACK');
    }
    const lost = await h.waitFor('the pipe lost', (line) => line.startsWith('{"type":"pipe"'));
    assert.deepEqual(replyOfLine(lost), { type: 'pipe', id: 1, stream: 'stdout' });
    assert.equal(countHandles(), 4, 'sent once and resent three times');

    // Acknowledged: watched, so its byte is announced (before its exit, or after it).
    h.send({
      type: 'spawn',
      launches: [launch(2, 'sh', ['-c', 'printf x'], { captureStdout: true })],
    } satisfies HelperRequest);
    await h.waitFor('handle 2', (line) => line === handleLine(2, 'stdout'));
    h.send({ cmd: 'NODE_HANDLE_ACK' });
    channelKinds.add('NODE_HANDLE_ACK');
    await h.waitFor('output 2', (line) => line === '{"type":"output","id":2,"stream":"stdout"}');
    for (const id of [1, 2]) {
      await h.waitFor(`exit ${id}`, (line) => line.startsWith(`{"type":"exit","id":${id},`));
    }

    const replies = h.lines.map(replyOfLine);
    const exits = replies.filter((reply) => reply.type === 'exit').sort((a, b) => a.id - b.id);
    assert.deepEqual(
      exits,
      [1, 2].map((id) => ({ type: 'exit', id, code: 0, signal: null, empty: [] })),
    );
  } finally {
    await h.close();
    assert.deepEqual([h.process.exitCode, h.process.signalCode], [0, null], 'EOF ends it with 0');
  }
});

void test('protocol: every kind of the protocol went through the helper above', () => {
  assert.deepEqual([...sentKinds].sort(), Object.keys(REQUEST_KINDS).sort());
  assert.deepEqual([...receivedKinds].sort(), Object.keys(REPLY_KINDS).sort());
  assert.deepEqual([...channelKinds].sort(), [...CHANNEL_KINDS].sort());
});
