// Test support for the multi-process store tests: bundles test/fixtures/state-*.ts programs
// once with esbuild (a fresh `node bundle.mjs` starts in ~0.1 s, where tsx takes ~0.35 s; the
// crash test starts 200 of them), then runs them and waits on their output lines with bounded
// timeouts (never by sleeping). Only tests import this file.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { systemClock } from '../common/index.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Bundle each fixture (test/fixtures/<name>.ts) into `outDir`; returns name → bundle path. */
export async function bundleFixtures(
  names: readonly string[],
  outDir: string,
): Promise<Record<string, string>> {
  const require = createRequire(import.meta.url);
  const nativePath = require.resolve('fs-ext');
  const bundles: Record<string, string> = {};
  await Promise.all(
    names.map(async (name) => {
      const outfile = path.join(outDir, `${name}.mjs`);
      await build({
        entryPoints: [path.join(REPO_ROOT, 'test', 'fixtures', `${name}.ts`)],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        outfile,
        logLevel: 'warning',
        external: ['pino'],
        // The native addon loads its built binary relative to itself, and flock.ts resolves
        // it for its helper thread from import.meta.url: keep both pointing into the repo.
        define: {
          'import.meta.url': JSON.stringify(
            pathToFileURL(path.join(REPO_ROOT, 'src', 'state', 'flock.ts')).href,
          ),
        },
        plugins: [
          {
            name: 'native-addon-external',
            setup(builder) {
              builder.onResolve({ filter: /^fs-ext$/ }, () => ({
                path: nativePath,
                external: true,
              }));
            },
          },
        ],
      });
      bundles[name] = outfile;
    }),
  );
  return bundles;
}

export interface FixtureExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class FixtureProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  readonly exited: Promise<FixtureExit>;
  #stderr = '';
  #partial = '';
  #waiters: (() => void)[] = [];

  constructor(bundle: string, args: readonly string[]) {
    this.child = spawn(process.execPath, [bundle, ...args], { stdio: 'pipe' });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (this.#partial + chunk).split('\n');
      this.#partial = parts.pop() ?? '';
      this.lines.push(...parts);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.#stderr += chunk));
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        for (const wake of this.#waiters.splice(0)) wake();
        resolve({ code, signal });
      });
    });
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** The first output line matching `predicate`, waiting at most `timeoutMs`. */
  async waitForLine(predicate: (line: string) => boolean, timeoutMs = 10_000): Promise<string> {
    const deadline = systemClock.monotonic() + timeoutMs;
    for (;;) {
      const found = this.lines.find(predicate);
      if (found !== undefined) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`fixture exited before the line came; stderr: ${this.#stderr}`);
      }
      const remaining = deadline - systemClock.monotonic();
      if (remaining <= 0) {
        throw new Error(`no matching fixture line within ${timeoutMs} ms; stderr: ${this.#stderr}`);
      }
      await new Promise<void>((resolve) => {
        const timer = systemClock.setTimer(resolve, remaining);
        this.#waiters.push(() => {
          timer.cancel();
          resolve();
        });
      });
    }
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Kill with SIGKILL and wait for the process to be gone. */
  async kill(): Promise<FixtureExit> {
    this.child.kill('SIGKILL');
    return this.exited;
  }
}

export function startFixture(bundle: string, args: readonly string[]): FixtureProcess {
  return new FixtureProcess(bundle, args);
}

/** Wait for `promise` at most `timeoutMs` (a bound for tests, never a sleep). */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: { cancel(): void } | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = systemClock.setTimer(
      () => reject(new Error(`${what}: no result within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    timer?.cancel();
  }
}
