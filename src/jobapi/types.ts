// The job API's contract with the daemon (docs/job-state.md, docs/http-api.md "The job API"): the
// daemon starts it beside the state store, asks it for each run's YACRON2_* variables just
// before the spawn, and tells it when the run ended. Types only.
import type { AsyncDisposableLike } from './disposable.js';
import type { Clock, ConnectionLimits } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type { RunContext, RunEnvironment } from '../scheduler/index.js';
import type { StateStore } from '../state/index.js';
import type { JobApiLimits } from './request-limits.js';

export interface JobApiDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** YACRON2_HOST: the node's host identity. */
  readonly host: string;
  /** The daemon's per-process token (12 lower-case hex): lock holders are `<host>#<token>#…`. */
  readonly processToken: string;
  /** The state service's (metered, rate-limited) store; it may still be opening. */
  readonly store: StateStore;
  /** Resolves true once the store is open, false when it was closed first. Never rejects. */
  readonly storeOpened: Promise<boolean>;
  /** The daemon's environment: `fromEnvVar` secrets resolve against it at each launch. */
  readonly env: NodeJS.ProcessEnv;
  /** Overrides of the request limits (tests); DEFAULT_JOB_API_LIMITS otherwise. */
  readonly limits?: Partial<JobApiLimits>;
  /** Where the private upload directory is made; the system temp directory by default. */
  readonly tempDir?: string;
  /** The server's socket limits (tests); JOB_API_CONNECTION_LIMITS otherwise. */
  readonly connectionLimits?: ConnectionLimits;
}

export interface JobApi extends AsyncDisposableLike {
  /** `http://<bound host>:<bound port>` (YACRON2_STATE_URL). */
  readonly url: string;
  /**
   * The run is about to spawn: mint its token, stage its secrets, and return the variables of
   * docs/job-state.md "The injected environment" (YACRON2_STATE_URL, _STATE_TOKEN, _RUN_ID,
   * _JOB_NAME, _ATTEMPT, _SCHEDULED_AT, _HOST) with the values the run's output must not show
   * (the token; the staged secrets once resolved). Synchronous: it runs on the launch path.
   * Undefined once closed.
   */
  runEnvironment(run: RunContext): RunEnvironment | undefined;
  /**
   * The values of the secrets staged for a live run (ask before it ends): output archival scrubs
   * them, so a job that prints its own secret never lands it in the store.
   */
  secretValues(runId: string): Promise<readonly string[]>;
  /** The run ended (or never spawned): revoke its token, drop its secrets, release its locks. */
  runEnded(runId: string): void;
  /** Stop serving: every token is revoked and every held lock released. Idempotent. */
  close(): Promise<void>;
}
