// How many server-sent-event streams may be open (docs/http-api.md "Slow clients"): in total,
// across every listener of the web controller, and per client address. A stream takes a permit
// before its response starts and gives it back when it closes. Pure bookkeeping, no I/O.

export interface StreamPermitLimits {
  /** Open streams across all listeners. */
  readonly maxStreams: number;
  /** Open streams per client IP address (unix-socket clients count only in the total). */
  readonly maxStreamsPerClient: number;
}

export type PermitGrant =
  | { readonly kind: 'granted'; readonly release: () => void }
  | { readonly kind: 'client-full' }
  | { readonly kind: 'total-full' };

export class StreamPermits {
  readonly #limits: StreamPermitLimits;
  readonly #byClient = new Map<string, number>();
  #open = 0;

  constructor(limits: StreamPermitLimits) {
    this.#limits = limits;
  }

  get open(): number {
    return this.#open;
  }

  /** A permit for a stream of `client` (its address; null = a unix-socket peer). */
  acquire(client: string | null): PermitGrant {
    const ofClient = client === null ? 0 : (this.#byClient.get(client) ?? 0);
    if (client !== null && ofClient >= this.#limits.maxStreamsPerClient) {
      return { kind: 'client-full' };
    }
    if (this.#open >= this.#limits.maxStreams) return { kind: 'total-full' };
    this.#open += 1;
    if (client !== null) this.#byClient.set(client, ofClient + 1);
    let released = false;
    return {
      kind: 'granted',
      release: () => {
        if (released) return;
        released = true;
        this.#open -= 1;
        if (client === null) return;
        const left = (this.#byClient.get(client) ?? 1) - 1;
        if (left === 0) this.#byClient.delete(client);
        else this.#byClient.set(client, left);
      },
    };
  }
}
