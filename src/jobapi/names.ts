// The names a job hands the API (scopes, keys, cursor, lock and artifact names): hostile ones are
// refused at the edge with a 400 (the store percent-encodes anyway; this is defence in depth),
// and accepted ones are composed into the reference's store names. Documents live in one
// namespace per family and scope (`kv/<scope>`) with the user's key as given, so scopes with
// slashes (`dagxcom/<dag>/<runId>`) never meet another scope's keys. Pure; no I/O.
import { ApiError } from './api-error.js';

/** Longest accepted scope, key or name, in UTF-16 code units. */
export const MAX_NAME_LENGTH = 4096;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `name` (the request field `field`) is refused, or undefined when it is acceptable. */
export function nameProblem(field: string, name: string): string | undefined {
  if (name === '') return `${field} is required`;
  if (name.length > MAX_NAME_LENGTH) {
    return `${field} is longer than ${MAX_NAME_LENGTH} characters`;
  }
  if (name.includes('\0')) return `${field} must not contain NUL bytes`;
  if (LONE_SURROGATE.test(name)) return `${field} is not well-formed Unicode`;
  if (name.startsWith('/') || name.startsWith('\\')) return `${field} must not start with '/'`;
  if (name.split(/[/\\]/).includes('..')) return `${field} must not contain a '..' path segment`;
  return undefined;
}

/** `name` when acceptable; a 400 naming the field otherwise. */
export function checkName(field: string, name: string): string {
  const problem = nameProblem(field, name);
  if (problem !== undefined) throw new ApiError('YC_ERR_REQUEST_INVALID', problem);
  return name;
}

/** The document families of the job API; a family and a scope make a document namespace. */
export type DocFamily = 'kv' | 'cursor' | 'idem';

/** `kv/<scope>` and its siblings: one document namespace (one directory) per scope. */
export function docNamespace(family: DocFamily, scope: string): string {
  return `${family}/${scope}`;
}

/**
 * One permit of a lock or semaphore: `lock/<scope>/<name>#<permit index>`, the reference's lease name
 * as it composes it (the name is not escaped, so scope `a` name `b/c` and scope `a/b` name `c`
 * are the same lock for both implementations; see docs/job-state.md "Locks").
 */
export function lockLeaseName(scope: string, name: string, permit: number): string {
  return `lock/${scope}/${name}#${permit}`;
}
