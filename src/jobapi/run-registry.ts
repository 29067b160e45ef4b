// The live runs the job API serves (docs/http-api.md "The job API"): a fresh 64-hex bearer token
// per run, its staged secrets, and an `ended` signal. A token is valid from runEnvironment() until
// end(): after that the run is forgotten and its secrets dropped. Must not: touch the store.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RunContext } from '../scheduler/index.js';

export interface LiveRun {
  readonly context: RunContext;
  /** 64 lower-case hex characters. */
  readonly token: string;
  /** The job name (the default scope, docs/job-state.md "Scopes"), or a DAG task's XCom scope. */
  readonly defaultScope: string;
  /** Aborted the moment the run ends (or the API closes). */
  readonly ended: AbortSignal;
  /** The staged secrets; empty once the run has ended. */
  secrets(): Promise<ReadonlyMap<string, string>>;
}

interface Entry extends LiveRun {
  readonly tokenDigest: string;
  readonly controller: AbortController;
  staged: Promise<Map<string, string>> | null;
}

const TOKEN_SHAPE = /^[0-9a-f]{64}$/;

function digestOf(token: string): string {
  return createHash('sha256').update(token, 'latin1').digest('hex');
}

export class RunRegistry {
  readonly #byDigest = new Map<string, Entry>();
  readonly #byRunId = new Map<string, Entry>();

  /** Mint a token for `context` (a run id seen before is re-registered, its old token revoked). */
  register(context: RunContext, staged: Promise<Map<string, string>>): LiveRun {
    this.end(context.runId);
    const token = randomBytes(32).toString('hex');
    const controller = new AbortController();
    const entry: Entry = {
      context,
      token,
      tokenDigest: digestOf(token),
      defaultScope: context.defaultScope ?? context.job.name,
      controller,
      ended: controller.signal,
      staged,
      secrets: async () => (await entry.staged) ?? new Map<string, string>(),
    };
    this.#byDigest.set(entry.tokenDigest, entry);
    this.#byRunId.set(context.runId, entry);
    return entry;
  }

  /**
   * The run an `Authorization` header belongs to: scheme `bearer` in any case, then the token.
   * The map is keyed by the token's digest and the final comparison is constant-time, so the
   * answer's timing says nothing about how much of a guess was right.
   */
  authenticate(authorization: string | undefined): LiveRun | undefined {
    if (authorization === undefined) return undefined;
    const space = authorization.indexOf(' ');
    if (space === -1 || authorization.slice(0, space).toLowerCase() !== 'bearer') return undefined;
    const token = authorization.slice(space + 1);
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const entry = this.#byDigest.get(digestOf(token));
    if (entry === undefined) return undefined;
    return timingSafeEqual(Buffer.from(token, 'latin1'), Buffer.from(entry.token, 'latin1'))
      ? entry
      : undefined;
  }

  /**
   * A copy of the values staged for a live run (empty for an unknown one). Asked before the run
   * ends, the copy is taken before end() empties the staged map: both wait on the same promise
   * and its callbacks run in registration order.
   */
  secretValues(runId: string): Promise<readonly string[]> {
    const staged = this.#byRunId.get(runId)?.staged;
    if (staged === undefined || staged === null) return Promise.resolve([]);
    return staged.then((secrets) => [...secrets.values()]);
  }

  /** Revoke the run's token, drop its secrets and signal `ended`; false for an unknown run. */
  end(runId: string): boolean {
    const entry = this.#byRunId.get(runId);
    if (entry === undefined) return false;
    this.#byRunId.delete(runId);
    this.#byDigest.delete(entry.tokenDigest);
    const staged = entry.staged;
    entry.staged = null;
    // The resolved map may still be referenced by a request in flight: empty it too.
    void staged?.then((secrets) => secrets.clear());
    entry.controller.abort(new Error(`run ${runId} ended`));
    return true;
  }

  /** End every run (close()); returns their run ids. */
  endAll(): string[] {
    const runIds = [...this.#byRunId.keys()];
    for (const runId of runIds) this.end(runId);
    return runIds;
  }

  get size(): number {
    return this.#byRunId.size;
  }
}
