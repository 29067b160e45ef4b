// The seeded short fault run for CI (`npm run faults:ci`, about 3 minutes): gossip, then etcd,
// about a minute of faults each, no full outage. Exits non-zero when a run fails its property
// (docs/clustering.md "Measured guarantees"): a doubled Leader slot on the lease backend, a gossip
// double outside the documented windows or one near nothing but a SIGSTOP/SIGCONT, or a run that
// did not finish. Each run's JSON summary is echoed on stdout.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const RUN = resolve(import.meta.dirname, 'run.ts');
const RUNS: readonly (readonly string[])[] = [
  ['--backend', 'gossip', '--seed', '101'],
  ['--backend', 'etcd', '--seed', '102'],
];
const COMMON = ['--nodes', '3', '--duration-s', '55', '--gap-ms', '700', '--outage-s', '0'];

let failed = 0;
for (const args of RUNS) {
  const child = spawnSync(process.execPath, ['--import', 'tsx', RUN, ...args, ...COMMON], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  process.stdout.write(`${line}\n`);
  let pass = false;
  try {
    pass = (JSON.parse(line) as { pass?: unknown }).pass === true;
  } catch {
    // no summary: the run itself failed
  }
  if (child.status !== 0 || !pass) {
    failed += 1;
    process.stderr.write(`faults:ci: ${args.join(' ')} FAILED (exit ${String(child.status)})\n`);
  }
}
process.exit(failed === 0 ? 0 : 1);
