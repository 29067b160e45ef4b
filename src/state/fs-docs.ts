// Mutable documents on disk (docs/durable-state-store.md "Documents"), in the reference's layout:
// docs/<enc(ns)>/<enc(key)>.doc holding the envelope around the body, with the lock side file
// docs/<enc(ns)>/<enc(key)>.lock beside it. There is no version field: every change is a
// read-modify-write under an exclusive flock of the `.lock` (whose mtime it refreshes), reading
// the current body strictly (corrupt, unreadable or newer → the change fails, never "absent"),
// then replacing the `.doc` by atomic rename or unlinking it, fsynced either way. Plain reads
// take no lock and read what they cannot use as missing. A `.lock` is never removed here.
import { unlink, utimes } from 'node:fs/promises';
import * as path from 'node:path';
import { YacronError } from '../common/index.js';
import type { FsContext } from './fs-context.js';
import { ensureOwnDir, errorCode, readCapped, readdirOrEmpty, writeAtomic } from './fs-files.js';
import { decodeName, encodeName, encodeStoreName, isTruncatedToken } from './name-encoding.js';
import { assertPlainObject, parseEnvelope, serializeEnvelope } from './record-format.js';
import { assertRecordSize, filterPrefix } from './store-checks.js';
import type { DocumentDecision, JsonObject, NamespaceSize, StateDocument } from './types.js';

export const DOC_SUFFIX = '.doc';
export const LOCK_SUFFIX = '.lock';
/** Body fields that name a document whose key was truncated out of its file name. */
const KEY_FIELDS = ['key', 'name', 'runKey'] as const;

interface DocPaths {
  readonly dir: string;
  readonly file: string;
  readonly lock: string;
}

type StrictRead =
  | { readonly kind: 'absent' }
  | { readonly kind: 'body'; readonly body: JsonObject; readonly mtimeMs: number }
  | {
      readonly kind: 'unusable';
      readonly code: 'YC_ERR_STATE_IO' | 'YC_ERR_STATE_CORRUPT' | 'YC_ERR_STATE_SCHEMA';
      readonly detail: string;
    };

export class FsDocs {
  readonly #ctx: FsContext;

  constructor(ctx: FsContext) {
    this.#ctx = ctx;
  }

  #paths(ns: string, key: string): DocPaths {
    const dir = path.join(this.#ctx.layout.docs, encodeStoreName(ns, 'document namespace'));
    const base = path.join(dir, encodeStoreName(key, 'document'));
    return { dir, file: `${base}${DOC_SUFFIX}`, lock: `${base}${LOCK_SUFFIX}` };
  }

  async #read(file: string): Promise<StrictRead> {
    const verdict = await readCapped(file, this.#ctx.maxRecordBytes);
    switch (verdict.kind) {
      case 'missing':
        return { kind: 'absent' };
      case 'io-error':
        return { kind: 'unusable', code: 'YC_ERR_STATE_IO', detail: verdict.detail };
      case 'not-a-file':
      case 'too-large':
        return { kind: 'unusable', code: 'YC_ERR_STATE_CORRUPT', detail: verdict.detail };
      case 'ok':
        break;
    }
    const parsed = parseEnvelope(verdict.text);
    switch (parsed.kind) {
      case 'ok':
        return { kind: 'body', body: parsed.data, mtimeMs: verdict.mtimeMs };
      case 'corrupt':
        return { kind: 'unusable', code: 'YC_ERR_STATE_CORRUPT', detail: parsed.detail };
      case 'newer-schema':
        return {
          kind: 'unusable',
          code: 'YC_ERR_STATE_SCHEMA',
          detail: `schemaVersion ${parsed.version} is newer than this build understands`,
        };
    }
  }

