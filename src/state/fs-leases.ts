// Leases on disk: leases/<encoded name>.json holds {holder, fence, expiresAtMs}; every
// read-modify-write runs under a flock of the dedicated leases/<encoded name>.lock (never the
// data file, which each write replaces by rename). The lease file is the fence counter's only
// home, so it is fsynced (file and directory) on every write, never reset, and an unreadable
// lease file is an error (YC_ERR_STATE_CORRUPT), never "absent": guessing would restart the
// fence at 1 and let two tenures share a fence value.
import { readdir, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { YacronError, describeError } from '../common/errors.js';
import { LOCK_SUFFIX } from './fs-docs.js';
import type { FsContext } from './fs-context.js';
import { errorCode, readCapped, syncDir, writeAtomic } from './fs-files.js';
import { decideAcquire, decideRelease, decideRenew, type LeaseDecision } from './lease-logic.js';
import { decodeName, encodeName, isHashedEncoding } from './name-encoding.js';
import { parseEnvelope, serializeEnvelope } from './record-format.js';
import { filterPrefix, validateLeaseName, validateStreamName } from './store-checks.js';
import type { LeaseResult, LeaseState } from './types.js';

const LEASE_SUFFIX = '.json';
/** Lease files are tiny; anything bigger is not ours. */
const MAX_LEASE_BYTES = 64 * 1024;

function isLeaseState(data: unknown): data is LeaseState {
  const lease = data as Partial<LeaseState> | null;
  return (
    typeof lease === 'object' &&
    lease !== null &&
    typeof lease.name === 'string' &&
    (lease.holder === null || typeof lease.holder === 'string') &&
    Number.isSafeInteger(lease.fence) &&
    typeof lease.expiresAtMs === 'number' &&
    typeof lease.updatedAtMs === 'number'
  );
}

export class FsLeases {
  readonly #ctx: FsContext;

  constructor(ctx: FsContext) {
    this.#ctx = ctx;
  }

  #paths(name: string): { file: string; lock: string } {
    const base = path.join(this.#ctx.layout.leases, encodeName(name, 'lease'));
    return { file: `${base}${LEASE_SUFFIX}`, lock: `${base}${LOCK_SUFFIX}` };
  }

  async #read(file: string): Promise<LeaseState | undefined> {
    const verdict = await readCapped(file, MAX_LEASE_BYTES);
    if (verdict.kind === 'missing') return undefined;
    if (verdict.kind === 'io-error') {
      throw new YacronError('YC_ERR_STATE_IO', `Cannot read lease ${file}: ${verdict.detail}`);
    }
    const parsed = verdict.kind === 'ok' ? parseEnvelope(verdict.text) : undefined;
    if (parsed?.ok && isLeaseState(parsed.data)) return parsed.data;
    const detail =
      verdict.kind === 'bad'
        ? verdict.detail
        : parsed && !parsed.ok
          ? parsed.detail
          : 'not a lease';
    this.#ctx.logger.error(
      { path: file, detail },
      `Cannot read lease ${file}: ${detail}; refusing to guess its fence (fix or remove the file)`,
    );
    throw new YacronError('YC_ERR_STATE_CORRUPT', `Cannot read lease ${file}: ${detail}`);
  }

  async #mutate(
    name: string,
    decide: (current: LeaseState | undefined, nowMs: number) => LeaseDecision,
  ): Promise<LeaseResult> {
    const { file, lock } = this.#paths(name);
    return this.#ctx.withLock(lock, async () => {
      const decision = decide(await this.#read(file), this.#ctx.clock.now());
      if (decision.next) await this.#write(file, decision.next);
      return decision.result;
    });
  }

  async #write(file: string, lease: LeaseState): Promise<void> {
    const text = serializeEnvelope(lease, `lease ${lease.name}`);
    await writeAtomic(this.#ctx.layout.tmp, `${this.#ctx.ids.token()}.lease.tmp`, file, text, {
      durable: true,
    });
  }

  acquire(name: string, holder: string, ttlMs: number): Promise<LeaseResult> {
    validateLeaseName(name, holder, ttlMs);
    return this.#mutate(name, (current, nowMs) =>
      decideAcquire(name, current, holder, ttlMs, nowMs),
    );
  }

  renew(name: string, holder: string, fence: number, ttlMs: number): Promise<LeaseResult> {
    validateLeaseName(name, holder, ttlMs);
    return this.#mutate(name, (current, nowMs) =>
      decideRenew(current, holder, fence, ttlMs, nowMs),
    );
  }

  async release(name: string, holder: string, fence: number): Promise<boolean> {
    validateLeaseName(name, holder, 1);
    let released = false;
    await this.#mutate(name, (current, nowMs) => {
      const decision = decideRelease(current, holder, fence, nowMs);
      released = decision.released;
      return {
        next: decision.next,
        result: { acquired: false, holder: null, fence, expiresAtMs: 0, fresh: false },
      };
    });
    return released;
  }

  inspect(name: string): Promise<LeaseState | undefined> {
    validateStreamName(name, 'lease');
    return this.#read(this.#paths(name).file);
  }

  async list(prefix?: string): Promise<LeaseState[]> {
    const byName = new Map<string, LeaseState>();
    for (const entry of await this.#entries()) {
      if (!entry.endsWith(LEASE_SUFFIX) || entry.startsWith('.')) continue;
      const encoded = entry.slice(0, -LEASE_SUFFIX.length);
      if (!isHashedEncoding(encoded) && decodeName(encoded) === undefined) continue;
      try {
        const lease = await this.#read(path.join(this.#ctx.layout.leases, entry));
        if (lease && encodeName(lease.name) === encoded) byName.set(lease.name, lease);
      } catch {
        // Already logged by #read; a listing skips the unreadable lease.
      }
    }
    return filterPrefix(byName.keys(), prefix).map((name) => byName.get(name)!);
  }

  /** Delete the lease file and then its lock file, holding the lock (waiters re-open). */
  async delete(name: string): Promise<boolean> {
    validateStreamName(name, 'lease');
    const { file, lock } = this.#paths(name);
    return this.#ctx.withLock(lock, async () => {
      let existed = true;
      try {
        await unlink(file);
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
        existed = false;
      }
      await unlink(lock).catch(() => undefined);
      await syncDir(this.#ctx.layout.leases);
      return existed;
    });
  }

  /** Lease files on disk (describe()). */
  async count(): Promise<number> {
    return (await this.#entries()).filter(
      (entry) => entry.endsWith(LEASE_SUFFIX) && !entry.startsWith('.'),
    ).length;
  }

  async #entries(): Promise<string[]> {
    try {
      return await readdir(this.#ctx.layout.leases);
    } catch (error) {
      throw new YacronError('YC_ERR_STATE_IO', `Cannot list leases: ${describeError(error)}`, {
        cause: error,
      });
    }
  }
}
