// Worker: one real fleet (lib/fleet.ts) of this checkout's daemons (bin/yacron2.js, children of
// the worker, on their default spawn path) in the shape NODESxJOBS: mTLS gossip on 127.0.0.1,
// every node with JOBS idle jobs, a `Leader` job every second and a control API. Once GET
// /cluster on every node shows the fleet converged (bounded), it settles, then each daemon's
// utime + stime (and its spawn helper's) is read at both ends of the window and VmRSS/RssAnon at
// its end (VmRSS also every 5 s). Reports the whole reading as one sample, or `{ error }` when
// the fleet could not be measured (it did not converge, a daemon exited).
import { FleetError, measureFleet, parseShape } from '../lib/fleet.js';
import { daemonEnv } from '../lib/proc.js';
import { intArg, repoRoot, reportSample, stringArg } from '../lib/worker-io.js';
import * as path from 'node:path';

const shape = parseShape(stringArg(0, 'shape'));
const windowMs = intArg(1, 'windowMs');
const settleMs = intArg(2, 'settleMs');
const convergeTimeoutMs = intArg(3, 'convergeTimeoutMs');
const workDir = stringArg(4, 'workDir');

try {
  const result = await measureFleet({
    command: [process.execPath, path.join(repoRoot(), 'bin/yacron2.js')],
    shape,
    parentDir: workDir,
    settleMs,
    windowMs,
    convergeTimeoutMs,
    env: daemonEnv('default'),
    progress: (message) => process.stderr.write(`bench: fleet ${message}\n`),
  });
  reportSample({ ...result });
} catch (error) {
  if (!(error instanceof FleetError)) throw error;
  reportSample({ shape: shape.label, error: error.message });
}
