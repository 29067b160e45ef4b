// The spawn helper's own program (docs/performance.md "The spawn path"; its messages:
// docs/performance.md "The native helper's protocol"): a small long-lived `node` the daemon forks
// once, which starts every job's process so that fork() copies the page
// tables of this small process instead of the daemon's growing heap, on another core. One IPC
// message per launch slice in, then: the pid (or the spawn error), each captured pipe's read end handed
// back over the channel (the daemon captures the output itself; nothing is copied through here),
// and the exit status. It loads nothing but node:child_process (and the dependency-free
// env-delta.ts and posix-id.ts), so it stays tiny.
// Must not: read a job's output (the pipes stop reading here before they are sent), exit on
// SIGINT/SIGTERM (a Ctrl-C reaches the whole foreground group; the daemon decides when to stop,
// and its running jobs' exit statuses come through here), outlive the daemon's channel.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import type { Socket } from 'node:net';
import { applyEnv, envBase, type EnvBase } from './env-delta.js';
import { posixIdProblem } from './posix-id.js';
import type { HelperLaunch, HelperReply, HelperRequest } from './spawn-helper-protocol.js';

/** What launches' environments are deltas from (`base-env`, before the first launch). */
let base: EnvBase = envBase({});
/** The runs started here whose exit is still to be sent: what stops that, by launch id. */
const running = new Map<number, () => void>();

const send = (reply: HelperReply, handle?: Socket): void => {
  if (!process.connected) return;
  if (handle === undefined) process.send?.(reply);
  else process.send?.(reply, handle, { keepOpen: false }, () => handle.destroy());
};

/** Stops libuv reading a pipe that is about to be handed over (its bytes belong to the daemon). */
function stopReading(socket: Socket | null): void {
  const handle = (socket as unknown as { _handle?: { reading?: boolean; readStop(): number } })
    ?._handle;
  if (handle === undefined) return;
  handle.reading = false;
  handle.readStop();
}

function launch(request: HelperLaunch): void {
  const options: SpawnOptions = {
    env: applyEnv(base, request.env),
    stdio: [
      'inherit',
      request.captureStdout ? 'pipe' : 'inherit',
      request.captureStderr ? 'pipe' : 'inherit',
    ],
    detached: true,
  };
  const fail = (error: unknown): void => {
    const { message, code } = error as NodeJS.ErrnoException;
    send({ type: 'failed', id: request.id, message: String(message), code: code ?? null });
  };
  // Never handed to spawn(): refused as the native helper refuses it, in the same words.
  const idProblem = posixIdProblem('uid', request.uid) ?? posixIdProblem('gid', request.gid);
  if (idProblem !== null) {
    fail(
      Object.assign(new Error(`spawn ${request.file} EINVAL: ${idProblem}`), { code: 'EINVAL' }),
    );
    return;
  }
  if (request.uid !== null) options.uid = request.uid;
  if (request.gid !== null) options.gid = request.gid;
  let child: ChildProcess;
  try {
    child = spawn(request.file, request.args, options);
  } catch (error) {
    fail(error);
    return;
  }
  if (child.pid === undefined) {
    child.once('error', fail);
    return;
  }
  child.on('error', () => undefined); // after the spawn only kill() errors, which are not ours
  // Piped stdio of a child process are net.Sockets over libuv pipes.
  const stdout = child.stdout as Socket | null;
  const stderr = child.stderr as Socket | null;
  stopReading(stdout);
  stopReading(stderr);
  send({ type: 'spawned', id: request.id, pid: child.pid });
  if (stdout) send({ type: 'pipe', id: request.id, stream: 'stdout' }, stdout);
  if (stderr) send({ type: 'pipe', id: request.id, stream: 'stderr' }, stderr);
  const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
    running.delete(request.id);
    send({ type: 'exit', id: request.id, code, signal });
  };
  child.once('exit', onExit);
  running.set(request.id, () => child.off('exit', onExit));
}

/** The daemon gave the run up: its exit is not sent (its pipes were the daemon's already). */
function forget(id: number): void {
  running.get(id)?.();
  running.delete(id);
}

process.on('message', (message: HelperRequest) => {
  switch (message.type) {
    case 'spawn':
      for (const request of message.launches) launch(request);
      break;
    case 'base-env':
      base = envBase(message.env);
      break;
    case 'forget':
      forget(message.id);
      break;
    case 'stop':
      // Not from inside this delivery: a message that came before the listener above is
      // delivered again from a 'newListener' tick, and Node reads the channel after it.
      queueMicrotask(() => process.disconnect());
      break;
  }
});
// The daemon is gone or done with us: the jobs started here run on in their own sessions.
process.on('disconnect', () => process.exit(0));
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
send({ type: 'ready' });
