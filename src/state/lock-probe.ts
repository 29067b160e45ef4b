// The store's lock-fidelity probe (docs/clustering.md "Filesystem", docs/durable-state.md "Cluster
// concurrency slots"): before electing over a directory, or fencing cluster slots in it, prove
// that flock(2) on it excludes across processes. One child process takes
// an exclusive flock on `tmp/lock-probe-<instance>`, a second tries a non-blocking one on the same
// file and must be refused. Two processes, not two descriptors of ours: on NFS Linux emulates
// flock with per-process POSIX locks, so only a cross-process probe tells the truth there.
// Must not: load fs-ext into this process (flock-helper.ts owns the one copy), or outlive its bound.
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { YacronError, describeError, type Clock } from '../common/index.js';

const HOLDER = `
const fs = require('node:fs');
const { flockSync } = require(process.argv[1]);
const fd = fs.openSync(process.argv[2], 'a+', 0o600);
try { flockSync(fd, 'exnb'); } catch (e) { process.stdout.write('busy\\n'); process.exit(2); }
process.stdout.write('locked\\n');
process.stdin.on('data', () => {});
process.stdin.on('end', () => process.exit(0));
`;

const TESTER = `
const fs = require('node:fs');
const { flockSync } = require(process.argv[1]);
const fd = fs.openSync(process.argv[2], 'a+', 0o600);
try { flockSync(fd, 'exnb'); } catch (e) {
  if (e && (e.code === 'EAGAIN' || e.code === 'EWOULDBLOCK')) { process.stdout.write('excluded\\n'); process.exit(0); }
  process.stdout.write('error ' + (e && e.code) + '\\n'); process.exit(3);
}
process.stdout.write('acquired\\n');
process.exit(1);
`;

/**
 * Resolves when flock excludes across processes on `root`; rejects with YC_ERR_STATE_UNSAFE when
 * it does not, with YC_ERR_STATE_IO when the probe could not tell.
 */
export async function probeLockFidelity(
  root: string,
  instance: string,
  timeoutMs: number,
  clock: Clock,
): Promise<void> {
  const file = path.join(root, 'tmp', `lock-probe-${instance}`);
  const modulePath = createRequire(import.meta.url).resolve('fs-ext');
  const children: ChildProcess[] = [];
  const timer = clock.setTimer(() => {
    for (const child of children) child.kill('SIGKILL');
  }, timeoutMs);
  try {
    const holder = spawn(process.execPath, ['-e', HOLDER, modulePath, file], { stdio: 'pipe' });
    children.push(holder);
    const held = await firstLine(holder);
    if (held !== 'locked') throw new Error(`the probe could not take the lock (${held})`);
    const tester = spawn(process.execPath, ['-e', TESTER, modulePath, file], { stdio: 'pipe' });
    children.push(tester);
    const verdict = await firstLine(tester);
    holder.stdin.end();
    if (verdict === 'acquired') {
      throw new Error('flock(2) does not exclude across processes on this filesystem');
    }
    if (verdict !== 'excluded') throw new Error(`the probe failed (${verdict})`);
    await exited(holder);
  } catch (error) {
    // The verdict "does not exclude" is UNSAFE; a probe that could not tell (a timeout, a spawn
    // failure) is an I/O error a caller may retry.
    const definitive = describeError(error).includes('flock(2)');
    throw new YacronError(
      definitive ? 'YC_ERR_STATE_UNSAFE' : 'YC_ERR_STATE_IO',
      definitive ? describeError(error) : `lock probe: ${describeError(error)}`,
    );
  } finally {
    timer.cancel();
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await rm(file, { force: true }).catch(() => undefined);
  }
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end >= 0) resolve(text.slice(0, end));
    });
    child.on('error', (error) => resolve(`spawn failed: ${error.message}`));
    child.on('exit', (code, signal) => resolve(text.trim() || `exited ${signal ?? code}`));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => child.on('exit', () => resolve()));
}
