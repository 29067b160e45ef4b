// `yacron2 lock acquire|release|run`: a fleet-wide mutex or semaphore held by the daemon on the
// run's behalf (docs/cli.md "Job-facing commands", docs/http-api.md "The job API" lock/*). `lock
// run` wraps a command: acquire, run it with inherited stdio, forward SIGTERM/SIGINT to it, always
// release, exit with its code.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { REQUEST_TIMEOUT_MS, type EndpointReply } from '../job-client/endpoint.js';
import {
  EXIT_FAILURE,
  EXIT_LOCK_NOT_ACQUIRED,
  EXIT_OK,
  fail,
  jsonBody,
  requestJson,
  scopeOf,
  type JobAction,
  type JobCommand,
  type JobContext,
} from '../job-client/job-command.js';
import { acknowledgement, acquireReply, decodeReply } from '../job-client/wire.js';
import type { OptionSpec, ParsedArgs } from '../job-client/parse-args.js';

const NAME = { name: 'NAME', help: 'the lock name' } as const;

const ACQUIRE_OPTIONS: readonly OptionSpec[] = [
  {
    key: 'permits',
    long: '--permits',
    kind: 'int',
    metavar: 'N',
    help: 'up to N holders at once (a semaphore); default 1 (a mutex)',
  },
  {
    key: 'wait',
    long: '--wait',
    kind: 'flag',
    help: 'wait for a free permit, up to --timeout seconds',
  },
  {
    key: 'timeout',
    long: '--timeout',
    kind: 'float',
    metavar: 'SECONDS',
    help: 'how long --wait waits (default 0.0)',
  },
  {
    key: 'ttl',
    long: '--ttl',
    kind: 'float',
    metavar: 'SECONDS',
    help: "the lease's TTL (default: the daemon's state.jobApi.lockTtlSeconds)",
  },
];

interface Hold {
  readonly token: string;
}

/** POST lock/acquire, as asked by the acquire flags. */
function requestAcquire(
  context: JobContext,
  args: ParsedArgs,
  signal?: AbortSignal,
): Promise<EndpointReply> {
  const wait = args.flag('wait');
  const blockSeconds = args.number('timeout') ?? 0;
  const ttl = args.number('ttl');
  return context.endpoint.send({
    method: 'POST',
    path: '/v1/lock/acquire',
    json: {
      ...scopeOf(args),
      name: args.positional(0),
      permits: args.number('permits') ?? 1,
      wait,
      blockSeconds,
      ...(ttl === undefined ? {} : { ttl }),
    },
    // A waiting acquire may legitimately take --timeout seconds before the endpoint answers.
    timeoutMs: REQUEST_TIMEOUT_MS + (wait ? Math.max(0, blockSeconds) * 1000 : 0),
    ...(signal === undefined ? {} : { signal }),
  });
}

/** The hold of an acquire reply, or the exit code after saying why there is none (3 = taken). */
function holdOf(context: JobContext, args: ParsedArgs, reply: EndpointReply): Hold | number {
  const body = jsonBody(context, reply, acquireReply);
  if (typeof body === 'number') return body;
  if (!body.acquired) {
    return fail(context, `lock not acquired: ${args.positional(0)}`, EXIT_LOCK_NOT_ACQUIRED);
  }
  return { token: body.token };
}

/** POST lock/release; exit 0 whether or not the token was still held. */
async function release(context: JobContext, token: string): Promise<number> {
  const body = await requestJson(
    context,
    {
      method: 'POST',
      path: '/v1/lock/release',
      json: { token },
    },
    acknowledgement,
  );
  return typeof body === 'number' ? body : EXIT_OK;
}

/** The token of a successful acquire reply, else null; prints nothing. */
function grantedToken(reply: EndpointReply): string | null {
  if (reply.kind !== 'reply' || reply.status !== 200) return null;
  const body = decodeReply(reply.body.toString('utf8'), acquireReply);
  return body?.acquired === true ? body.token : null;
}

