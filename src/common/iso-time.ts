// Instants as the wire formats spell them: Python's `datetime.isoformat()` of an aware UTC
// instant (the HTTP API, the job API, the durable ledger rows) and its inverse. Only edges
// (http/, jobapi/, durable/) call these; the domain keeps epoch milliseconds.
import { pythonIsoformatUtc } from './python-json.js';

/**
 * Python `datetime.isoformat()` of an aware UTC instant: microseconds only when non-zero. One
 * implementation (python-json.ts, where the store's records use it too) under the name the
 * edges use.
 */
export const formatIsoUtc: (epochMs: number) => string = pythonIsoformatUtc;

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Epoch ms of an ISO 8601 instant with an explicit offset, as formatIsoUtc writes it
 * (`2026-07-04T12:00:00.123456+00:00`), keeping sub-millisecond digits; NaN otherwise.
 */
export function parseIsoInstantMs(text: string): number {
  const match = ISO_INSTANT.exec(text);
  if (!match) return NaN;
  const [, year, month, day, hour, minute, second, fraction = '', offset = 'Z'] = match;
  const wholeMs = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}${offset}`);
  if (Number.isNaN(wholeMs)) return NaN;
  return fraction === '' ? wholeMs : wholeMs + Number(`0.${fraction}`) * 1000;
}
