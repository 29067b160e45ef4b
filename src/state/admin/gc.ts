// `yacron2 state gc [--dry-run]`: one GC pass with the daemon's rules (gc-plan.ts), printing what
// was (or would be) removed and why, what was kept, and the blob sweep's result or skip reason.
import { YacronError } from '../../common/index.js';
import { formatDuration } from '../gc-plan.js';
import { runGcPass, type GcReport } from '../gc-run.js';
import type { AdminContext } from './context.js';

/** Returns false when the pass had errors (the action then exits 1). */
export async function gcStore(ctx: AdminContext, options: { dryRun: boolean }): Promise<boolean> {
  const graceMs = ctx.state.gcGraceMs;
  if (graceMs === null) {
    throw new YacronError(
      'YC_ERR_STATE_ADMIN_FAILED',
      'garbage collection is disabled (state.gcGraceSeconds <= 0)',
    );
  }
  const store = await ctx.openStore();
  let report: GcReport;
  try {
    report = await runGcPass(store, { nowMs: ctx.clock.now(), graceMs, dryRun: options.dryRun });
  } finally {
    await store.close();
  }
  printGcReport(ctx.print, report, graceMs);
  return report.errors.length === 0;
}

export function printGcReport(print: (line: string) => void, report: GcReport, graceMs: number) {
  if (report.status === 'deferred') {
    print(`state: gc deferred: ${report.deferredReason ?? ''}`);
    return;
  }
  const dry = report.status === 'dry-run';
  const count = (target: string): number =>
    report.removed.filter((action) => action.target === target).length;
  print(
    `state: gc ${dry ? 'would remove' : 'removed'} ${report.removed.length} ` +
      `(streams ${count('stream')}, documents ${count('doc')}, leases ${count('lease')}, blobs ${count('blob')}), ` +
      `kept ${report.kept} (grace ${formatDuration(graceMs)})`,
  );
  if (report.blobSweepSkipped === null) {
    print(
      `state: blob sweep: ${dry ? 'would remove' : 'removed'} ${count('blob')} orphaned blob(s)`,
    );
  } else {
    print(`state: blob sweep skipped: ${report.blobSweepSkipped}`);
  }
  if (report.sweep !== null) {
    const { tempFiles, quarantined, orphanLocks } = report.sweep;
    print(
      `state: swept ${tempFiles} temp file(s), ${quarantined} quarantined file(s), ${orphanLocks} orphaned lock file(s)`,
    );
  }
  for (const action of report.removed) {
    print(
      `state: ${dry ? 'would remove' : 'removed'} ${action.target} ${action.name}: ${action.reason}`,
    );
  }
  for (const { action, why } of report.skipped) {
    print(`state: kept ${action.target} ${action.name}: ${why}`);
  }
  for (const error of report.errors) print(`state: error: ${error}`);
}
