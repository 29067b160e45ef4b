// The job API's reply bodies as the job commands read them (docs/http-api.md "The job API (loopback,
// for job commands)"): one type and one decoder per reply, so a command reads `reply.token`, never
// `body['token']`. A decoder takes any parsed JSON and gives null only when it is not an object
// (the command then says the reply is not JSON); within an object a missing or mistyped field
// degrades the way the commands always read it (`fresh` is true only when literally true, a list
// entry without a string name is dropped). The server renders these bodies in src/jobapi; this is
// the client's side, kept here so the job commands load nothing of the daemon.

/** A reply decoder: the typed body of a JSON object, null for any other JSON value. */
export type ReplyDecoder<T> = (parsed: unknown) => T | null;

/** Any reply whose fields the command does not read (`kv/set`, `lock/release`, `idempotency/release`). */
export type Acknowledgement = Readonly<Record<never, never>>;

/** `kv/get`, `cursor/get`, `cursor/advance`, `secret/get`: the stored value. */
export interface ValueReply {
  /** Any JSON value (null when the reply has none). */
  readonly value: unknown;
}

/** `kv/delete`. */
export interface DeleteReply {
  readonly existed: boolean;
}

/** `kv/list` (one page). */
export interface KeysPageReply {
  readonly keys: readonly string[];
  /** The `after` of the next page; null: this was the last. */
  readonly next: string | null;
}

/** `idempotency/claim`. */
export interface ClaimReply {
  readonly fresh: boolean;
}

/** `lock/acquire`. */
export type AcquireReply =
  { readonly acquired: true; readonly token: string } | { readonly acquired: false };

/** `artifact/put`. */
export interface ArtifactPutReply {
  /** As the reply carries it, in text (`String()` of whatever is there). */
  readonly sha256: string;
}

/** `artifact/list`, `secret/list`: the names, in the reply's order. */
export interface NamesReply {
  readonly names: readonly string[];
}

/** A status >= 400: its `error` text, null when it has none. */
export interface ErrorReply {
  readonly error: string | null;
}

export const acknowledgement: ReplyDecoder<Acknowledgement> = (parsed) =>
  isObject(parsed) ? {} : null;

export const valueReply: ReplyDecoder<ValueReply> = (parsed) =>
  isObject(parsed) ? { value: field(parsed, 'value') ?? null } : null;

export const deleteReply: ReplyDecoder<DeleteReply> = (parsed) =>
  isObject(parsed) ? { existed: field(parsed, 'existed') === true } : null;

export const keysPageReply: ReplyDecoder<KeysPageReply> = (parsed) => {
  if (!isObject(parsed)) return null;
  const next = field(parsed, 'next');
  return {
    keys: stringsOf(field(parsed, 'keys'), 'key'),
    next: typeof next === 'string' ? next : null,
  };
};

export const claimReply: ReplyDecoder<ClaimReply> = (parsed) =>
  isObject(parsed) ? { fresh: field(parsed, 'fresh') === true } : null;

export const acquireReply: ReplyDecoder<AcquireReply> = (parsed) => {
  if (!isObject(parsed)) return null;
  const token = field(parsed, 'token');
  return field(parsed, 'acquired') === true && typeof token === 'string'
    ? { acquired: true, token }
    : { acquired: false };
};

export const artifactPutReply: ReplyDecoder<ArtifactPutReply> = (parsed) =>
  isObject(parsed) ? { sha256: String(field(parsed, 'sha256')) } : null;

export const artifactListReply: ReplyDecoder<NamesReply> = (parsed) =>
  isObject(parsed) ? { names: stringsOf(field(parsed, 'artifacts'), 'name') } : null;

export const secretListReply: ReplyDecoder<NamesReply> = (parsed) =>
  isObject(parsed) ? { names: stringsOf(field(parsed, 'names')) } : null;

export const errorReply: ReplyDecoder<ErrorReply> = (parsed) => {
  if (!isObject(parsed)) return null;
  const error = field(parsed, 'error');
  return { error: typeof error === 'string' ? error : null };
};

/** `text` as JSON, typed by `decode`; null when it is not JSON or not what `decode` takes. */
export function decodeReply<T>(text: string, decode: ReplyDecoder<T>): T | null {
  const parsed = parseJson(text);
  return parsed === null ? null : decode(parsed.value);
}

function parseJson(text: string): { readonly value: unknown } | null {
  try {
    const value: unknown = JSON.parse(text);
    return { value };
  } catch {
    return null;
  }
}

/** The one untyped shape: a parsed JSON object, before a decoder picks its fields. */
function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(object: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** The strings of a list (or each entry's `key` field of them), dropping anything else. */
function stringsOf(values: unknown, key?: string): string[] {
  if (!Array.isArray(values)) return [];
  const strings: string[] = [];
  for (const value of values) {
    const item: unknown = key === undefined || !isObject(value) ? value : field(value, key);
    if (typeof item === 'string') strings.push(item);
  }
  return strings;
}
