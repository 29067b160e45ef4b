// A metric family whose samples are produced at scrape time by a collect function, rendered
// straight to exposition lines (no per-sample objects on the scrape path). It also carries the
// small surface prom-client's Registry relies on (name, help, type, get, reset), so families live
// in an ordinary prom-client Registry next to prom-client's own metrics.
import type { Metric, MetricValueWithName, Registry } from 'prom-client';
import { escapeHelp, sampleLine, type ExpositionFormat } from './exposition.js';
import { parseLabelText } from './exposition-parser.js';

/**
 * `info` renders as a gauge in the text format and as `info` in OpenMetrics (docs/metrics.md
 * "Scraping /metrics").
 */
export type FamilyKind = 'counter' | 'gauge' | 'histogram' | 'info';

/** Receives one sample: its full name, its rendered labels ('' for none) and its value. */
export type SampleSink = (sampleName: string, labels: string, value: number) => void;

export interface FamilyDefinition {
  /**
   * The family's name as the text format shows it: counters end in `_total`, info families in
   * `_info`, histograms are the base name (samples add `_bucket`, `_sum`, `_count`).
   */
  readonly name: string;
  readonly help: string;
  readonly kind: FamilyKind;
  /** Emit the current samples; emitting none omits the family from the scrape. */
  readonly collect: (sink: SampleSink) => void;
  /** What prom-client's `registry.resetMetrics()` does to this family (default: nothing). */
  readonly reset?: () => void;
}

/**
 * The metadata (`# HELP`/`# TYPE`) name: OpenMetrics drops `_total` and `_info` (docs/metrics.md
 * "Scraping /metrics").
 */
export function metadataName(name: string, kind: string, format: ExpositionFormat): string {
  if (format === 'openmetrics') {
    if (kind === 'counter' && name.endsWith('_total')) return name.slice(0, -'_total'.length);
    if (kind === 'info' && name.endsWith('_info')) return name.slice(0, -'_info'.length);
  }
  return name;
}

function typeKeyword(kind: FamilyKind, format: ExpositionFormat): string {
  return kind === 'info' && format === 'text' ? 'gauge' : kind;
}

export class MetricFamily {
  /** prom-client surface; the registry keys the family by it. Rendering never reads it back. */
  name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly aggregator = 'sum';
  readonly kind: FamilyKind;
  readonly #collect: (sink: SampleSink) => void;
  readonly #reset: (() => void) | undefined;
  readonly #headers: Readonly<Record<ExpositionFormat, readonly [string, string]>>;

  constructor(definition: FamilyDefinition) {
    this.name = definition.name;
    this.help = definition.help;
    this.kind = definition.kind;
    this.type = definition.kind === 'info' ? 'gauge' : definition.kind;
    this.#collect = definition.collect;
    this.#reset = definition.reset;
    const header = (format: ExpositionFormat): readonly [string, string] => {
      const meta = metadataName(definition.name, definition.kind, format);
      return [
        `# HELP ${meta} ${escapeHelp(definition.help, format)}`,
        `# TYPE ${meta} ${typeKeyword(definition.kind, format)}`,
      ];
    };
    this.#headers = { text: header('text'), openmetrics: header('openmetrics') };
  }

  /** Append HELP, TYPE and the samples to `lines`; nothing at all when there are no samples. */
  writeTo(lines: string[], format: ExpositionFormat): void {
    const start = lines.length;
    const [help, type] = this.#headers[format];
    lines.push(help, type);
    this.#collect((sampleName, labels, value) => {
      lines.push(sampleLine(sampleName, labels, value));
    });
    if (lines.length === start + 2) lines.length = start;
  }

  /** prom-client's metric object (for `registry.getMetricsAsJSON()` and friends). */
  get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: MetricValueWithName<string>[];
  }> {
    const values: MetricValueWithName<string>[] = [];
    this.#collect((metricName, labels, value) => {
      values.push({ metricName, labels: parseLabelText(labels), value });
    });
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    });
  }

  reset(): void {
    this.#reset?.();
  }
}

/** Register a family in a prom-client Registry. */
export function registerFamily(registry: Registry, family: MetricFamily): void {
  // prom-client's registry only needs name/type/get/reset at runtime; its typings list just its
  // own metric classes.
  registry.registerMetric(family as unknown as Metric);
}
