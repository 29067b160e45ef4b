// npm's `prepare` step: after `npm install` / `npm ci` in a checkout (and before `npm pack`), build
// what the `yacron2` command needs (dist/, the web page, the native spawn helper), so that
// `npm install && npm link` — or `npm install -g .` after it — gives a working `yacron2`
// (README.md "Using it"). Where the dev dependencies are absent (a production install,
// `npm ci --omit=dev`), or the sources (an image's dependency layer), there is nothing to build:
// it says so and succeeds.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
if (!existsSync(join(root, 'node_modules', 'typescript', 'package.json'))) {
  console.warn('prepare: no dev dependencies here (a production install): nothing to build');
} else if (!existsSync(join(root, 'src', 'index.ts'))) {
  // An image's dependency layer installs before the sources are copied; it builds later.
  console.warn('prepare: no sources here yet: nothing to build');
} else {
  const npm = process.env.npm_execpath;
  if (npm) execFileSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' });
  else execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
}
