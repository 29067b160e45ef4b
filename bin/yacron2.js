#!/usr/bin/env node
// Entry point of the `yacron2` command. The job-facing commands (`state get`, `cursor`, `lock`,
// ...) run inside jobs, many times a run, so they go straight to the small job client and never
// load the daemon CLI (commander, pino, yaml, ...); everything else lives in cli/main.js.
import { findJobCommand } from '../dist/cli/job-client/route.js';

const argv = process.argv.slice(2);
const jobCommand = findJobCommand(argv);
if (jobCommand >= 0) {
  const { runJobCli } = await import('../dist/cli/job-client/main.js');
  process.exitCode = await runJobCli(argv.slice(jobCommand));
} else {
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(argv);
}
