// A strict parser for what render() produces (Prometheus text 0.0.4 and OpenMetrics 1.0), used by
// the tests to check families, types and labels, and by MetricFamily.get() to turn rendered label
// text back into objects. It rejects anything our renderer must never emit: blank lines, a family
// without samples, HELP/TYPE out of order, samples outside their family, duplicate series.
import type { ExpositionFormat } from './exposition.js';

export interface ParsedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface ParsedFamily {
  /** The metadata name (`# TYPE <name> ...`). */
  readonly name: string;
  readonly type: string;
  readonly help: string;
  readonly samples: readonly ParsedSample[];
}

const TYPES: Readonly<Record<ExpositionFormat, readonly string[]>> = {
  text: ['counter', 'gauge', 'histogram', 'summary', 'untyped'],
  openmetrics: [
    'counter',
    'gauge',
    'histogram',
    'summary',
    'info',
    'stateset',
    'gaugehistogram',
    'unknown',
  ],
};

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function fail(lineNumber: number, message: string): never {
  throw new Error(`exposition line ${lineNumber}: ${message}`);
}

/** `a="x",b="y\"z"` → `{ a: 'x', b: 'y"z' }` (the text between the braces). */
export function parseLabelText(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let at = 0;
  while (at < text.length) {
    const eq = text.indexOf('=', at);
    if (eq < 0) throw new Error(`Cannot parse labels ${JSON.stringify(text)}: no '='`);
    const name = text.slice(at, eq);
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name) || text[eq + 1] !== '"') {
      throw new Error(`Cannot parse labels ${JSON.stringify(text)}: bad label ${name}`);
    }
    let value = '';
    let cursor = eq + 2;
    for (;;) {
      const char = text[cursor];
      if (char === undefined) throw new Error(`Cannot parse labels ${JSON.stringify(text)}`);
      if (char === '"') break;
      if (char === '\\') {
        const next = text[cursor + 1];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`Cannot parse labels ${JSON.stringify(text)}: bad escape`);
        cursor += 2;
      } else {
        value += char;
        cursor += 1;
      }
    }
    if (Object.hasOwn(labels, name)) {
      throw new Error(`Cannot parse labels ${JSON.stringify(text)}: duplicate ${name}`);
    }
    labels[name] = value;
    at = cursor + 1;
    if (at < text.length) {
      if (text[at] !== ',') throw new Error(`Cannot parse labels ${JSON.stringify(text)}`);
      at += 1;
    }
  }
  return labels;
}

function parseValue(text: string, lineNumber: number): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text)) fail(lineNumber, `bad value ${text}`);
  return Number(text);
}

function unescapeHelp(text: string, format: ExpositionFormat): string {
  return text.replace(/\\(.)/g, (whole, char: string) => {
    if (char === 'n') return '\n';
    if (char === '\\') return '\\';
    if (char === '"' && format === 'openmetrics') return '"';
    return whole;
  });
}

/** Sample names a family of `type` may carry under `format`. */
function allowedSampleNames(meta: string, type: string, format: ExpositionFormat): string[] {
  switch (type) {
    case 'counter':
      return format === 'openmetrics' ? [`${meta}_total`, `${meta}_created`] : [meta];
    case 'info':
      return [`${meta}_info`];
    case 'histogram':
    case 'gaugehistogram':
      return [`${meta}_bucket`, `${meta}_sum`, `${meta}_count`, `${meta}_created`];
    case 'summary':
      return [meta, `${meta}_sum`, `${meta}_count`, `${meta}_created`];
    default:
      return [meta];
  }
}

interface FamilyBuilder {
  name: string;
  type: string;
  help: string;
  samples: ParsedSample[];
  allowed: string[];
  seen: Set<string>;
}

