// Test support: the native spawn helper with a plain Unix socket as its channel, so a test writes
// the daemon's requests itself and reads the raw reply lines (docs/performance.md "The native
// helper's protocol"), including the ones Node's channel would handle on its own (handles, their
// acknowledgements and refusals) and input no daemon sends. The handles the helper passes are
// dropped by the kernel here (a plain socket read takes no fds). Shared by the protocol test and
// the native helper's own test, so both drive the binary the same way. Test-only.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeferred } from '../common/index.js';
import { within } from '../state/testing.js';
import { helperProgram } from './test-spawn-paths.js';

/** How long a reply or a line may take before the test fails (a hang fails, never blocks). */
export const HELPER_WAIT_MS = 10_000;

/** The helper's environment: nothing of ours but PATH (and the sanitizers' settings in CI). */
export function helperEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    ASAN_OPTIONS: process.env.ASAN_OPTIONS,
    UBSAN_OPTIONS: process.env.UBSAN_OPTIONS,
    ...extra,
  };
}

/** The built native helper's path (the test fails when it was not built). */
export function nativeHelperBinary(): string {
  const program = helperProgram('native');
  assert.equal(program.kind, 'native');
  return program.path;
}

export interface RawHelper {
  readonly process: ChildProcess;
  /** Every reply line so far, as written, without its newline. */
  readonly lines: readonly string[];
  /** What the jobs wrote to the helper's own stdout (they inherit it when not captured). */
  stdout(): string;
  stderr(): string;
  /** One request as its JSON line. */
  send(message: unknown): void;
  /** Bytes as they are, framing included (or not). */
  sendRaw(text: string): void;
  /** The next reply line not yet taken by `next`, parsed. */
  next(): Promise<Record<string, unknown>>;
  /** The first line (received now or later, taken or not) that `match` takes. */
  waitFor(what: string, match: (line: string) => boolean): Promise<string>;
  /** Resolves once the helper's own stdout holds `text`. */
  printed(text: string): Promise<void>;
  /** Ends the channel (EOF), waits for the helper's exit and removes the socket's directory. */
  close(): Promise<void>;
}

export async function startRawHelper(): Promise<RawHelper> {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-raw-helper-'));
  const path = join(dir, 'channel.sock');
  const accepted = createDeferred<Socket>();
  const server = createServer((socket) => accepted.resolve(socket));
  server.listen(path);
  await once(server, 'listening');
  const ours = connect(path);
  await once(ours, 'connect');
  const helper = spawn(nativeHelperBinary(), [], {
    stdio: ['ignore', 'pipe', 'pipe', ours],
    env: helperEnv({ NODE_CHANNEL_FD: '3' }),
  });
  ours.destroy(); // the helper holds its own copy
  const channel = await accepted.promise;

  let out = '';
  let err = '';
  const printedWaiters: { text: string; resolve: () => void }[] = [];
  helper.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const waiter of printedWaiters) if (out.includes(waiter.text)) waiter.resolve();
  });
  helper.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));

  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  let buffered = '';
  channel.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      lines.push(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const arrival = (what: string): Promise<void> => {
    const arrived = createDeferred<void>();
    waiters.push(() => arrived.resolve());
    return within(arrived.promise, HELPER_WAIT_MS, `${what} (stderr: ${err})`);
  };
  let taken = 0;

  return {
    process: helper,
    lines,
    stdout: () => out,
    stderr: () => err,
    send: (message) => channel.write(`${JSON.stringify(message)}\n`),
    sendRaw: (text) => channel.write(text),
    async next() {
      while (lines.length <= taken) await arrival('a reply');
      const line = lines[taken]!;
      taken += 1;
      return JSON.parse(line) as Record<string, unknown>;
    },
    async waitFor(what, match) {
      for (let seen = 0; ;) {
        const found = lines.slice(seen).find(match);
        if (found !== undefined) return found;
        seen = lines.length;
        await arrival(what);
      }
    },
    printed(text) {
      if (out.includes(text)) return Promise.resolve();
      const seen = createDeferred<void>();
      printedWaiters.push({ text, resolve: () => seen.resolve() });
      return within(
        seen.promise,
        HELPER_WAIT_MS,
        `${JSON.stringify(text)} printed (so far: ${out})`,
      );
    },
    async close() {
      channel.destroy();
      if (helper.exitCode === null && helper.signalCode === null) await once(helper, 'exit');
      server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
