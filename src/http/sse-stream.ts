// One server-sent-events response with bounded memory: events are written straight to the
// response, and a client that lets more than `maxQueuedBytes` pile up (it reads slower than
// events arrive) is cut off with an `end` event whose reason is `slow-consumer`; its socket is
// destroyed if it does not take even that within `closeGraceMs`. The initial replay keeps only
// the newest events that fit half the bound. A `: ping` comment goes out after `keepAliveMs`
// without an event (docs/http-api.md "Streams").
import type { Clock, TimerHandle } from '../common/index.js';
import type { StreamLimits } from './types.js';

/** The part of a ServerResponse the stream writes to. */
export interface SseSink {
  write(chunk: string): boolean;
  /** Bytes accepted but not yet handed to the kernel. */
  readonly writableLength: number;
  end(): void;
  destroy(): void;
  /** The connection (a finished response no longer closes it when destroyed). */
  readonly socket: { destroy(): void } | null;
  once(event: 'close' | 'finish', listener: () => void): unknown;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  maxQueuedBytes: 1024 * 1024,
  maxStreams: 256,
  maxStreamsPerClient: 16,
  closeGraceMs: 5_000,
  keepAliveMs: 15_000,
};

/** `{"reason": "slow-consumer"}`, spaced like the reference's json.dumps. */
export const SLOW_CONSUMER_END = '{"reason": "slow-consumer"}';

export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

export function formatEvent(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}

export class SseStream {
  readonly #sink: SseSink;
  readonly #clock: Clock;
  readonly #limits: StreamLimits;
  readonly #onClose: (() => void)[] = [];
  #closed = false;
  #lastWriteMs: number;
  #keepAlive: TimerHandle | null = null;
  #destroyTimer: TimerHandle | null = null;
  /** Events that could not be delivered because the client was cut off. */
  dropped = 0;

  constructor(sink: SseSink, clock: Clock, limits: StreamLimits) {
    this.#sink = sink;
    this.#clock = clock;
    this.#limits = limits;
    this.#lastWriteMs = clock.monotonic();
    sink.once('close', () => this.#finish());
    this.#armKeepAlive(limits.keepAliveMs);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Run `callback` once when the stream closes (client gone, ended, or cut off). */
  onClose(callback: () => void): void {
    if (this.#closed) callback();
    else this.#onClose.push(callback);
  }

  send(event: string, data: string): void {
    this.#write(formatEvent(event, data));
  }

  /**
   * The initial replay, oldest first, in one write: only the newest events whose bytes fit half
   * of maxQueuedBytes, so the replay alone never takes the stream near its bound and live events
   * keep the other half. Returns how many (older) events were left out.
   */
  replay(events: readonly SseEvent[]): number {
    if (this.#closed) return events.length;
    const budget = Math.floor(this.#limits.maxQueuedBytes / 2);
    const chunks: string[] = [];
    let used = 0;
    let first = events.length;
    for (let index = events.length - 1; index >= 0; index--) {
      const event = events[index];
      if (event === undefined) break;
      const chunk = formatEvent(event.event, event.data);
      used += Buffer.byteLength(chunk, 'utf8');
      if (used > budget) break;
      chunks.push(chunk);
      first = index;
    }
    if (chunks.length > 0) {
      this.#sink.write(chunks.reverse().join(''));
      this.#lastWriteMs = this.#clock.monotonic();
    }
    return first;
  }

  /** Write a last event (if any) and end the response. */
  end(last?: { readonly event: string; readonly data: string }): void {
    if (this.#closed) return;
    if (last) this.#write(formatEvent(last.event, last.data));
    if (this.#closed) return; // cut off while writing the last event
    this.#finish();
    this.#sink.end();
  }

  #write(chunk: string): void {
    if (this.#closed) {
      this.dropped++;
      return;
    }
    if (this.#sink.writableLength + chunk.length > this.#limits.maxQueuedBytes) {
      this.dropped++;
      this.#cutOff();
      return;
    }
    this.#sink.write(chunk);
    this.#lastWriteMs = this.#clock.monotonic();
  }

  #cutOff(): void {
    this.#finish();
    // The marker itself is small; it is queued behind what the client has not read yet.
    const socket = this.#sink.socket;
    this.#sink.write(formatEvent('end', SLOW_CONSUMER_END));
    this.#sink.end();
    // Once the marker reached the kernel the connection goes too (no keep-alive reuse of a
    // connection that could not keep up); if it never gets there, the grace timer destroys it.
    const destroy = (): void => {
      this.#destroyTimer?.cancel();
      if (socket) socket.destroy();
      else this.#sink.destroy();
    };
    this.#sink.once('finish', destroy);
    this.#destroyTimer = this.#clock.setTimer(destroy, this.#limits.closeGraceMs);
  }

  #armKeepAlive(delayMs: number): void {
    this.#keepAlive = this.#clock.setTimer(() => {
      if (this.#closed) return;
      const idleMs = this.#clock.monotonic() - this.#lastWriteMs;
      if (idleMs >= this.#limits.keepAliveMs) {
        this.#write(': ping\n\n');
        if (this.#closed) return;
        this.#armKeepAlive(this.#limits.keepAliveMs);
      } else {
        this.#armKeepAlive(this.#limits.keepAliveMs - idleMs);
      }
    }, delayMs);
  }

  /** Mark closed, stop timers and run the close callbacks, once. */
  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#keepAlive?.cancel();
    this.#keepAlive = null;
    const callbacks = this.#onClose.splice(0);
    for (const callback of callbacks) callback();
  }
}