  /** A plain read: what cannot be used reads as missing (warned once); an I/O error throws. */
  async #readPlain(ns: string, key: string, file: string): Promise<StateDocument | undefined> {
    const read = await this.#read(file);
    switch (read.kind) {
      case 'absent':
        return undefined;
      case 'body':
        return { ns, key, body: read.body, modifiedAtMs: read.mtimeMs };
      case 'unusable':
        if (read.code === 'YC_ERR_STATE_IO') {
          throw new YacronError('YC_ERR_STATE_IO', `Cannot read document ${file}: ${read.detail}`);
        }
        this.#ctx.quarantine.warnOnce(
          file,
          `Cannot use document ${file}: ${read.detail}; it reads as missing and is left in place`,
        );
        return undefined;
    }
  }

  get(ns: string, key: string): Promise<StateDocument | undefined> {
    return this.#readPlain(ns, key, this.#paths(ns, key).file);
  }

  async update<T>(ns: string, key: string, decide: DocumentDecision<T>): Promise<T> {
    const { dir, file, lock } = this.#paths(ns, key);
    await ensureOwnDir(dir, { durable: true, syncDir: this.#ctx.syncDir });
    return this.#ctx.withLock(lock, async () => {
      const nowSeconds = this.#ctx.clock.now() / 1000;
      await utimes(lock, nowSeconds, nowSeconds).catch(() => undefined);
      const read = await this.#read(file);
      if (read.kind === 'unusable') {
        throw new YacronError(read.code, `Cannot update document ${file}: ${read.detail}`);
      }
      const current =
        read.kind === 'body' ? { ns, key, body: read.body, modifiedAtMs: read.mtimeMs } : undefined;
      const change = decide(current);
      switch (change.kind) {
        case 'keep':
          return change.result;
        case 'write': {
          const what = `document ${key} of ${ns}`;
          assertPlainObject(change.body, what);
          const text = serializeEnvelope(change.body, what);
          assertRecordSize(text, this.#ctx.maxRecordBytes, what);
          await writeAtomic(this.#ctx.layout.tmp, this.#ctx.seq.nextTemp(), file, text, {
            durable: true,
            syncDir: this.#ctx.syncDir,
            mtimeMs: this.#ctx.clock.now(),
          });
          return change.result;
        }
        case 'delete': {
          try {
            await unlink(file);
          } catch (error) {
            if (errorCode(error) !== 'ENOENT') throw error;
          }
          await this.#ctx.syncDir(dir);
          return change.result;
        }
      }
    });
  }

  async list(ns: string): Promise<StateDocument[]> {
    const dir = path.join(this.#ctx.layout.docs, encodeStoreName(ns, 'document namespace'));
    const docs = new Map<string, StateDocument>();
    for (const entry of await readdirOrEmpty(dir)) {
      if (!entry.endsWith(DOC_SUFFIX)) continue;
      const token = entry.slice(0, -DOC_SUFFIX.length);
      const named = decodeName(token);
      if (named === undefined && !isTruncatedToken(token)) continue; // not a reference name
      const doc = await this.#readPlain(ns, named ?? token, path.join(dir, entry));
      if (doc === undefined) continue;
      const key = named ?? keyFromBody(doc.body, token);
      if (key !== undefined) docs.set(key, { ...doc, key });
    }
    return filterPrefix(docs.keys(), undefined).map((key) => docs.get(key)!);
  }

  async namespaces(prefix?: string): Promise<string[]> {
    const names: string[] = [];
    for (const entry of await readdirOrEmpty(this.#ctx.layout.docs)) {
      const name = decodeName(entry);
      if (name !== undefined) names.push(name);
    }
    return filterPrefix(names, prefix);
  }

  /** Documents on disk (describe()). */
  async count(): Promise<number> {
    let docs = 0;
    for (const entry of await readdirOrEmpty(this.#ctx.layout.docs)) {
      const inner = await readdirOrEmpty(path.join(this.#ctx.layout.docs, entry));
      docs += inner.filter((name) => name.endsWith(DOC_SUFFIX)).length;
    }
    return docs;
  }

  /** Every namespace with its number of document files, sorted by name (nothing is read). */
  async sizes(): Promise<NamespaceSize[]> {
    const sizes = new Map<string, number>();
    for (const entry of await readdirOrEmpty(this.#ctx.layout.docs)) {
      const ns = decodeName(entry);
      if (ns === undefined) continue;
      const inner = await readdirOrEmpty(path.join(this.#ctx.layout.docs, entry));
      sizes.set(ns, inner.filter((name) => name.endsWith(DOC_SUFFIX)).length);
    }
    return filterPrefix(sizes.keys(), undefined).map((ns) => ({
      ns,
      documents: sizes.get(ns) ?? 0,
    }));
  }

  /** Every namespace directory (for the lock sweep). */
  async namespaceDirs(): Promise<string[]> {
    return (await readdirOrEmpty(this.#ctx.layout.docs)).map((entry) =>
      path.join(this.#ctx.layout.docs, entry),
    );
  }
}

/** The key a truncated document names in its body, if that key encodes to its token. */
function keyFromBody(body: JsonObject, token: string): string | undefined {
  for (const field of KEY_FIELDS) {
    const value = body[field];
    if (typeof value === 'string' && value !== '' && encodeName(value) === token) return value;
  }
  return undefined;
}
