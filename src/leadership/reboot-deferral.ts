// @reboot one-shots under election (docs/clustering.md "@reboot under election"): at start-up a
// Leader/PreferLeader @reboot job is held until the cluster resolves an owner, then runs once on
// that owner; EveryNode and non-election @reboot jobs run at once. The pending set outlives
// reloads and backend rebuilds. Must not: drop a pending one-shot because its name is briefly
// absent from a reload, or launch a definition other than the current one.
import { describeError } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import { decideClusterGate } from './gate.js';
import type { ClusterPolicy, LeadershipSource } from './types.js';

/** What the deferral reads of a job in the current config. */
export interface RebootCandidate {
  readonly name: string;
  readonly enabled: boolean;
  readonly isReboot: boolean;
  readonly clusterPolicy: ClusterPolicy;
}

/** A Leader/PreferLeader @reboot job that is enabled: the kind that is deferred. */
export function isDeferrableReboot(job: RebootCandidate | undefined): job is RebootCandidate {
  return job !== undefined && job.enabled && job.isReboot && job.clusterPolicy !== 'EveryNode';
}

export type RebootPassAction =
  | { readonly kind: 'keep' }
  /** `already-ran`: the cluster's ran-set has it; `not-deferrable`: the job changed or went. */
  | { readonly kind: 'drop'; readonly why: 'already-ran' | 'not-deferrable' }
  /** Run now; `markFirst`: record it in the cluster's ran-set before launching. */
  | { readonly kind: 'run'; readonly markFirst: boolean };

const NOT_DEFERRABLE: RebootPassAction = { kind: 'drop', why: 'not-deferrable' };

/** The decision for one pending name on one scheduler pass (pure but for backend reads). */
export function planPendingReboot(
  job: RebootCandidate | undefined,
  source: LeadershipSource,
): RebootPassAction {
  if (!source.electLeaderConfigured()) {
    if (job === undefined) return { kind: 'keep' };
    return job.enabled && job.isReboot ? { kind: 'run', markFirst: false } : NOT_DEFERRABLE;
  }
  if (job === undefined) return { kind: 'keep' };
  if (!isDeferrableReboot(job)) return NOT_DEFERRABLE;
  const backend = source.current();
  if (backend === null) {
    return job.clusterPolicy === 'PreferLeader'
      ? { kind: 'run', markFirst: false }
      : { kind: 'keep' };
  }
  if (backend.rebootRan(job.name)) return { kind: 'drop', why: 'already-ran' };
  const verdict = decideClusterGate(job, 'reboot', true, backend);
  return verdict.kind === 'allow' ? { kind: 'run', markFirst: true } : { kind: 'keep' };
}

/** The pending @reboot one-shots of this process. */
export class DeferredReboots {
  readonly #pending = new Set<string>();
  readonly #source: LeadershipSource;
  readonly #logger: Logger;
  /** The last decision error logged per pending name. */
  readonly #undecided = new Map<string, string>();

  constructor(source: LeadershipSource, logger: Logger) {
    this.#source = source;
    this.#logger = logger;
  }

  get pending(): ReadonlySet<string> {
    return this.#pending;
  }

  /**
   * The start-up pass: defer the deferrable @reboot jobs (when election is configured) and return
   * the ones to run at once (EveryNode, or no election).
   */
  deferAtStartup<J extends RebootCandidate>(jobs: readonly J[]): J[] {
    const runNow: J[] = [];
    for (const job of jobs) {
      if (!job.enabled || !job.isReboot) continue;
      if (this.#source.electLeaderConfigured() && isDeferrableReboot(job)) {
        this.#pending.add(job.name);
        this.#logger.info(
          `cluster: deferring @reboot job ${job.name} until the cluster elects an owner`,
        );
      } else {
        runNow.push(job);
      }
    }
    return runNow;
  }

  /**
   * One scheduler pass: decide every pending name against the current config (`lookup`), and
   * launch the ones this node now owns, after recording them in the cluster's ran-set.
   */
  async pass<J extends RebootCandidate>(
    lookup: (name: string) => J | undefined,
    launch: (job: J) => void,
  ): Promise<void> {
    for (const name of [...this.#pending]) {
      const job = lookup(name);
      let action: RebootPassAction;
      try {
        action = planPendingReboot(job, this.#source);
      } catch (error) {
        // Logged once per cause, not every pass (a lease holder waiting for its store read).
        const message = `cluster: cannot decide deferred @reboot job ${name}; keeping it pending: ${describeError(error)}`;
        if (this.#undecided.get(name) === message) this.#logger.debug(message);
        else this.#logger.error(message);
        this.#undecided.set(name, message);
        continue;
      }
      this.#undecided.delete(name);
      if (action.kind === 'keep') continue;
      this.#pending.delete(name);
      if (action.kind === 'drop' || job === undefined) {
        if (action.kind === 'drop' && action.why === 'already-ran') {
          this.#logger.info(
            `cluster: deferred @reboot job ${name} already ran in the cluster; standing down here`,
          );
        }
        continue;
      }
      if (action.markFirst) {
        this.#logger.info(
          `cluster: running deferred @reboot job ${name} (this node is the elected owner)`,
        );
        try {
          await this.#source.current()?.markRebootRan(name);
        } catch (error) {
          // The record is best-effort gossip; this node owns the one-shot, so it still runs it.
          this.#logger.warn(
            `cluster: cannot record deferred @reboot job ${name} as ran: ${describeError(error)}`,
          );
        }
      } else if (this.#source.electLeaderConfigured()) {
        this.#logger.info(
          `cluster: running deferred @reboot job ${name} (no leadership manager; never-skip semantics)`,
        );
      }
      launch(job);
    }
  }
}
