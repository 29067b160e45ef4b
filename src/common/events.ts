// A tiny typed event emitter: observers (metrics, reports, SSE, tests) subscribe to typed
// events instead of scraping logs. A throwing listener is isolated from the emitter and its peers.

export type EventMap = Record<string, unknown>;
export type Listener<T> = (payload: T) => void;

export class TypedEmitter<Events extends EventMap> {
  #listeners = new Map<keyof Events, Set<Listener<never>>>();
  #onListenerError: (error: unknown, event: keyof Events) => void;

  constructor(onListenerError?: (error: unknown, event: keyof Events) => void) {
    this.#onListenerError =
      onListenerError ??
      ((error) =>
        queueMicrotask(() => {
          throw error;
        }));
  }

  /** Subscribe; returns the unsubscribe function. */
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Subscribe for one delivery only. */
  once<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    const off = this.on(event, (payload) => {
      off();
      listener(payload);
    });
    return off;
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as Listener<Events[K]>)(payload);
      } catch (error) {
        this.#onListenerError(error, event);
      }
    }
  }

  /** Resolve with the next payload of `event` that satisfies `predicate` (tests wait on this). */
  waitFor<K extends keyof Events>(
    event: K,
    predicate: (payload: Events[K]) => boolean = () => true,
    signal?: AbortSignal,
  ): Promise<Events[K]> {
    return new Promise((resolve, reject) => {
      const off = this.on(event, (payload) => {
        if (!predicate(payload)) return;
        off();
        resolve(payload);
      });
      signal?.addEventListener(
        'abort',
        () => {
          off();
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });
  }
}
