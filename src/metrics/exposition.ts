// The exposition formats of docs/metrics.md "Scraping /metrics": content negotiation, value and
// label rendering and HELP escaping for the Prometheus text format 0.0.4 and OpenMetrics 1.0. Pure
// functions.

export type ExpositionFormat = 'text' | 'openmetrics';

export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
export const OPENMETRICS_CONTENT_TYPE =
  'application/openmetrics-text; version=1.0.0; charset=utf-8';

/** OpenMetrics iff the Accept header contains the OpenMetrics media type (a substring test). */
export function negotiateFormat(accept: string | readonly string[] | undefined): ExpositionFormat {
  const text = typeof accept === 'string' ? accept : (accept ?? []).join(',');
  return text.includes('application/openmetrics-text') ? 'openmetrics' : 'text';
}

export function contentTypeOf(format: ExpositionFormat): string {
  return format === 'openmetrics' ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE;
}

// 2^53: beyond it a double no longer holds every integer, so the reference prints a float.
const MAX_EXACT_INTEGER = 2 ** 53;

/**
 * A sample value: integral values without a decimal point (`1`, `1751889600`), other values as
 * the shortest round-trip float (`0.25`), `+Inf`, `-Inf`, `NaN`.
 */
export function formatValue(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < MAX_EXACT_INTEGER) {
    return value === 0 ? '0' : String(value); // -0 prints as 0
  }
  return formatFloat(value);
}

/**
 * Python's `repr(float)`: shortest round-trip digits, always with a decimal point or an exponent
 * (`1.0`, `0.1`, `1e+16`, `1e-05`). Histogram `le` labels use it, as the reference does.
 */
export function formatFloat(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-4 && magnitude < 1e16) {
    // Python's positional range: JavaScript prints the same shortest digits here.
    const positional = String(value);
    return positional.includes('.') ? positional : `${positional}.0`;
  }
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  // toExponential() without an argument gives the shortest digits that round-trip.
  const [mantissa = '0', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  const digits = String(Math.abs(exponent)).padStart(2, '0');
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${digits}`;
}

/** Label values escape backslash, double quote and newline (both formats). */
export function escapeLabelValue(value: string): string {
  if (!/[\\"\n]/.test(value)) return value;
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

/** One `name="value"` pair, escaped. */
export function labelPair(name: string, value: string): string {
  return `${name}="${escapeLabelValue(value)}"`;
}

/** HELP text: backslash and newline escaped; OpenMetrics also escapes the double quote. */
export function escapeHelp(help: string, format: ExpositionFormat): string {
  const escaped = help.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
  return format === 'openmetrics' ? escaped.replaceAll('"', '\\"') : escaped;
}

/** A sample line: `name{labels} value` (`labels` already rendered, '' for none). */
export function sampleLine(name: string, labels: string, value: number): string {
  return labels === ''
    ? `${name} ${formatValue(value)}`
    : `${name}{${labels}} ${formatValue(value)}`;
}
