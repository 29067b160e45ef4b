// Test support: run a runner test suite once per spawn path (in-process child_process, and the
// spawn helper), so both keep the same semantics (docs/performance.md "The spawn path"). The
// suite's tests build their runners with `spawner: currentSpawner()`.
import * as assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { silentLogger, systemClock } from '../common/index.js';
import { SpawnHelper } from './spawn-helper.js';
import { inProcessSpawner, type SpawnPath, type Spawner } from './spawner.js';

export const SPAWN_PATHS: readonly SpawnPath[] = ['in-process', 'helper'];

let current: Spawner = inProcessSpawner;

/** The spawner of the suite now running. */
export function currentSpawner(): Spawner {
  return current;
}

/** Starts a spawn helper for a test; fails the test when it cannot start. */
export async function startTestHelper(): Promise<SpawnHelper> {
  const helper = await SpawnHelper.start({
    clock: systemClock,
    logger: silentLogger(),
    env: process.env,
  });
  assert.ok(helper, 'the spawn helper started');
  return helper;
}

/** `body` (its tests) once per spawn path, each in a suite named after it. */
export function describeForEachSpawnPath(title: string, body: () => void): void {
  for (const path of SPAWN_PATHS) {
    void describe(`${title} [${path} spawn]`, () => {
      let helper: SpawnHelper | null = null;
      before(async () => {
        if (path === 'helper') helper = await startTestHelper();
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
