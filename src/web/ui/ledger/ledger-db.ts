// The run ledger's storage (docs/dashboard.md "Run ledger, notifications and cues"): one
// IndexedDB database of this origin, `yacron2-run-ledger`, one object store of rows keyed by
// their id. Best effort: without IndexedDB (a private window, a quota, a browser that refuses)
// open() answers null and the ledger lives in memory only; a failed write loses that write.
// Must not: send anything anywhere — the rows stay in this browser.
const DB_NAME = 'yacron2-run-ledger';
const STORE = 'runs';

function done(request: IDBRequest): Promise<void> {
  return new Promise((resolve) => {
    request.addEventListener('success', () => resolve());
    request.addEventListener('error', () => resolve());
  });
}

export class LedgerDb {
  readonly #db: IDBDatabase;

  private constructor(db: IDBDatabase) {
    this.#db = db;
  }

  static open(): Promise<LedgerDb | null> {
    return new Promise((resolve) => {
      let request: IDBOpenDBRequest;
      try {
        request = indexedDB.open(DB_NAME, 1);
      } catch {
        resolve(null);
        return;
      }
      request.addEventListener('upgradeneeded', () => {
        if (!request.result.objectStoreNames.contains(STORE))
          request.result.createObjectStore(STORE, { keyPath: 'id' });
      });
      request.addEventListener('success', () => resolve(new LedgerDb(request.result)));
      request.addEventListener('error', () => resolve(null));
      request.addEventListener('blocked', () => resolve(null));
    });
  }

  /** Every stored row, unchecked (the caller parses them). */
  async loadAll(): Promise<unknown[]> {
    try {
      const request = this.#db.transaction(STORE, 'readonly').objectStore(STORE).getAll();
      await done(request);
      const rows: unknown = request.result;
      const list: unknown[] = [];
      if (Array.isArray(rows)) for (const row of rows) list.push(row);
      return list;
    } catch {
      return [];
    }
  }

  /** Stores `rows` and deletes `ids` in one transaction; resolves when it ended either way. */
  write(rows: readonly object[], ids: readonly string[]): Promise<void> {
    if (rows.length === 0 && ids.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      try {
        const transaction = this.#db.transaction(STORE, 'readwrite');
        const store = transaction.objectStore(STORE);
        for (const id of ids) store.delete(id);
        for (const row of rows) store.put(row);
        transaction.addEventListener('complete', () => resolve());
        transaction.addEventListener('error', () => resolve());
        transaction.addEventListener('abort', () => resolve());
      } catch {
        resolve();
      }
    });
  }

  async clear(): Promise<void> {
    try {
      await done(this.#db.transaction(STORE, 'readwrite').objectStore(STORE).clear());
    } catch {
      // Nothing stored to clear.
    }
  }
}
