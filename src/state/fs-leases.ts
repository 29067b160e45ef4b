// Leases on disk, in the reference's exact shape (docs/durable-state-store.md "Leases and
// fences"): leases/<enc(name)>.lease holding `{"expiresAt":<float epoch s>,"fence":<int>,
// "holder":<str>,"name":<str>}` with no envelope, and the lock side file leases/<enc>.lock
// that every read-modify-write flocks (never the data file, which each write replaces by
// rename). The lease file is the fence counter's only home, so it is fsynced (file and
// directory) on every write, never reset, and an unreadable one is an error
// (YC_ERR_STATE_CORRUPT), never "absent": guessing would restart the fence at 1.
import { readdir, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { YacronError, describeError, pyFloat, pythonFloatRepr } from '../common/index.js';
import type { FsContext } from './fs-context.js';
import { LOCK_SUFFIX } from './fs-docs.js';
import { errorCode, readCapped, writeAtomic } from './fs-files.js';
import { decideAcquire, decideRelease, decideRenew, type LeaseDecision } from './lease-logic.js';
import { encodeName, encodeStoreName } from './name-encoding.js';
import { parsePythonFloat, serializeBody } from './record-format.js';
import { filterPrefix, validateLeaseName, validateStreamName } from './store-checks.js';
import type { LeaseResult, LeaseState } from './types.js';

export const LEASE_SUFFIX = '.lease';
/** Lease files are tiny; anything bigger is not one. */
const MAX_LEASE_BYTES = 64 * 1024;

/** The lease file's bytes, exactly as the reference writes them. */
export function serializeLease(lease: LeaseState): string {
  return serializeBody(
    {
      expiresAt: pyFloat(lease.expiresAtMs / 1000),
      fence: lease.fence,
      holder: lease.holder,
      name: lease.name,
    },
    `lease ${lease.name}`,
  );
}

/**
 * The reference's lenient reading: any object whose four fields convert with Python's str(),
 * int() and float(). Undefined for anything else (corrupt).
 */
export function parseLease(text: string, mtimeMs: number): LeaseState | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const body = parsed as Record<string, unknown>;
  const name = pythonStr(body.name);
  const holder = pythonStr(body.holder);
  const fence = pythonInt(body.fence);
  const expiresAt = pythonFloat(body.expiresAt);
  if (name === undefined || holder === undefined || fence === undefined) return undefined;
  if (expiresAt === undefined || Number.isNaN(expiresAt)) return undefined;
  return {
    name,
    holder,
    fence,
    expiresAtMs: Number.isFinite(expiresAt) ? Math.round(expiresAt * 1e6) / 1e3 : expiresAt,
    updatedAtMs: mtimeMs,
  };
}

function pythonStr(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') {
    return Number.isInteger(value) ? String(value) : pythonFloatRepr(value);
  }
  return undefined; // containers: their Python repr is not worth guessing
}

function pythonInt(value: unknown): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : undefined;
  if (typeof value === 'string' && /^\s*[+-]?\d(?:_?\d)*\s*$/.test(value)) {
    return Number(value.trim().replaceAll('_', ''));
  }
  return undefined;
}

function pythonFloat(value: unknown): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return parsePythonFloat(value);
  return undefined;
}

export class FsLeases {
  readonly #ctx: FsContext;

  constructor(ctx: FsContext) {
    this.#ctx = ctx;
  }

  #paths(name: string): { file: string; lock: string } {
    const base = path.join(this.#ctx.layout.leases, encodeStoreName(name, 'lease'));
    return { file: `${base}${LEASE_SUFFIX}`, lock: `${base}${LOCK_SUFFIX}` };
  }

  async #read(file: string): Promise<LeaseState | undefined> {
    const verdict = await readCapped(file, MAX_LEASE_BYTES);
    switch (verdict.kind) {
      case 'missing':
        return undefined;
      case 'io-error':
        throw new YacronError('YC_ERR_STATE_IO', `Cannot read lease ${file}: ${verdict.detail}`);
      case 'not-a-file':
      case 'too-large':
        return this.#corrupt(file, verdict.detail);
      case 'ok':
        return parseLease(verdict.text, verdict.mtimeMs) ?? this.#corrupt(file, 'not a lease');
    }
  }

  #corrupt(file: string, detail: string): never {
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
      if (decision.next) {
        await writeAtomic(
          this.#ctx.layout.tmp,
          this.#ctx.seq.nextTemp(),
          file,
          serializeLease(decision.next),
          { durable: true, syncDir: this.#ctx.syncDir, mtimeMs: this.#ctx.clock.now() },
        );
      }
      return decision.result;
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
        result: { acquired: false, holder, fence, expiresAtMs: 0, fresh: false },
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
      if (!entry.endsWith(LEASE_SUFFIX)) continue;
      const token = entry.slice(0, -LEASE_SUFFIX.length);
      try {
        const lease = await this.#read(path.join(this.#ctx.layout.leases, entry));
        if (lease && encodeName(lease.name) === token) byName.set(lease.name, lease);
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
      await this.#ctx.syncDir(this.#ctx.layout.leases);
      return existed;
    });
  }

  /** Lease files on disk (describe()). */
  async count(): Promise<number> {
    return (await this.#entries()).filter((entry) => entry.endsWith(LEASE_SUFFIX)).length;
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
