// What every admin action gets: the store's settings, where its namespace lives, a clock, and
// the one output channel (stdout, docs/cli.md "yacron2 state"). Must not: exit the process.
import { YacronError, type Clock } from '../../common/index.js';
import type { StateStore } from '../types.js';

/** The slice of the resolved `state` section the admin actions read. */
export interface AdminStateSettings {
  readonly path: string;
  readonly deploymentId: string | null;
  readonly gcGraceMs: number | null;
  readonly topology: 'auto' | 'single-node' | 'shared';
}

export interface AdminContext {
  readonly state: AdminStateSettings;
  /** The namespace directory: `<path>/<namespace>`. */
  readonly nsDir: string;
  /** Relative command-line paths resolve against this. */
  readonly cwd: string;
  readonly clock: Clock;
  /** One line of output (a newline is added). */
  readonly print: (line: string) => void;
  /** Open the configured store (the filesystem backend); the caller closes it. */
  readonly openStore: () => Promise<StateStore>;
}

/**
 * An expected refusal (not a crash): its message is printed as is, and the action exits 1. Any
 * other error is printed as `yacron2 state error: <detail>`.
 */
export class AdminRefusal extends YacronError {
  constructor(message: string) {
    super('YC_ERR_STATE_ADMIN_REFUSED', message);
    this.name = 'AdminRefusal';
  }
}
