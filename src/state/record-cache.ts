// Parsed records by file path. Records are immutable and their names unique, so a parsed record
// stays valid for as long as its file is listed; the directory listing, read fresh on every call,
// remains the truth about which records exist. Bounded by bytes (LRU); big records are not kept.
import { deepFreeze } from '../common/index.js';
import type { StateRecord } from './types.js';

/** Records larger than this (archived output, say) are re-read rather than cached. */
const MAX_CACHED_RECORD_BYTES = 64 * 1024;

export class RecordCache {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, { record: StateRecord; bytes: number }>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get(key: string): StateRecord | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.record;
  }

  /** Keep `record` (frozen: callers share it) when it is small enough. */
  set(key: string, record: StateRecord, bytes: number): StateRecord {
    if (bytes > MAX_CACHED_RECORD_BYTES || this.#maxBytes <= 0) return record;
    deepFreeze(record);
    this.delete(key);
    this.#entries.set(key, { record, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
    return record;
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  /** Forget every record under `prefix` (a deleted stream directory). */
  deletePrefix(prefix: string): void {
    for (const key of [...this.#entries.keys()]) if (key.startsWith(prefix)) this.delete(key);
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}
