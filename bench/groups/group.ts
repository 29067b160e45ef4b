// What a benchmark group is (a set of metrics measured by one kind of worker) and the helper
// that runs a worker in several fresh processes, keeping going when one of them fails.
import type { MetricLine } from '../lib/metric.js';
import { runWorker, type Sample } from '../lib/workers.js';

export interface BenchContext {
  /** The checkout under test: its dist/ (built by `npm run bench`) and bin/. */
  readonly repoRoot: string;
  /** A temp dir for generated configs; removed at the end of the run. */
  readonly workDir: string;
  /** Where the transpiled workers are. */
  readonly outDir: string;
  emit(line: MetricLine): void;
  progress(message: string): void;
}

export interface BenchGroup {
  /** Selector on the command line (`npm run bench -- next-fire`). */
  readonly id: string;
  readonly summary: string;
  /** Name prefixes of the metric lines it prints (also accepted as selectors). */
  readonly metricPrefixes: readonly string[];
  run(context: BenchContext): Promise<void>;
}

export interface RepeatedRun {
  /** One entry per successful process: the samples it reported. */
  readonly runs: Sample[][];
  /** Why the failed processes failed. */
  readonly failures: string[];
}

/** Runs `script` in `repetitions` fresh processes one after another. */
export async function runFresh(
  context: BenchContext,
  script: string,
  repetitions: number,
  options: {
    readonly args?: (repetition: number) => readonly string[];
    readonly nodeFlags?: readonly string[];
    readonly timeoutMs: number;
  },
): Promise<RepeatedRun> {
  const runs: Sample[][] = [];
  const failures: string[] = [];
  for (let repetition = 0; repetition < repetitions; repetition++) {
    try {
      runs.push(
        await runWorker({
          outDir: context.outDir,
          repoRoot: context.repoRoot,
          script,
          args: options.args?.(repetition) ?? [],
          nodeFlags: options.nodeFlags ?? [],
          timeoutMs: options.timeoutMs,
        }),
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      context.progress(`${script} #${repetition + 1} failed: ${message}`);
      failures.push(message);
    }
  }
  return { runs, failures };
}

/** A number field of a sample (NaN when missing), for aggregation. */
export function numberField(sample: Sample, key: string): number {
  const value = sample[key];
  return typeof value === 'number' ? value : Number.NaN;
}

export const MB = 1024 * 1024;
