// The Markdown incident summary the mitigate console copies (docs/dashboard.md "Panels"): when,
// where, which version and job set, the verdict, and one table row per failing job. Pure.
import { formatDuration, formatUtc, parseIso } from './format.js';
import type { JobRow } from './job-status.js';
import { STATUS_META } from './job-status.js';
import type { Verdict } from './verdict.js';
import { verdictText } from './verdict.js';

export interface IncidentInput {
  readonly nowMs: number;
  readonly host: string;
  readonly version: string | null;
  readonly jobSetId: string | null;
  /** One line on the cluster state (`not configured` without clustering). */
  readonly cluster: string;
  readonly verdict: Verdict;
  readonly rows: readonly JobRow[];
  /** The bulk actions taken from the console, one line each. */
  readonly actions: readonly string[];
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

export function incidentMarkdown(input: IncidentInput): string {
  const lines = [
    `## Incident summary — ${formatUtc(input.nowMs)}`,
    '',
    `- Host: ${input.host}`,
    `- yacron2 version: ${input.version ?? 'unknown'}`,
    `- Job set: ${input.jobSetId ?? 'unknown'}`,
    `- Cluster: ${input.cluster}`,
    `- Verdict: ${verdictText(input.verdict)}`,
    '',
    '| Job | Status | Exit | Reason | Finished (UTC) | Duration |',
    '|---|---|---|---|---|---|',
  ];
  for (const row of input.rows) {
    const run = row.job.last_run;
    const finished = parseIso(run?.finished_at);
    lines.push(
      `| ${cell(row.name)} | ${STATUS_META[row.status].label} | ${run?.exit_code ?? '—'} | ${cell(
        run?.fail_reason ?? '—',
      )} | ${finished === null ? '—' : formatUtc(finished)} | ${formatDuration(run?.duration)} |`,
    );
  }
  if (input.rows.length === 0) lines.push('| (no failing job) | | | | | |');
  if (input.actions.length > 0) {
    lines.push('', '### Actions', '', ...input.actions.map((action) => `- ${action}`));
  }
  return `${lines.join('\n')}\n`;
}
