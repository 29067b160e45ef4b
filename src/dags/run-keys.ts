// Run keys (docs/dags.md "Runs"): a scheduled, catch-up or backfill run's key derives from its
// logical instant in UTC, so every node and every repeated backfill names the same run; a manual
// run's key is random. Also the reading of a logical date given over HTTP (naive = UTC).
// Must not: draw randomness itself (the caller hands in the bytes).
import { formatIsoUtc, parseIsoInstantMs } from '../common/index.js';

/** The logical date as stored (`logicalDate`): Python isoformat of the UTC instant. */
export function logicalDateText(logicalMs: number): string {
  return formatIsoUtc(logicalMs);
}

/** `2026-07-04T02:00:00+00:00` → `2026-07-04T02:00:00_00:00`. */
export function scheduledRunKey(logicalMs: number): string {
  return logicalDateText(logicalMs).replace(/[^0-9A-Za-z_.:-]/g, '_');
}

/** `manual-<12 hex>` from 6 random bytes. */
export function manualRunKey(random: Uint8Array): string {
  return `manual-${Buffer.from(random).toString('hex').slice(0, 12)}`;
}

const NAIVE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?$/;

/**
 * An ISO 8601 date or instant as epoch ms: with an offset as written, without one as UTC (a bare
 * date is its midnight). NaN when unreadable.
 */
export function parseLogicalDate(text: string): number {
  if (NAIVE.test(text)) {
    const [date = '', time = '00:00:00'] = text.split('T');
    return parseIsoInstantMs(`${date}T${time.length === 5 ? `${time}:00` : time}+00:00`);
  }
  return parseIsoInstantMs(text);
}
