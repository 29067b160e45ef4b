// The composition the daemon uses: an FsStateStore for the `state` section (or an embedded
// instance for filesystem leadership), metered and rate limited, plus the background write queue
// that durable features write through. Nothing is opened here; the caller opens and closes.
import type { Registry } from 'prom-client';
import type { Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import { FsStateStore, type FsStateStoreOptions } from './fs-store.js';
import { InstrumentedStateStore } from './instrumented-store.js';
import { StateMetrics } from './metrics.js';
import type { TopologyProbeDeps } from './topology.js';
import type { StateStore } from './types.js';
import { StateWriteQueue, type WriteQueueOptions } from './write-queue.js';

export interface StateStoreSettings extends FsStateStoreOptions {
  /** state.maxOpsPerSecond; 0 = unlimited. */
  readonly maxOpsPerSecond?: number;
  readonly writeQueue?: WriteQueueOptions;
}

export interface StateStoreDeps extends TopologyProbeDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where the yacron2_state_* families go; omitted = not exported (never the global registry). */
  readonly registry?: Registry;
}

export interface StateStoreBundle {
  /** The metered, rate-limited store. open() it before use; close() it last. */
  readonly store: StateStore;
  /** Fire-and-forget durable writes; close() it before closing the store. */
  readonly writes: StateWriteQueue;
  readonly metrics: StateMetrics | undefined;
  /** The unwrapped filesystem store (root, resolved topology). */
  readonly fs: FsStateStore;
}

export function createStateStore(
  settings: StateStoreSettings,
  deps: StateStoreDeps,
): StateStoreBundle {
  const metrics = deps.registry ? new StateMetrics(deps.registry) : undefined;
  const fs = new FsStateStore(settings, {
    clock: deps.clock,
    logger: deps.logger,
    ...(metrics && { metrics }),
    ...(deps.readMounts && { readMounts: deps.readMounts }),
    ...(deps.realPath && { realPath: deps.realPath }),
  });
  const store = new InstrumentedStateStore(
    fs,
    { maxOpsPerSecond: settings.maxOpsPerSecond ?? 0 },
    {
      clock: deps.clock,
      ...(metrics && { metrics, onOpened: () => metrics.setInfo('filesystem', fs.topology) }),
    },
  );
  const writes = new StateWriteQueue(
    { logger: deps.logger, monotonicMs: () => deps.clock.monotonic(), ...(metrics && { metrics }) },
    settings.writeQueue,
  );
  return { store, writes, metrics, fs };
}
