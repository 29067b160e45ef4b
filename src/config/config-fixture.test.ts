// Test helpers (no tests here): write real config files into a temp dir, load them with that
// dir as the working directory, and capture the one config error a broken config must give.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { isYacronError } from '../common/index.js';
import {
  loadConfig,
  type LoadConfigOptions,
  type ResolvedConfig,
  type ResolvedJob,
} from './index.js';

const root = mkdtempSync(path.join(tmpdir(), 'yacron2-config-test-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
let counter = 0;

/** Strip the common indentation and the first newline, so YAML can be written inline. */
export function dedent(text: string): string {
  const lines = text.replace(/^\n/, '').split('\n');
  const indents = lines
    .filter((line) => line.trim() !== '')
    .map((line) => /^ */.exec(line)?.[0].length ?? 0);
  const common = indents.length === 0 ? 0 : Math.min(...indents);
  return lines.map((line) => line.slice(common)).join('\n');
}

export type FileTree = Record<string, string>;

/** A fresh directory holding `files` (paths may contain sub-directories). */
export function writeTree(files: FileTree): string {
  const dir = path.join(root, `case-${++counter}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, dedent(content));
  }
  return dir;
}

export interface LoadCase {
  readonly dir: string;
  readonly config: ResolvedConfig;
}

/** Load `entry` (a file or directory inside the tree) with the tree as working directory. */
export async function loadTree(
  files: FileTree,
  entry = 'jobs.yaml',
  options: LoadConfigOptions = {},
): Promise<LoadCase> {
  const dir = writeTree(files);
  const config = await loadConfig(entry, { cwd: dir, ...options });
  return { dir, config };
}

export async function loadJobs(
  files: FileTree,
  entry = 'jobs.yaml',
  options: LoadConfigOptions = {},
): Promise<readonly ResolvedJob[]> {
  return (await loadTree(files, entry, options)).config.jobs;
}

export async function loadOneJob(
  yamlText: string,
  options: LoadConfigOptions = {},
): Promise<ResolvedJob> {
  const jobs = await loadJobs({ 'jobs.yaml': yamlText }, 'jobs.yaml', options);
  assert.equal(jobs.length, 1);
  return jobs[0]!;
}

/** The message of the one YC_ERR_CONFIG_INVALID the load must throw (never a stack trace). */
export async function expectConfigError(
  files: FileTree,
  entry = 'jobs.yaml',
  options: LoadConfigOptions = {},
): Promise<string> {
  const dir = writeTree(files);
  return expectConfigErrorIn(dir, entry, options);
}

export async function expectConfigErrorIn(
  dir: string,
  entry: string,
  options: LoadConfigOptions = {},
): Promise<string> {
  try {
    await loadConfig(entry, { cwd: dir, ...options });
  } catch (error) {
    assert.ok(isYacronError(error, 'YC_ERR_CONFIG_INVALID'), `unexpected error: ${String(error)}`);
    assert.doesNotMatch(error.message, /\n\s+at /, 'a config error must not carry a stack trace');
    assert.match(error.message, /^Cannot load /);
    return error.message;
  }
  assert.fail('expected the config to be refused');
}

/** A config that holds a single job written as YAML lines under `jobs:`. */
export function singleJob(body: string): string {
  return `jobs:\n  - name: test\n    command: echo hi\n    schedule: "* * * * *"\n${dedent(body)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `    ${line}`)
    .join('\n')}\n`;
}
