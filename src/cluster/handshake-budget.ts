// Who may hold a connection to the /peer listener (docs/clustering.md "The peer endpoint"). A
// connection that has not finished its TLS handshake proves nothing, so it gets its own small
// budget: a few per source address and a few dozen in all, the oldest evicted first when a new
// one comes. Only a connection that finished the handshake (a certificate the cluster CA signed)
// counts against the cap of established peer connections. So idle TCP sockets from anyone who
// can reach the port cannot use up the connections real peers need: they only ever push out
// each other, and the newest connection (a real poller's) always gets its handshake started.
// Pure bookkeeping: the listener destroys what this returns.
// Must not: count a pending connection against the established cap, or keep a closed one.

export interface HandshakeLimits {
  /** Pending (pre-handshake) connections one source address may hold. */
  readonly pendingPerSource: number;
  /** Pending connections in all. */
  readonly pendingTotal: number;
  /** Connections that finished the handshake. */
  readonly established: number;
}

export const PEER_HANDSHAKE_LIMITS: HandshakeLimits = {
  pendingPerSource: 8,
  pendingTotal: 64,
  established: 256,
};

export class HandshakeBudget<C> {
  readonly #limits: HandshakeLimits;
  /** Pending connections in arrival order (a Map keeps insertion order), with their source. */
  readonly #pending = new Map<C, string>();
  readonly #pendingBySource = new Map<string, C[]>();
  readonly #established = new Set<C>();

  constructor(limits: HandshakeLimits) {
    this.#limits = limits;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  get establishedCount(): number {
    return this.#established.size;
  }

  /**
   * A new connection from `source`, before its handshake. Returns the pending connections to
   * close to make room (the source's oldest when it is over its share, else the oldest overall).
   */
  admit(connection: C, source: string): C[] {
    const evicted: C[] = [];
    const fromSource = this.#pendingBySource.get(source) ?? [];
    while (fromSource.length >= this.#limits.pendingPerSource) {
      const oldest = fromSource[0]!;
      this.#forgetPending(oldest);
      evicted.push(oldest);
    }
    while (this.#pending.size >= this.#limits.pendingTotal) {
      const oldest = this.#pending.keys().next().value as C;
      this.#forgetPending(oldest);
      evicted.push(oldest);
    }
    this.#pending.set(connection, source);
    const list = this.#pendingBySource.get(source);
    if (list) list.push(connection);
    else this.#pendingBySource.set(source, [connection]);
    return evicted;
  }

  /**
   * The connection finished its handshake. False when it must be closed: it is not pending (it
   * was evicted meanwhile) or the established connections are at their cap.
   */
  established(connection: C): boolean {
    if (!this.#pending.has(connection)) return false;
    this.#forgetPending(connection);
    if (this.#established.size >= this.#limits.established) return false;
    this.#established.add(connection);
    return true;
  }

  /** The connection closed, whatever its state. */
  closed(connection: C): void {
    this.#forgetPending(connection);
    this.#established.delete(connection);
  }

  #forgetPending(connection: C): void {
    const source = this.#pending.get(connection);
    if (source === undefined) return;
    this.#pending.delete(connection);
    const list = this.#pendingBySource.get(source)!;
    list.splice(list.indexOf(connection), 1);
    if (list.length === 0) this.#pendingBySource.delete(source);
  }
}
