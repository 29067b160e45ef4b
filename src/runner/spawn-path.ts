// Which spawn path the daemon takes (docs/performance.md "The spawn path"): the spawn helper by
// default (the native one when `npm run build` could compile it, else the Node one), child_process
// in its own process when YACRON2_SPAWN_HELPER=0 is in its environment; `native` or `node` picks
// one helper program (benchmarks, diagnosis). The helper is started at once and boots beside
// whatever the daemon does next (the daemon command starts it before it loads the configuration);
// launches take the in-process path until it is ready, and for good, with one warning line, when
// it never gets so.
// Must not: make the daemon's start-up wait for the helper.
import {
  defaultHelperPrograms,
  nativeHelperProgram,
  nodeHelperProgram,
  SpawnHelper,
  type HelperProgram,
  type SpawnHelperDeps,
} from './spawn-helper.js';
import { inProcessSpawner, type Spawner } from './spawner.js';

/** The variable that turns the spawn helper off ('0') or picks its program ('native', 'node'). */
export const SPAWN_HELPER_ENV = 'YACRON2_SPAWN_HELPER';

export interface DaemonSpawner {
  readonly spawner: Spawner;
  /** Once no run will be launched any more: lets the helper exit; resolves when it has. */
  close(): Promise<void>;
}

/** The helper programs the switch's value asks for (any other value: the default order). */
function programsFor(value: string | undefined): readonly HelperProgram[] {
  if (value === 'native') return [nativeHelperProgram()];
  if (value === 'node') return [nodeHelperProgram()];
  return defaultHelperPrograms();
}

/** `deps.env` is the daemon's environment: it holds the switch and is the helper's own. */
export function startSpawner(deps: SpawnHelperDeps): DaemonSpawner {
  const choice = deps.env[SPAWN_HELPER_ENV];
  if (choice === '0') {
    deps.logger.info(`Jobs are started by the daemon itself (${SPAWN_HELPER_ENV}=0)`);
    return { spawner: inProcessSpawner, close: () => Promise.resolve() };
  }
  const helper = SpawnHelper.launch({ ...deps, programs: deps.programs ?? programsFor(choice) });
  void helper.ready().then((ready) => {
    if (ready && !helper.usable) return; // closed meanwhile (a configuration error)
    if (ready) {
      deps.logger.info(
        `Jobs are started by the ${String(helper.program)} spawn helper (pid ${String(helper.pid)})`,
      );
    } else {
      deps.logger.warn('The spawn helper could not start: jobs are started by the daemon itself');
    }
  });
  return { spawner: helper, close: () => helper.close() };
}
