// Runs every test file (src/**/*.test.ts, test/**/*.test.ts) through node's test runner with
// tsx. Node 20's --test does not expand globs, so the files are listed here.
// Usage: node scripts/test.mjs [path-prefix ...]   (e.g. `npm test -- src/schedule`)
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const roots = ['src', 'test'];
const filters = process.argv.slice(2);
const files = roots
  .flatMap((root) =>
    readdirSync(root, { recursive: true }).map((entry) => join(root, String(entry))),
  )
  .filter((file) => file.endsWith('.test.ts'))
  .filter((file) => filters.length === 0 || filters.some((prefix) => file.startsWith(prefix)))
  .sort();

if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
