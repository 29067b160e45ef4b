// Group validate-cli: wall time of `yacron2 -c FILE -v` on 100 and 1,000 jobs, beside a bare
// `node -e 0` in the same run (worker: cases/validate-cli.ts).
import * as path from 'node:path';
import { writeMixedConfig } from '../lib/config-file.js';
import { metricLine, unmeasured, type Target } from '../lib/metric.js';
import { median, min, round, roundAll } from '../lib/stats.js';
import { runFresh, type BenchGroup } from './group.js';
import type { Sample } from '../lib/workers.js';

const ROUNDS = 10;
const CONFIGS: readonly { jobs: number; target: Target | null }[] = [
  { jobs: 100, target: { op: '<=', value: 150 } },
  { jobs: 1000, target: null },
];

export const validateCliGroup: BenchGroup = {
  id: 'validate-cli',
  summary: '`yacron2 -v` wall time on 100 and 1,000 jobs, and bare node startup',
  metricPrefixes: ['validate-cli', 'node-startup'],
  async run(context) {
    const files = CONFIGS.map(({ jobs }) => {
      const file = path.join(context.workDir, `validate-${jobs}.yaml`);
      writeMixedConfig(file, jobs);
      return file;
    });
    const { runs, failures } = await runFresh(context, 'cases/validate-cli.js', 1, {
      args: () => [String(ROUNDS), ...files],
      timeoutMs: 300_000,
    });
    const samples = runs[0] ?? [];
    const emitCommand = (
      name: string,
      label: string,
      target: Target | null,
      extra: Record<string, unknown>,
    ): void => {
      const sample: Sample | undefined = samples.find((candidate) => candidate['label'] === label);
      const wallMs = (sample?.['wallMs'] as number[] | undefined) ?? [];
      const failure = sample?.['failure'];
      if (wallMs.length === 0 || typeof failure === 'string') {
        const reason = typeof failure === 'string' ? failure : (failures[0] ?? 'no samples');
        context.emit(unmeasured(name, 'ms', target, reason));
        return;
      }
      context.emit(
        metricLine(name, round(median(wallMs), 1), 'ms', target, {
          ...extra,
          statistic: `median of ${wallMs.length} runs, spawn to exit`,
          min: round(min(wallMs), 1),
          samples: roundAll(wallMs, 1),
        }),
      );
    };
    CONFIGS.forEach(({ jobs, target }, index) =>
      emitCommand(`validate-cli.${jobs}-jobs`, files[index] ?? '', target, {
        command: `node bin/yacron2.js -c <${jobs} jobs> -v`,
        jobs,
      }),
    );
    emitCommand('node-startup', 'node -e 0', null, { command: 'node -e 0' });
  },
};
