// The `state` section's service (the store, its write queue, GC), reconciled with the config.
// Loaded only when a config has one: a stateless daemon never imports the store.
import type { DaemonStateDeps, DaemonStateHandle } from '../state/index.js';
import type { Reconciler } from './reconciler.js';

export type { DaemonStateHandle };

export function stateSectionReconciler(deps: DaemonStateDeps): Reconciler<DaemonStateHandle> {
  return async (current, config) => {
    if (current === undefined && config.state === null) return undefined;
    const { applyDaemonStateSection } = await import('../state/index.js');
    return applyDaemonStateSection(current, config, deps);
  };
}
