// Test support: run a runner test suite once per spawn path (in-process child_process, the native
// spawn helper and the Node one), so all keep the same semantics (docs/performance.md "The spawn
// path"). The suite's tests build their runners with `spawner: currentSpawner()`.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe } from 'node:test';
import { systemClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import {
  nativeHelperPath,
  nativeHelperProgram,
  nodeHelperProgram,
  SpawnHelper,
  type HelperProgram,
} from './spawn-helper.js';
import { inProcessSpawner, type Spawner } from './spawner.js';

export type HelperKind = HelperProgram['kind'];
export const HELPER_KINDS: readonly HelperKind[] = ['native', 'node'];
type TestPath = 'in-process' | HelperKind;
const TEST_PATHS: readonly TestPath[] = ['in-process', ...HELPER_KINDS];

let current: Spawner = inProcessSpawner;

/** The spawner of the suite now running. */
export function currentSpawner(): Spawner {
  return current;
}

/**
 * The binary the native suites run: the build's, or YACRON2_TEST_NATIVE_HELPER (CI points it at
 * a build under AddressSanitizer and UndefinedBehaviorSanitizer, docs/performance.md "The spawn
 * path").
 */
const NATIVE_OVERRIDE = 'YACRON2_TEST_NATIVE_HELPER';

/** The one program of a helper kind (the native binary must have been built: `npm run build`). */
export function helperProgram(kind: HelperKind): HelperProgram {
  if (kind === 'node') return nodeHelperProgram();
  const path = process.env[NATIVE_OVERRIDE] || nativeHelperPath();
  assert.ok(existsSync(path), `the native spawn helper is built (npm run build): ${path}`);
  return nativeHelperProgram(path);
}

/** Starts a spawn helper of `kind` for a test; fails the test when it cannot start. */
export async function startTestHelper(kind: HelperKind = 'native'): Promise<SpawnHelper> {
  const helper = await SpawnHelper.start({
    clock: systemClock,
    logger: silentLogger(),
    env: process.env,
    programs: [helperProgram(kind)],
  });
  assert.ok(helper, `the ${kind} spawn helper started`);
  assert.equal(helper.program, kind);
  return helper;
}

/** `body` (its tests) once per spawn path, each in a suite named after it. */
export function describeForEachSpawnPath(title: string, body: () => void): void {
  for (const path of TEST_PATHS) {
    const name = path === 'in-process' ? 'in-process spawn' : `${path} spawn helper`;
    void describe(`${title} [${name}]`, () => {
      let helper: SpawnHelper | null = null;
      before(async () => {
        if (path !== 'in-process') helper = await startTestHelper(path);
        current = helper ?? inProcessSpawner;
      });
      after(async () => {
        current = inProcessSpawner;
        await helper?.close();
      });
      body();
    });
  }
}