/** A process killed by signal N exits 128 + N, as a shell reports it. */
function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

const acquireAction: JobAction = {
  name: 'acquire',
  usageName: 'yacron2 lock acquire',
  summary: 'Take a permit of lock NAME and print its hold token (exit 3 when none is free).',
  positionals: [NAME],
  options: ACQUIRE_OPTIONS,
  scoped: true,
  async run(context, args) {
    const hold = holdOf(context, args, await requestAcquire(context, args));
    if (typeof hold === 'number') return hold;
    context.stdout(`${hold.token}\n`);
    return EXIT_OK;
  },
};

const releaseAction: JobAction = {
  name: 'release',
  usageName: 'yacron2 lock release',
  summary: 'Give back the permit of TOKEN (exit 0 even if it was not held).',
  positionals: [{ name: 'TOKEN', help: 'the hold token printed by `lock acquire`' }],
  options: [],
  scoped: false,
  run: (context, args) => release(context, args.positional(0)),
};

const runAction: JobAction = {
  name: 'run',
  usageName: 'yacron2 lock run',
  summary:
    "Hold lock NAME while CMD runs, then release it; exit with CMD's code (3 when not acquired).",
  positionals: [NAME],
  options: ACQUIRE_OPTIONS,
  scoped: true,
  takesCommand: true,
  async run(context, args) {
    const [file, ...commandArgs] = args.command;
    // Checked before acquiring (docs/cli.md "Job-facing commands"): nothing is taken for a command
    // that is not there.
    if (file === undefined) {
      return fail(
        context,
        'no command given: usage: yacron2 lock run NAME [flags] -- CMD [ARG ...]',
      );
    }
    let child: ChildProcess | null = null;
    let earlySignal: NodeJS.Signals | null = null;
    const interrupt = new AbortController();
    const forward = (signal: 'SIGTERM' | 'SIGINT') => (): void => {
      if (child !== null) {
        child.kill(signal);
      } else if (earlySignal === null) {
        // Before CMD started: stop waiting for the lock and leave like the signal would.
        earlySignal = signal;
        interrupt.abort();
      }
    };
    const unsubscribe = [
      context.onSignal('SIGTERM', forward('SIGTERM')),
      context.onSignal('SIGINT', forward('SIGINT')),
    ];
    try {
      const reply = await requestAcquire(context, args, interrupt.signal);
      if (earlySignal !== null) {
        // Interrupted while waiting: quietly give back a permit that was granted meanwhile.
        const token = grantedToken(reply);
        if (token !== null) await release(context, token);
        return signalExitCode(earlySignal);
      }
      const hold = holdOf(context, args, reply);
      if (typeof hold === 'number') return hold;
      try {
        const started = spawn(file, commandArgs, { stdio: 'inherit' });
        child = started;
        return await exitCodeOf(context, started, file);
      } finally {
        await release(context, hold.token);
      }
    } finally {
      for (const stop of unsubscribe) stop();
    }
  },
};

/** CMD's exit code; 128 + N when a signal ended it; 1 (with the reason) when it never ran. */
function exitCodeOf(context: JobContext, child: ChildProcess, file: string): Promise<number> {
  return new Promise((resolve) => {
    let settled = false;
    // 'error' is a spawn failure before 'exit', or a failed kill() after it (then ignored).
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      resolve(fail(context, `cannot run ${file}: ${error.message}`, EXIT_FAILURE));
    });
    child.once('exit', (code, signal) => {
      if (settled) return;
      settled = true;
      resolve(code ?? (signal === null ? EXIT_FAILURE : signalExitCode(signal)));
    });
  });
}

export const lockCommand: JobCommand = {
  name: 'lock',
  summary: 'A fleet-wide mutex or semaphore, held by the daemon for this run.',
  actions: [acquireAction, releaseAction, runAction],
};
