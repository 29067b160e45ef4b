// The messages between the daemon and its spawn helper, as TypeScript types. The protocol itself
// (every message kind, its direction and fields, the framing, limits and errors) is described
// once, in docs/performance.md "The native helper's protocol", which this side, the Node helper
// and native/spawn-helper.c all follow: change it there first. JSON over the fork IPC channel; a
// `pipe` reply carries the pipe's read end as the message's handle (the native helper's are held
// pipes). Types only: the helper program imports nothing else of yacron2 but the dependency-free
// env-delta.ts and posix-id.ts.
import type { EnvPayload } from './env-delta.js';
import type { OutputStream } from './types.js';

/** One launch: the daemon's launch number (echoed in every reply about it) and the process. */
export interface HelperLaunch {
  readonly id: number;
  readonly file: string;
  readonly args: readonly string[];
  /** The child's environment, as a delta from the last `base-env` (or whole). */
  readonly env: EnvPayload;
  readonly captureStdout: boolean;
  readonly captureStderr: boolean;
  /** null: no switch. Else 0..4294967294 (posix-id.ts); both helpers refuse any other value. */
  readonly uid: number | null;
  readonly gid: number | null;
}

export type HelperRequest =
  /** The launches of one synchronous stretch of the daemon (a launch slice), in order. */
  | { readonly type: 'spawn'; readonly launches: readonly HelperLaunch[] }
  /**
   * The environment launches are described against (env-delta.ts); sent once after each fork,
   * before any `spawn` (the channel keeps the order). The helper's own is not the daemon's.
   */
  | { readonly type: 'base-env'; readonly env: Readonly<Record<string, string>> }
  /**
   * The daemon gave run `id` up (it stopped reading its output: a process outside the run's group
   * holds it open): the helper drops all it still holds for the run (the native one its copies of
   * the held pipes) and sends nothing more about it.
   */
  | { readonly type: 'forget'; readonly id: number }
  | { readonly type: 'stop' };

export type HelperReply =
  | { readonly type: 'ready' }
  | { readonly type: 'spawned'; readonly id: number; readonly pid: number }
  /**
   * A captured pipe's read end (the message's handle; none: it was lost). From the Node helper a
   * `net.Socket`, to read at once. From the native helper `held`: a raw handle the daemon keeps
   * unread until `output` says there is something to read, or closes on `empty`.
   */
  | {
      readonly type: 'pipe';
      readonly id: number;
      readonly stream: OutputStream;
      readonly held?: true;
    }
  /** A held pipe has output: wrap it in a socket and read it. */
  | { readonly type: 'output'; readonly id: number; readonly stream: OutputStream }
  /** A held pipe ended without a byte: close it. */
  | { readonly type: 'empty'; readonly id: number; readonly stream: OutputStream }
  | {
      readonly type: 'failed';
      readonly id: number;
      readonly message: string;
      readonly code: string | null;
    }
  | {
      readonly type: 'exit';
      readonly id: number;
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      /** Held pipes that had ended empty by the exit (as if `empty` had come for each first). */
      readonly empty?: readonly OutputStream[];
    };
