// The lines `yacron2 logs` prints (docs/cli.md "yacron2 logs"): the header before each archived
// run, the line after a followed run, and a job's output line. Pure.
import type { ArchiveHeader, RunOutcomeText } from '../control-client/wire.js';

/** `== JOB run ID finished AT: OUTCOME (exit CODE) (redacted) (N lines dropped) ==` */
export function archiveHeaderLine(job: string, id: string, header: ArchiveHeader): string {
  const notes: string[] = [];
  if (header.redacted) notes.push('(redacted)');
  if (header.dropped_lines > 0) {
    notes.push(`(${header.dropped_lines} line${header.dropped_lines === 1 ? '' : 's'} dropped)`);
  }
  return `== ${job} run ${id} finished ${header.finished_at}: ${outcomeText(header.outcome, header.exit_code)}${notes.map((note) => ` ${note}`).join('')} ==\n`;
}

/** After a followed run that left no archive: `== JOB run finished AT: OUTCOME (exit CODE) ==`. */
export function recordHeaderLine(
  job: string,
  record: {
    readonly outcome: RunOutcomeText;
    readonly exit_code: number | null;
    readonly finished_at: string | null;
  },
): string {
  const at = record.finished_at === null ? '' : ` ${record.finished_at}`;
  return `== ${job} run finished${at}: ${outcomeText(record.outcome, record.exit_code)} ==\n`;
}

function outcomeText(outcome: RunOutcomeText, exitCode: number | null): string {
  return `${outcome} (${exitCode === null ? 'no exit code' : `exit ${exitCode}`})`;
}

/** One output line, newline-terminated (an archived line keeps its own `\n`; drop it first). */
export function outputLine(line: string): string {
  return `${line.endsWith('\n') ? line.slice(0, -1) : line}\n`;
}
