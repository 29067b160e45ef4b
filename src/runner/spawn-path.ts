// Which spawn path the daemon takes (docs/performance.md "The spawn path"): the spawn helper when
// YACRON2_SPAWN_HELPER=1 is in its environment, else child_process in its own process (the
// default). A helper that cannot start leaves the daemon on the in-process path, with one line.
import type { Clock, Logger } from '../common/index.js';
import { SpawnHelper } from './spawn-helper.js';
import { inProcessSpawner, type Spawner } from './spawner.js';

/** The variable that turns the spawn helper on ('1'). */
export const SPAWN_HELPER_ENV = 'YACRON2_SPAWN_HELPER';

export interface DaemonSpawner {
  readonly spawner: Spawner;
  /** Once no run will be launched any more: lets the helper exit. */
  close(): Promise<void>;
}

export async function startSpawner(deps: {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
}): Promise<DaemonSpawner> {
  if (deps.env[SPAWN_HELPER_ENV] !== '1') {
    return { spawner: inProcessSpawner, close: () => Promise.resolve() };
  }
  const helper = await SpawnHelper.start(deps);
  if (helper === null) {
    deps.logger.warn('The spawn helper could not start: jobs are started by the daemon itself');
    return { spawner: inProcessSpawner, close: () => Promise.resolve() };
  }
  deps.logger.info(`Jobs are started by the spawn helper (pid ${String(helper.pid)})`);
  return { spawner: helper, close: () => helper.close() };
}
