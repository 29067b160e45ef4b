// The cluster as the scheduler sees it (docs/clustering.md "The scheduler's interface"): gate 2
// (`LeadershipGate`) answered by the ClusterGate, and the `ClusterPort` — the pass hook, the
// due-retry decision, and the @reboot one-shots DeferredReboots holds. Values in, values out; the
// scheduler keeps the timers and the launches.
// Must not: gate manual starts, or drop a held one-shot the deferral keeps.
import type { ResolvedJob } from '../config/index.js';
import type {
  ClusterPort,
  GateResult,
  LeadershipGate,
  RetryGateResult,
} from '../scheduler/index.js';
import type { ClusterGate } from './gate.js';
import type { DeferredReboots, RebootCandidate } from './reboot-deferral.js';
import type { ClusterVerdict } from './types.js';

export interface SchedulerSeamParts {
  readonly gate: ClusterGate;
  readonly deferrals: DeferredReboots;
  /** The start of every scheduler pass (the supervisor's transition logs). */
  onPass(): void;
}

export interface SchedulerSeams {
  readonly gate: LeadershipGate;
  readonly cluster: ClusterPort;
}

const RUN: GateResult = { kind: 'run' };

/** A refusal's detail: `<reason>: <detail>`. */
export function denialDetail(verdict: ClusterVerdict & { readonly kind: 'deny' }): string {
  return `${verdict.reason}: ${verdict.detail}`;
}

export function schedulerSeams(parts: SchedulerSeamParts): SchedulerSeams {
  const { gate, deferrals } = parts;
  return {
    gate: ({ job, trigger }) => {
      const verdict = gate.verdict(job, trigger);
      return verdict.kind === 'allow'
        ? RUN
        : { kind: 'skip', reason: 'cluster', detail: denialDetail(verdict) };
    },
    cluster: {
      onPass: () => parts.onPass(),
      retryDecision(job): RetryGateResult {
        const decision = gate.retryDecision(job);
        switch (decision.kind) {
          case 'launch':
            return decision;
          case 'defer':
          case 'abandon':
            return { kind: decision.kind, detail: denialDetail(decision.verdict) };
        }
      },
      holdReboots(jobs) {
        // The ones it returns (EveryNode, no election) are the ones not held: the scheduler runs
        // every @reboot job it does not hear back as held.
        deferrals.deferAtStartup(jobs.map(rebootCandidate));
        return new Set(jobs.map((job) => job.name).filter((name) => deferrals.pending.has(name)));
      },
      hasHeldReboots: () => deferrals.pending.size > 0,
      rebootHeld: (name) => deferrals.pending.has(name),
      releaseReboots: (lookup, launch) =>
        deferrals.pass(
          (name) => {
            const job = lookup(name);
            return job === undefined ? undefined : rebootCandidate(job);
          },
          (candidate) => launch(candidate.job),
        ),
    },
  };
}

/** A job as the deferral reads it, carrying the job itself for the launch. */
function rebootCandidate(job: ResolvedJob): RebootCandidate & { readonly job: ResolvedJob } {
  return {
    name: job.name,
    enabled: job.enabled,
    isReboot: job.schedule.kind === 'reboot',
    clusterPolicy: job.clusterPolicy,
    job,
  };
}
