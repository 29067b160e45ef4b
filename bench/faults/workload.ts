// The jobs every node of a fault run executes (docs/clustering.md "Guarantees and trade-offs"):
// one Leader, one PreferLeader and one EveryNode job every second, a Leader job whose first
// attempt fails and is retried durably, a run-once and a run-all onMissed catch-up job (checked
// after the full outage), a Leader @reboot one-shot, and an EveryNode job under a cluster
// concurrency slot (Forbid, concurrencyScope cluster). Each appends `<slot> <node> <job>` to the
// shared witness file, where <slot> is the scheduled second (YACRON2_SCHEDULED_AT, docs/job-state.md),
// not the second the process ran in: a late firing of a slot is not a double, and a node whose
// clock is skewed still names the slot it ran.
import { shellQuote } from '../../test/e2e/harness.js';

/** Seconds between the slots of the retry, catch-up and cluster-slot jobs. */
export const SPARSE_EVERY_S = 5;
/** How long a run of the cluster-slot job lasts. */
export const SLOT_RUN_S = 2;

const SLOT = '$(date -d "$YACRON2_SCHEDULED_AT" +%s)';

function job(name: string, policy: string, schedule: string, command: string, extra = ''): string {
  return (
    `  - name: ${name}\n` +
    `    command: ${JSON.stringify(command)}\n` +
    `    schedule: "${schedule}"\n` +
    `    clusterPolicy: ${policy}\n` +
    `    captureStderr: false\n` +
    extra
  );
}

/** The jobs section's items (YAML list entries) for a witness file at `witness`. */
export function workloadJobs(witness: string): string {
  const append = (tag: string): string =>
    `echo "${SLOT} $YC_NODE ${tag}" >> ${shellQuote(witness)}`;
  const sparse = `*/${SPARSE_EVERY_S} * * * * * *`;
  return (
    job('lead', 'Leader', '* * * * * * *', append('lead')) +
    job('prefer', 'PreferLeader', '* * * * * * *', append('prefer')) +
    job('every', 'EveryNode', '* * * * * * *', append('every')) +
    // Attempt 0 fails, attempt 1 succeeds: a slot with `retry0` and no retry line before the
    // next slot lost its retry. A retry has no YACRON2_SCHEDULED_AT: it writes its wall second.
    job(
      'retry',
      'Leader',
      sparse,
      `if [ "$YACRON2_ATTEMPT" = 0 ]; then ${append('retry0')}; exit 1; fi; ` +
        `echo "$(date +%s) $YC_NODE retry$YACRON2_ATTEMPT" >> ${shellQuote(witness)}`,
      `    onFailure:\n      retry:\n        maximumRetries: 3\n        initialDelay: 1\n` +
        `        maximumDelay: 1\n        backoffMultiplier: 1\n`,
    ) +
    // The catch-up jobs add the wall second they ran in: a catch-up runs its slot late.
    job('once', 'Leader', sparse, append('once $(date +%s)'), `    onMissed: run-once\n`) +
    job('all', 'Leader', sparse, append('all $(date +%s)'), `    onMissed: run-all\n`) +
    job('boot', 'Leader', '@reboot', `echo "$(date +%s) $YC_NODE boot" >> ${shellQuote(witness)}`) +
    // One run at a time across the store (docs/durable-state.md "Cluster concurrency slots"):
    // every node fires it, the slot's lease lets one run; start and end carry milliseconds, so
    // the checker can find two runs that overlapped.
    job(
      'slot',
      'EveryNode',
      sparse,
      `${append('slot-start $(date +%s%3N)')}; sleep ${SLOT_RUN_S}; ${append('slot-end $(date +%s%3N)')}`,
      `    concurrencyPolicy: Forbid\n    concurrencyScope: cluster\n`,
    )
  );
}
