// The one shape every reloadable part of the daemon has: given what serves now, the next
// configuration and the parts it depends on (already reconciled), return what serves next.
// The daemon's parts table (daemon-parts.ts) calls them in the order its after-edges give, at
// start-up (current = undefined) and on every reload; a reconciler that builds a new part retires
// the old one itself, in whatever order its own seam needs (see each reconciler's header).
import type { ResolvedConfig } from '../config/index.js';

export type Reconciler<T, Upstream = undefined> = (
  current: T | undefined,
  config: ResolvedConfig,
  upstream: Upstream,
) => Promise<T | undefined>;

/** A reconciled part whose predecessor some later reconciler still has to compare against. */
export interface Change<T> {
  readonly previous: T | undefined;
  readonly next: T | undefined;
}
