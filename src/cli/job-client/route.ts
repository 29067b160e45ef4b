// Tells a job-facing command line (`state get`, `cursor`, `lock`, ...) from the daemon's and the
// admin actions', before anything else is loaded. Imports nothing: bin/yacron2.js runs it on every
// start, and job commands must not pay for commander, pino or yaml (docs/cli.md "Job-facing
// commands").

/** Commands served by the job client (main.ts holds their table). */
export const JOB_COMMAND_NAMES = [
  'cursor',
  'lock',
  'artifact',
  'idempotent',
  'secret',
  'xcom',
] as const;

/** `yacron2 state ACTION` with one of these is job-facing; every other action is admin. */
export const JOB_STATE_ACTIONS = ['get', 'set', 'delete', 'keys'] as const;

/** Daemon options that take a value; argparse accepts them (and job commands ignore them). */
const PROGRAM_VALUE_OPTIONS = [
  '-c',
  '--config',
  '-l',
  '--log-level',
  '--shutdown-grace',
  '--reload-interval',
];
const PROGRAM_FLAGS = ['-v', '--validate-config', '--job-set-id'];

/**
 * Index in argv of the job-facing command word, or -1 when argv is for the daemon, `next` or a
 * state admin action. Leading daemon options are skipped (`yacron2 -l DEBUG cursor get x`); a
 * `--` before the command word means it is not a job command (main.ts then refuses the `--`).
 */
export function findJobCommand(argv: readonly string[]): number {
  let index = 0;
  while (index < argv.length) {
    const token = argv[index] ?? '';
    if (PROGRAM_VALUE_OPTIONS.includes(token)) {
      index += 2;
    } else if (PROGRAM_FLAGS.includes(token) || isAttachedProgramOption(token)) {
      index += 1;
    } else {
      break;
    }
  }
  const word = argv[index];
  if (word === undefined) return -1;
  if ((JOB_COMMAND_NAMES as readonly string[]).includes(word)) return index;
  const action = argv[index + 1];
  if (word === 'state' && action !== undefined) {
    return (JOB_STATE_ACTIONS as readonly string[]).includes(action) ? index : -1;
  }
  return -1;
}

/** `--config=X`, `-cX`, `-lDEBUG`, ... */
function isAttachedProgramOption(token: string): boolean {
  if (token.startsWith('--')) {
    const equals = token.indexOf('=');
    return equals > 0 && PROGRAM_VALUE_OPTIONS.includes(token.slice(0, equals));
  }
  return token.length > 2 && (token.startsWith('-c') || token.startsWith('-l'));
}
