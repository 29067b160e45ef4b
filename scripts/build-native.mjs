// Builds the native spawn helper, native/spawn-helper.c → dist/native/yacron2-spawn-helper
// (docs/performance.md "The spawn path"). Without a C compiler (or off Linux) it says so and
// builds nothing: the daemon then uses the Node spawn helper, which speaks the same messages.
// With YACRON2_REQUIRE_NATIVE=1 (CI) a failed build fails the command instead.
// Usage: node scripts/build-native.mjs   (the CC variable names the compiler; default: cc)
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const source = join(root, 'native', 'spawn-helper.c');
const outDir = join(root, 'dist', 'native');
const target = join(outDir, 'yacron2-spawn-helper');
const required = process.env.YACRON2_REQUIRE_NATIVE === '1';
const compiler = process.env.CC || 'cc';
const flags = ['-std=c11', '-O2', '-Wall', '-Wextra', '-Wpedantic', '-Werror'];

function skip(reason) {
  rmSync(target, { force: true });
  if (required) {
    console.error(`build-native: ${reason}`);
    process.exit(1);
  }
  console.warn(`build-native: ${reason}; the daemon will use the Node spawn helper`);
}

if (process.platform !== 'linux') {
  skip(`the native spawn helper is Linux-only (this is ${process.platform})`);
} else {
  mkdirSync(outDir, { recursive: true });
  const partial = `${target}.partial`;
  try {
    execFileSync(compiler, [...flags, '-o', partial, source], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    renameSync(partial, target);
  } catch (error) {
    rmSync(partial, { force: true });
    skip(`${compiler} could not build ${source}: ${error.message.split('\n')[0]}`);
  }
}
