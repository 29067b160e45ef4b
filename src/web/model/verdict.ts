// The verdict bar (docs/dashboard.md "Verdict bar"): one failing job is named with its exit code
// and reason; several are grouped by (exit code, reason) and, when one group holds at least two
// jobs and half of the failing set, the bar calls it one likely cause. Pure.
import type { JobRow } from './job-status.js';

export interface FailureSignature {
  readonly exitCode: number | null;
  readonly reason: string | null;
}

export interface FailureGroup extends FailureSignature {
  readonly jobs: readonly string[];
}

export type Verdict =
  | { readonly kind: 'clear' }
  | {
      readonly kind: 'single';
      readonly job: string;
      readonly exitCode: number | null;
      readonly reason: string | null;
    }
  | {
      readonly kind: 'correlated';
      readonly failing: number;
      /** The largest group: the likely common cause. */
      readonly group: FailureGroup;
      readonly groups: readonly FailureGroup[];
    }
  | {
      readonly kind: 'independent';
      readonly failing: number;
      readonly groups: readonly FailureGroup[];
    };

/** Groups the failing rows and decides between one cause and independent failures. */
export function computeVerdict(rows: readonly JobRow[]): Verdict {
  const failing = rows.filter((row) => row.status === 'failed');
  if (failing.length === 0) return { kind: 'clear' };
  if (failing.length === 1) {
    const only = failing[0]!;
    return {
      kind: 'single',
      job: only.name,
      exitCode: only.job.last_run?.exit_code ?? null,
      reason: only.job.last_run?.fail_reason ?? null,
    };
  }
  const byKey = new Map<
    string,
    { exitCode: number | null; reason: string | null; jobs: string[] }
  >();
  for (const row of failing) {
    const exitCode = row.job.last_run?.exit_code ?? null;
    const reason = row.job.last_run?.fail_reason ?? null;
    const key = JSON.stringify([exitCode, reason]);
    const group = byKey.get(key) ?? { exitCode, reason, jobs: [] };
    group.jobs.push(row.name);
    byKey.set(key, group);
  }
  const groups = [...byKey.values()].sort(
    (a, b) => b.jobs.length - a.jobs.length || (a.jobs[0]! < b.jobs[0]! ? -1 : 1),
  );
  const largest = groups[0]!;
  if (largest.jobs.length >= 2 && largest.jobs.length * 2 >= failing.length) {
    return { kind: 'correlated', failing: failing.length, group: largest, groups };
  }
  return { kind: 'independent', failing: failing.length, groups };
}

export function describeSignature(signature: FailureSignature): string {
  const parts = [`exit ${signature.exitCode ?? '—'}`];
  if (signature.reason) parts.push(signature.reason);
  return parts.join(' · ');
}

/** The bar's one-line text. */
export function verdictText(verdict: Verdict): string {
  switch (verdict.kind) {
    case 'clear':
      return 'All clear — no job is failing';
    case 'single':
      return `JOB FAILING — ${verdict.job} · ${describeSignature(verdict)}`;
    case 'correlated':
      return `FLEET EVENT — ${verdict.failing} jobs failing, ${verdict.group.jobs.length} share exit=${
        verdict.group.exitCode ?? '—'
      }${verdict.group.reason ? ` (${verdict.group.reason})` : ''} — likely one cause`;
    case 'independent':
      return `${verdict.failing} jobs failing — ${verdict.groups.length} different exit codes/reasons, likely independent`;
  }
}
