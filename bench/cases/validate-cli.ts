// Worker: wall time of `node bin/yacron2.js -c FILE -v` (validate and exit) for each given
// config, and of a bare `node -e 0` for context, spawned one after another and interleaved
// round by round so machine noise hits every command alike.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { intArg, repoRoot, reportSample } from '../lib/worker-io.js';

const rounds = intArg(0, 'rounds');
const configs = process.argv.slice(3);
const cli = path.join(repoRoot(), 'bin', 'yacron2.js');

interface Command {
  readonly label: string;
  readonly args: readonly string[];
  readonly wallMs: number[];
  failure: string | null;
}

const commands: Command[] = [
  { label: 'node -e 0', args: ['-e', '0'], wallMs: [], failure: null },
  ...configs.map((config) => ({
    label: config,
    args: [cli, '-c', config, '-v'],
    wallMs: [],
    failure: null,
  })),
];

/** Spawn to exit, in ms; rejects with the exit code and stderr on failure. */
function timeCommand(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (code === 0) resolve(wallMs);
      else reject(new Error(`exit code ${code}: ${stderr.trim().slice(-300)}`));
    });
  });
}

for (let round = 0; round < rounds; round++) {
  for (const command of commands) {
    if (command.failure !== null) continue;
    try {
      command.wallMs.push(await timeCommand(command.args));
    } catch (error) {
      command.failure = error instanceof Error ? error.message : String(error);
    }
  }
}
for (const command of commands) {
  reportSample({ label: command.label, wallMs: command.wallMs, failure: command.failure });
}
