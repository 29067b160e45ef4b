// Turns a cron expression or nickname into its compiled form; owns the field layouts (5, 6 or
// 7 fields), the nickname table and the YC_ERR_SCHEDULE_INVALID message.

import { YacronError } from '../common/errors.js';
import { compileCron, type CompiledCron, type CronFieldValues } from './compiled-cron.js';
import { CronSyntaxError, parseField, type FieldName } from './cron-fields.js';

const NICKNAMES: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@hourly': '0 * * * *',
};

// 5 fields: second 0, any year; 6 fields: the 6th is the YEAR (not seconds); 7: seconds first.
const LAYOUTS: Readonly<Record<number, readonly FieldName[]>> = {
  5: ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'],
  6: ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year'],
  7: ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year'],
};

export interface ParsedCron {
  /** Lower-cased, whitespace runs collapsed to one space, trimmed. */
  readonly normalized: string;
  readonly hasSeconds: boolean;
  readonly cron: CompiledCron;
}

export function normalizeExpression(expression: string): string {
  return expression.toLowerCase().trim().replace(/\s+/g, ' ');
}

/** Parses an expression; throws YC_ERR_SCHEDULE_INVALID with the reason. */
export function parseCronExpression(expression: string): ParsedCron {
  const normalized = normalizeExpression(expression);
  try {
    const fieldTexts = splitFields(normalized);
    const layout = LAYOUTS[fieldTexts.length];
    if (layout === undefined) {
      throw new CronSyntaxError(`expected 5, 6 or 7 fields, got ${fieldTexts.length}`);
    }
    const fieldText = (name: FieldName): string => {
      const index = layout.indexOf(name);
      if (index >= 0) return fieldTexts[index] ?? '*';
      return name === 'second' ? '0' : '*';
    };
    const values: CronFieldValues = {
      second: parseField('second', fieldText('second')),
      minute: parseField('minute', fieldText('minute')),
      hour: parseField('hour', fieldText('hour')),
      dayOfMonth: parseField('dayOfMonth', fieldText('dayOfMonth')),
      month: parseField('month', fieldText('month')),
      dayOfWeek: parseField('dayOfWeek', fieldText('dayOfWeek')),
      year: parseField('year', fieldText('year')),
    };
    return { normalized, hasSeconds: fieldTexts.length === 7, cron: compileCron(values) };
  } catch (error) {
    if (!(error instanceof CronSyntaxError)) throw error;
    throw new YacronError(
      'YC_ERR_SCHEDULE_INVALID',
      `invalid schedule '${expression}': ${error.message}`,
      { cause: error },
    );
  }
}

function splitFields(normalized: string): string[] {
  if (normalized === '') throw new CronSyntaxError('the expression is empty');
  if (!normalized.startsWith('@')) return normalized.split(' ');
  const expansion = NICKNAMES[normalized];
  if (expansion !== undefined) return expansion.split(' ');
  if (normalized === '@reboot') {
    throw new CronSyntaxError(
      '@reboot is not a cron expression (it runs once at daemon start-up, not on a schedule)',
    );
  }
  if (normalized === '@midnight') {
    throw new CronSyntaxError("@midnight is only accepted in crontab files; use '@daily'");
  }
  throw new CronSyntaxError(
    `unknown nickname '${normalized}' (use @yearly, @annually, @monthly, @weekly, @daily or @hourly)`,
  );
}
