// The parent side of the worker protocol (run.ts only): transpile bench/ to plain JavaScript in a
// temp dir once, then run each case in a fresh `node` process and collect its samples.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { SAMPLE_MARKER } from './worker-io.js';

export type Sample = Readonly<Record<string, unknown>>;

/**
 * Transpiles every bench/{lib,cases}/*.ts file into `outDir` (same layout, ESM `.js`). Type-only
 * imports of src/ vanish; workers load dist/ at run time, so nothing else needs compiling.
 */
export function transpileWorkers(benchDir: string, outDir: string): void {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'package.json'), '{ "type": "module" }\n');
  for (const folder of ['lib', 'cases']) {
    mkdirSync(path.join(outDir, folder), { recursive: true });
    for (const entry of readdirSync(path.join(benchDir, folder))) {
      if (!entry.endsWith('.ts')) continue;
      const source = readFileSync(path.join(benchDir, folder, entry), 'utf8');
      const output = ts.transpileModule(source, {
        fileName: entry,
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2023,
          verbatimModuleSyntax: true,
        },
      });
      writeFileSync(path.join(outDir, folder, entry.replace(/\.ts$/, '.js')), output.outputText);
    }
  }
}

export interface WorkerOptions {
  /** Transpiled bench dir (from transpileWorkers). */
  readonly outDir: string;
  /** The checkout under test (its dist/ and bin/). */
  readonly repoRoot: string;
  /** e.g. 'cases/memory.js'. */
  readonly script: string;
  readonly args?: readonly string[];
  readonly nodeFlags?: readonly string[];
  /** Kill the worker (SIGKILL on its process group) after this long. */
  readonly timeoutMs: number;
}

export class WorkerFailedError extends Error {
  override readonly name = 'WorkerFailedError';
}

/**
 * Runs one worker in a fresh process and resolves with its samples; rejects with the tail of its
 * stderr when it fails or outlives its timeout (then it is SIGKILLed).
 */
export function runWorker(options: WorkerOptions): Promise<Sample[]> {
  const script = path.join(options.outDir, options.script);
  const child = spawn(
    process.execPath,
    [...(options.nodeFlags ?? []), script, ...(options.args ?? [])],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, YACRON2_BENCH_ROOT: options.repoRoot },
    },
  );
  const samples: Sample[] = [];
  let pending = '';
  let stderrTail = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.startsWith(SAMPLE_MARKER)) {
        samples.push(JSON.parse(line.slice(SAMPLE_MARKER.length)) as Sample);
      } else if (line.trim() !== '') {
        process.stderr.write(`[${options.script}] ${line}\n`);
      }
      newline = pending.indexOf('\n');
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    process.stderr.write(chunk);
    stderrTail = (stderrTail + chunk).slice(-2000);
  });
  return new Promise<Sample[]>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) {
        reject(new WorkerFailedError(`${options.script} timed out after ${options.timeoutMs} ms`));
      } else if (code !== 0) {
        const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
        const tail = stderrTail.trim().split('\n').slice(-3).join(' | ');
        reject(new WorkerFailedError(`${options.script} failed (${how}): ${tail}`));
      } else {
        resolve(samples);
      }
    });
  });
}
