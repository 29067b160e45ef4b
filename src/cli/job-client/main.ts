// Entry of the job-facing commands (docs/cli.md "Job-facing commands") once route.ts has matched:
// splits off `--`, picks the command and action, parses, checks the run's environment and runs the
// handler. Only the one command module asked for is loaded; nothing of the daemon CLI is.
import { systemClock } from '../../common/index.js';
import { endpointFromEnv } from './endpoint.js';
import {
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_USAGE,
  type JobAction,
  type JobCommand,
  type JobProcess,
} from './job-command.js';
import { parseArgs } from './parse-args.js';
import type { JOB_COMMAND_NAMES } from './route.js';

type JobCommandName = (typeof JOB_COMMAND_NAMES)[number] | 'state';

const COMMANDS: Readonly<Record<JobCommandName, () => Promise<JobCommand>>> = {
  state: async () => (await import('../commands/job-state.js')).stateCommand,
  cursor: async () => (await import('../commands/job-cursor.js')).cursorCommand,
  idempotent: async () => (await import('../commands/job-idempotent.js')).idempotentCommand,
  lock: async () => (await import('../commands/job-lock.js')).lockCommand,
  artifact: async () => (await import('../commands/job-artifact.js')).artifactCommand,
  secret: async () => (await import('../commands/job-secret.js')).secretCommand,
  xcom: async () => (await import('../commands/job-xcom.js')).xcomCommand,
};

/** The real process: its env, streams and signals. */
export function processJobProcess(): JobProcess {
  return {
    env: process.env,
    clock: systemClock,
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    stdoutBytes: (bytes) =>
      new Promise((resolve, reject) =>
        process.stdout.write(bytes, (error) => (error ? reject(error) : resolve())),
      ),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    onSignal: (signal, listener) => {
      process.on(signal, listener);
      return () => void process.off(signal, listener);
    },
  };
}

/** Run `argv` (starting at the command word, e.g. `['state', 'get', 'k']`); the exit code. */
export async function runJobCli(
  argv: readonly string[],
  host: JobProcess = processJobProcess(),
): Promise<number> {
  // docs/cli.md "Job-facing commands": everything after the first `--` is CMD, legal only for `lock
  // run`.
  const dashDash = argv.indexOf('--');
  const words = dashDash < 0 ? argv : argv.slice(0, dashDash);
  const trailing = dashDash < 0 ? [] : argv.slice(dashDash + 1);
  const name = words[0] ?? '';
  if (dashDash >= 0 && !(name === 'lock' && words[1] === 'run')) {
    host.stderr('yacron2: error: `--` is only valid before a `lock run` command\n');
    return EXIT_USAGE;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name as JobCommandName] : undefined;
  if (load === undefined) {
    host.stderr(`yacron2: error: unknown job command '${name}'\n`);
    return EXIT_USAGE;
  }
  const command = await load();
  const prefix = `yacron2 ${command.name}`;

  const picked = pickAction(command, words.slice(1), host, prefix);
  if (typeof picked === 'number') return picked;
  const { action, tokens } = picked;
  const parsed = parseArgs(action, tokens, trailing);
  switch (parsed.kind) {
    case 'help':
      host.stdout(parsed.text);
      return EXIT_OK;
    case 'usage-error':
      host.stderr(`${parsed.usage}\n${action.usageName}: error: ${parsed.message}\n`);
      return EXIT_USAGE;
    case 'parsed':
      break;
  }

  const setup = endpointFromEnv(host.env, host.clock);
  if (setup.kind === 'missing') {
    host.stderr(
      `${prefix}: not running inside a yacron2 job: ${setup.variable} is not set ` +
        "(job commands talk to the daemon that launched the job, through the state section's job API)\n",
    );
    return EXIT_FAILURE;
  }
  try {
    return await action.run({ ...host, prefix, endpoint: setup.endpoint }, parsed.args);
  } catch (error) {
    host.stderr(
      `${prefix}: unexpected error: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    return EXIT_FAILURE;
  }
}

/** The action named by the first word (commands without actions take every word as tokens). */
function pickAction(
  command: JobCommand,
  words: readonly string[],
  host: JobProcess,
  prefix: string,
): { action: JobAction; tokens: readonly string[] } | number {
  const only = command.actions[0];
  if (command.actions.length === 1 && only !== undefined && only.name === null) {
    return { action: only, tokens: words };
  }
  const word = words[0];
  const names = command.actions.map((action) => action.name ?? '');
  if (word === undefined) {
    host.stderr(`${prefix}: no action given (see --help)\n`);
    return EXIT_USAGE;
  }
  if (word === '-h' || word === '--help') {
    host.stdout(commandHelp(command, prefix, names));
    return EXIT_OK;
  }
  const action = command.actions.find((candidate) => candidate.name === word);
  if (action === undefined) {
    const choices = names.map((choice) => `'${choice}'`).join(', ');
    host.stderr(
      `usage: ${prefix} [-h] {${names.join(',')}} ...\n` +
        `${prefix}: error: argument action: invalid choice: '${word}' (choose from ${choices})\n`,
    );
    return EXIT_USAGE;
  }
  return { action, tokens: words.slice(1) };
}

function commandHelp(command: JobCommand, prefix: string, names: readonly string[]): string {
  const width = Math.max(...names.map((name) => name.length)) + 2;
  const lines = [
    `usage: ${prefix} [-h] {${names.join(',')}} ...`,
    '',
    command.summary,
    '',
    'actions:',
  ];
  for (const action of command.actions) {
    lines.push(`  ${(action.name ?? '').padEnd(width)}${action.summary}`);
  }
  lines.push('', `\`${prefix} ACTION --help\` shows the flags of one action.`);
  return `${lines.join('\n')}\n`;
}
