// Instants as the wire formats spell them: Python's `datetime.isoformat()` of an aware UTC
// instant (the HTTP API, the job API, the durable ledger rows) and its inverse. Only edges
// (http/, jobapi/, durable/) call these; the domain keeps epoch milliseconds.

/** Python `datetime.isoformat()` of an aware UTC instant: microseconds only when non-zero. */
export function formatIsoUtc(epochMs: number): string {
  const whole = Math.floor(epochMs);
  const micros = Math.round((epochMs - whole) * 1000);
  const base = new Date(whole).toISOString(); // 2026-06-21T12:00:00.123Z
  const millis = whole - Math.floor(whole / 1000) * 1000;
  const fraction =
    millis === 0 && micros === 0
      ? ''
      : '.' + String(millis).padStart(3, '0') + String(micros).padStart(3, '0');
  return base.slice(0, 19) + fraction + '+00:00';
}

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