/** Parse a whole scrape body. Throws on the first violation. */
export function parseExposition(body: string, format: ExpositionFormat): ParsedFamily[] {
  if (!body.endsWith('\n')) fail(0, 'the body must end with a newline');
  const lines = body.slice(0, -1).split('\n');
  if (format === 'openmetrics') {
    if (lines.at(-1) !== '# EOF') fail(lines.length, 'OpenMetrics must end with # EOF');
    lines.pop();
  }
  const families: FamilyBuilder[] = [];
  const names = new Set<string>();
  let current: FamilyBuilder | undefined;
  let pendingHelp: { name: string; help: string } | undefined;

  lines.forEach((line, index) => {
    const lineNumber = index + 1;
    if (line === '') fail(lineNumber, 'blank line');
    if (line.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
      if (!match) fail(lineNumber, `unexpected comment ${line}`);
      const [, keyword, name = '', rest = ''] = match;
      if (!NAME.test(name)) fail(lineNumber, `bad metric name ${name}`);
      if (keyword === 'HELP') {
        if (pendingHelp) fail(lineNumber, `HELP without TYPE for ${pendingHelp.name}`);
        if (current && current.samples.length === 0)
          fail(lineNumber, `${current.name}: no samples`);
        if (names.has(name)) fail(lineNumber, `family ${name} appears twice`);
        pendingHelp = { name, help: unescapeHelp(rest, format) };
        return;
      }
      if (!pendingHelp || pendingHelp.name !== name) fail(lineNumber, `TYPE ${name} without HELP`);
      if (!TYPES[format].includes(rest)) fail(lineNumber, `type ${rest} not valid in ${format}`);
      names.add(name);
      current = {
        name,
        type: rest,
        help: pendingHelp.help,
        samples: [],
        allowed: allowedSampleNames(name, rest, format),
        seen: new Set(),
      };
      families.push(current);
      pendingHelp = undefined;
      return;
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) fail(lineNumber, `bad sample line ${line}`);
    const [, name = '', labelText = '', valueText = ''] = match;
    if (!current || pendingHelp) fail(lineNumber, `sample ${name} outside a family`);
    if (!current.allowed.includes(name)) {
      fail(lineNumber, `sample ${name} does not belong to ${current.type} ${current.name}`);
    }
    const key = `${name}{${labelText}}`;
    if (current.seen.has(key)) fail(lineNumber, `duplicate series ${key}`);
    current.seen.add(key);
    let labels: Record<string, string>;
    try {
      labels = parseLabelText(labelText);
    } catch (error) {
      fail(lineNumber, (error as Error).message);
    }
    current.samples.push({ name, labels, value: parseValue(valueText, lineNumber) });
  });
  if (pendingHelp) fail(lines.length, `HELP without TYPE for ${pendingHelp.name}`);
  if (current && current.samples.length === 0) fail(lines.length, `${current.name}: no samples`);
  for (const family of families) {
    if (family.type === 'histogram') checkHistogram(family);
  }
  return families.map(({ name, type, help, samples }) => ({ name, type, help, samples }));
}

/** Buckets per series: cumulative, ending in `+Inf` equal to `_count`. */
function checkHistogram(family: FamilyBuilder): void {
  const seriesKey = (labels: Readonly<Record<string, string>>): string =>
    JSON.stringify(Object.entries(labels).filter(([name]) => name !== 'le'));
  const buckets = new Map<string, ParsedSample[]>();
  const counts = new Map<string, number>();
  for (const sample of family.samples) {
    const key = seriesKey(sample.labels);
    if (sample.name.endsWith('_bucket')) {
      if (sample.labels['le'] === undefined) throw new Error(`${family.name}: bucket without le`);
      buckets.set(key, [...(buckets.get(key) ?? []), sample]);
    } else if (sample.name.endsWith('_count')) {
      counts.set(key, sample.value);
    }
  }
  for (const [key, series] of buckets) {
    let previousBound = -Infinity;
    let previousValue = 0;
    for (const bucket of series) {
      const bound = parseValue(bucket.labels['le'] ?? '', 0);
      if (bound <= previousBound || bucket.value < previousValue) {
        throw new Error(`${family.name}${key}: buckets not cumulative and increasing`);
      }
      previousBound = bound;
      previousValue = bucket.value;
    }
    const last = series.at(-1);
    if (last?.labels['le'] !== '+Inf' || counts.get(key) !== last.value) {
      throw new Error(`${family.name}${key}: the +Inf bucket must equal _count`);
    }
  }
}
