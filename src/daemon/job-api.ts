// The job-facing endpoint (docs/http-api.md, the job API): served whenever a store is configured
// and `state.jobApi.enabled`; restarted when the store or its settings change. Its per-run
// variables reach the scheduler through the run-environment slot (the scheduler's
// RunEnvironmentSource); this reconciler is the slot's only writer. A failed bind is logged and
// jobs run without the YACRON2_STATE_* variables.
// Ordering: at start-up it is bound BEFORE scheduler.start(), so @reboot and first-second runs get
// their variables. On a restart the replacement is bound first and swapped in, then the old one
// closes: no launch in between goes without its variables. A fixed listen port the old API still
// holds cannot be bound twice: then the old one closes first and the bind is tried once more.
import { describeError, type Clock, type Swappable } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { JobApi } from '../jobapi/index.js';
import type { RunEnvironmentHook } from '../scheduler/index.js';
import type { DaemonStateHandle } from '../state/index.js';
import type { Change, Reconciler } from './reconciler.js';

export interface JobApiHandle {
  readonly api: JobApi;
  readonly settingsKey: string;
}

export interface JobApiDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  /** The daemon's per-process token (12 hex, the reference's `proc`): job-API lock holders carry it. */
  readonly processToken: string;
  readonly env: NodeJS.ProcessEnv;
  /** The scheduler's run-environment source. */
  readonly serving: Swappable<RunEnvironmentHook>;
}

export function jobApiReconciler(
  deps: JobApiDeps,
): Reconciler<JobApiHandle, Change<DaemonStateHandle>> {
  return async (current, config, state) => {
    const settings = config.state?.jobApi.enabled ? config.state.jobApi : null;
    const settingsKey = JSON.stringify(settings);
    const handle = state.next;
    if (current !== undefined && handle === state.previous && current.settingsKey === settingsKey) {
      return current;
    }
    let retired = current === undefined;
    const retire = async (): Promise<void> => {
      if (retired) return;
      retired = true;
      deps.serving.swap(null);
      await current?.api.close();
    };
    if (handle === undefined || settings === null) {
      await retire();
      return undefined;
    }
    const { startJobApi } = await import('../jobapi/index.js');
    const start = (): Promise<JobApi> =>
      startJobApi(
        {
          clock: deps.clock,
          logger: deps.logger,
          host: deps.host,
          processToken: deps.processToken,
          store: handle.service.store,
          storeOpened: handle.service.opened,
          env: deps.env,
        },
        settings,
      );
    let api: JobApi;
    try {
      try {
        api = await start();
      } catch (error) {
        if (retired) throw error;
        // The fixed-port swap: the old API holds the port, so it goes first.
        await retire();
        api = await start();
      }
    } catch (error) {
      deps.logger.error(
        `Cannot start the job API: ${describeError(error)}; jobs run without YACRON2_STATE_URL`,
      );
      await retire();
      return undefined;
    }
    const ready = api;
    deps.serving.swap((run) => ready.runEnvironment(run));
    if (!retired) {
      retired = true;
      await current?.api.close();
    }
    return { api, settingsKey };
  };
}
