// Every store call of the job API goes through here: first (once) the wait for the store to be
// open, then the call itself, each bounded by the seed's 10 s, and any failure becomes the 503
// `state backend unavailable: ...` of docs/http-api.md "The job API". A name or value the store
// refuses is the caller's fault (400), not the backend's.
import { describeError, httpStatusOf, isYacronError, type Clock } from '../common/index.js';
import type { StateStore } from '../state/index.js';
import { withTimeout } from '../state/index.js';
import { ApiError } from './api-error.js';

/** The seed's bound on one store call made for a job. */
export const STORE_CALL_TIMEOUT_MS = 10_000;

export class StoreGate {
  readonly #store: StateStore;
  readonly #storeOpened: Promise<boolean>;
  readonly #clock: Clock;
  #open = false;

  constructor(store: StateStore, storeOpened: Promise<boolean>, clock: Clock) {
    this.#store = store;
    this.#storeOpened = storeOpened;
    this.#clock = clock;
  }

  /** Run `work` on the open store, bounded; `what` completes "Cannot <what>: ..." messages. */
  async call<T>(what: string, work: (store: StateStore) => Promise<T>): Promise<T> {
    if (!this.#open) await this.#waitOpen();
    try {
      return await withTimeout(work(this.#store), STORE_CALL_TIMEOUT_MS, this.#clock, what);
    } catch (error) {
      // The store's refusals of a name or value are the client's fault (400 in the one table).
      if (isYacronError(error) && httpStatusOf(error) === 400) {
        throw new ApiError('YC_ERR_REQUEST_INVALID', describeError(error));
      }
      throw unavailable(describeError(error));
    }
  }

  async #waitOpen(): Promise<void> {
    let opened: boolean;
    try {
      opened = await withTimeout(
        this.#storeOpened,
        STORE_CALL_TIMEOUT_MS,
        this.#clock,
        'open the state store',
      );
    } catch (error) {
      throw unavailable(describeError(error));
    }
    if (!opened) throw unavailable('the state store is closed');
    this.#open = true;
  }
}

export function unavailable(detail: string): ApiError {
  return new ApiError('YC_ERR_STATE_UNAVAILABLE', `state backend unavailable: ${detail}`);
}
