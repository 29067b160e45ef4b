// The runner's door: createRunner (one run = one child process) plus the pieces other layers
// reuse (the shell reporter's argv rules, the failsWhen decision, the stream prefix).
export type * from './types.js';
export { createRunner, type RunnerDeps } from './create-runner.js';
export { startSpawner, SPAWN_HELPER_ENV, type DaemonSpawner } from './spawn-path.js';
export { buildCommandArgv, DEFAULT_SHELL } from './command-line.js';
export { decideFailReason } from './fail-reason.js';
export { secretEnvVarNames } from './secret-env-vars.js';
export { renderStreamPrefix, formatTemplate, type StreamPrefixFields } from './stream-prefix.js';
export { signalProcessGroup, exitCodeFromStatus } from './process-group.js';
export { TIMEOUT_EXIT_CODE } from './child-run.js';
export {
  spawnFailedOutcome,
  SPAWN_FAILED_EXIT_CODE,
  type SpawnFailedTiming,
} from './spawn-failed.js';
export {
  RunOutput,
  DEFAULT_OUTPUT_LIMITS,
  outputLineText,
  type OutputEntry,
  type OutputLimits,
  type OutputListener,
} from './output-buffer.js';
