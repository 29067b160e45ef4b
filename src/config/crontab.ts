// Classic crontab files (docs/configuration.md "Classic crontab files"): entries become ordinary
// typed jobs named `<basename>:<line>` with their environment snapshot, SHELL and CRON_TZ. Also
// the content sniff that decides whether a neutrally named file is a crontab.
import * as path from 'node:path';
import { assertTimezone, parseSchedule } from '../schedule/index.js';
import { describeError } from '../common/index.js';
import type { ConfigIssue, LocTable } from './issues.js';
import type { JobEntry } from './file-unit.js';
import type { TypedJob } from './job-schema.js';

const ASSIGNMENT_RE = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;
const FIVE_FIELDS_RE = /^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S.*)$/;
const NICKNAME_RE = /^(@\S+)(?:\s+(\S.*))?$/;
const NICKNAMES: ReadonlyMap<string, string> = new Map([
  ['@reboot', '@reboot'],
  ['@yearly', '@yearly'],
  ['@annually', '@annually'],
  ['@monthly', '@monthly'],
  ['@weekly', '@weekly'],
  ['@daily', '@daily'],
  ['@midnight', '@daily'],
  ['@hourly', '@hourly'],
]);

// Lines end where Python's str.splitlines ends them (the reference numbers lines so, and the
// line number is part of each job's name): \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, U+2028/9.
// eslint-disable-next-line no-control-regex -- line separators include control characters
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;

function splitLines(text: string): string[] {
  return text.split(LINE_BREAK);
}

function isValidFiveFieldSchedule(fields: string): boolean {
  try {
    parseSchedule(fields, { timezone: 'UTC' });
    return true;
  } catch {
    return false;
  }
}

/** Looks only at the first non-blank, non-comment line. */
export function looksLikeCrontab(text: string): boolean {
  for (const raw of splitLines(text)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (ASSIGNMENT_RE.test(line) || line.startsWith('@')) return true;
    const match = FIVE_FIELDS_RE.exec(line);
    return match !== null && isValidFiveFieldSchedule(match.slice(1, 6).join(' '));
  }
  return false;
}

/** One pair of matching outer quotes is stripped from an assignment value. */
function unquote(value: string): string {
  if (value.length >= 2) {
    const first = value[0];
    if ((first === '"' || first === "'") && value.endsWith(first)) return value.slice(1, -1);
  }
  return value;
}

/** `\%` → `%`; an unescaped `%` (cron's stdin marker) is refused. */
function unescapeCommand(command: string): string | null {
  let out = '';
  for (let index = 0; index < command.length; index++) {
    const char = command[index];
    if (char === '\\' && command[index + 1] === '%') {
      out += '%';
      index++;
    } else if (char === '%') {
      return null;
    } else {
      out += char;
    }
  }
  return out;
}

export interface CrontabParse {
  readonly jobs: readonly JobEntry[];
  readonly issues: readonly ConfigIssue[];
}

/**
 * Parse a crontab file. `file` is the display name for messages; locations of every job field
 * point at the entry's line so later checks (schedule, timezone) name it.
 */
export function parseCrontab(
  text: string,
  absolutePath: string,
  file: string,
  locs: LocTable,
): CrontabParse {
  const basename = path.basename(absolutePath);
  const jobs: JobEntry[] = [];
  const issues: ConfigIssue[] = [];
  const environment = new Map<string, string>();
  let shell: string | undefined;
  let timezone: string | undefined;
  const issue = (pathName: string, line: number, message: string): void => {
    issues.push({ file, path: pathName, line, message });
  };

  for (const [index, raw] of splitLines(text).entries()) {
    const lineNumber = index + 1;
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;

    const assignment = ASSIGNMENT_RE.exec(line);
    if (assignment) {
      const name = assignment[1] ?? '';
      const value = unquote((assignment[2] ?? '').trim());
      environment.set(name, value);
      // An empty SHELL= keeps the default shell (the name still joins the environment).
      if (name === 'SHELL' && value !== '') shell = value;
      if (name === 'CRON_TZ') {
        timezone = undefined;
        if (value !== '') {
          try {
            assertTimezone(value);
            timezone = value;
          } catch (error) {
            issue('CRON_TZ', lineNumber, describeError(error));
          }
        }
      }
      continue;
    }

    let schedule: string;
    let rawCommand: string;
    if (line.startsWith('@')) {
      const match = NICKNAME_RE.exec(line);
      const nickname = NICKNAMES.get(match?.[1] ?? '');
      if (nickname === undefined) {
        issue(
          'schedule',
          lineNumber,
          `unknown schedule nickname '${match?.[1] ?? line}' (expected one of ${[...NICKNAMES.keys()].join(', ')})`,
        );
        continue;
      }
      if (match?.[2] === undefined) {
        issue('command', lineNumber, `missing command after '${match?.[1] ?? ''}'`);
        continue;
      }
      schedule = nickname;
      rawCommand = match[2];
    } else {
      const match = FIVE_FIELDS_RE.exec(line);
      if (!match) {
        issue(
          'entry',
          lineNumber,
          `expected 'NAME=value', '@nickname command' or 5 schedule fields followed by a command, found '${line}'`,
        );
        continue;
      }
      schedule = match.slice(1, 6).join(' ');
      rawCommand = match[6] ?? '';
    }

    const command = unescapeCommand(rawCommand);
    if (command === null) {
      issue(
        'command',
        lineNumber,
        "unescaped '%' in command (write \\% for a literal %; yacron2 does not feed stdin)",
      );
      continue;
    }

    const job: TypedJob = {
      name: `${basename}:${lineNumber}`,
      command,
      schedule,
      ...(environment.size > 0 && {
        environment: [...environment].map(([key, value]) => ({ key, value })),
      }),
      ...(shell !== undefined && { shell }),
      ...(timezone !== undefined && { timezone }),
    };
    for (const key of Object.keys(job)) {
      const fieldPath = key === 'timezone' ? 'CRON_TZ' : key === 'name' ? 'entry' : key;
      locs.set(job, key, { file, path: fieldPath, line: lineNumber });
    }
    jobs.push({ typed: job, loc: { file, path: 'entry', line: lineNumber } });
  }
  return { jobs, issues };
}
