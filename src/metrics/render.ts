// Renders a prom-client Registry in either exposition format, per request and without touching the
// registry: prom-client's own OpenMetrics path renames counters in place (drops `_total` from
// `metric.name` for good), so switching a registry's content type between scrapes breaks the next
// text scrape. Our families render themselves; prom-client's metrics are read through get() and
// formatted here. Family order: daemon and jobs first, then state, then cluster (docs/metrics.md
// "Scraping /metrics").
import type { Registry } from 'prom-client';
import {
  escapeHelp,
  formatFloat,
  labelPair,
  sampleLine,
  type ExpositionFormat,
} from './exposition.js';
import { metadataName, MetricFamily } from './family.js';

/** What prom-client's metric.get() resolves to (only the fields we read). */
interface ForeignMetricObject {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly values?: readonly {
    readonly value: number;
    readonly labels?: Readonly<Record<string, string | number>>;
    readonly metricName?: string;
  }[];
}

interface ForeignMetric {
  readonly name: string;
  get(): Promise<ForeignMetricObject> | ForeignMetricObject;
}

function familyRank(name: string): number {
  if (name.startsWith('yacron2_state_')) return 1;
  if (name.startsWith('yacron2_cluster_')) return 2;
  return 0;
}

/** Bound-like labels render as floats and go last, as Prometheus client libraries do. */
const BOUND_LABELS = new Set(['le', 'quantile']);

function renderForeignLabels(labels: Readonly<Record<string, string | number>>): string {
  const parts: string[] = [];
  const bounds: string[] = [];
  for (const [name, value] of Object.entries(labels)) {
    if (BOUND_LABELS.has(name)) {
      bounds.push(labelPair(name, typeof value === 'number' ? formatFloat(value) : value));
    } else {
      parts.push(labelPair(name, String(value)));
    }
  }
  return [...parts, ...bounds].join(',');
}

function writeForeign(
  lines: string[],
  metric: ForeignMetricObject,
  format: ExpositionFormat,
): void {
  const values = metric.values ?? [];
  if (values.length === 0) return;
  // prom-client has no info type: a gauge named `*_info` is an info family (docs/metrics.md
  // "Scraping /metrics"), so OpenMetrics gets `# TYPE <name without _info> info`.
  const kind = metric.type === 'gauge' && metric.name.endsWith('_info') ? 'info' : metric.type;
  const meta = metadataName(metric.name, kind, format);
  const type = format === 'text' && kind === 'info' ? 'gauge' : kind;
  lines.push(`# HELP ${meta} ${escapeHelp(metric.help, format)}`, `# TYPE ${meta} ${type}`);
  for (const sample of values) {
    let name = sample.metricName ?? metric.name;
    if (format === 'openmetrics' && metric.type === 'counter' && !name.endsWith('_total')) {
      name = `${name}_total`;
    }
    lines.push(sampleLine(name, renderForeignLabels(sample.labels ?? {}), sample.value));
  }
}

/**
 * The scrape body. A family or prom-client metric whose collect throws is left out of this scrape
 * and reported to `onCollectError`; the scrape itself never fails.
 */
export async function renderRegistry(
  registry: Registry,
  format: ExpositionFormat,
  onCollectError: (metricName: string, error: unknown) => void,
): Promise<string> {
  const metrics = (registry.getMetricsAsArray() as unknown as (MetricFamily | ForeignMetric)[])
    .map((metric, index) => ({ metric, index, rank: familyRank(metric.name) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index);
  const lines: string[] = [];
  for (const { metric } of metrics) {
    if (metric instanceof MetricFamily) {
      const mark = lines.length;
      try {
        metric.writeTo(lines, format);
      } catch (error) {
        lines.length = mark; // a bug in one family must not cost the whole scrape
        onCollectError(metric.name, error);
      }
      continue;
    }
    let object: ForeignMetricObject;
    try {
      object = await metric.get();
    } catch (error) {
      onCollectError(metric.name, error);
      continue;
    }
    writeForeign(lines, object, format);
  }
  if (format === 'openmetrics') lines.push('# EOF');
  return lines.join('\n') + '\n';
}
