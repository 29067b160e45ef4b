// The names a job hands the API (scopes, keys, cursor, lock and artifact names): hostile ones are
// refused at the edge with a 400 (the store percent-encodes anyway; this is defence in depth),
// and accepted ones are composed into store names. Pure; no I/O.
//
// Invariant: a composed document or lease name is `<family>/<scope>/<escaped name>` where the
// escaped name holds no `/`, so the scope is exactly what lies between the family and the LAST
// slash. Scopes may contain slashes (`dagxcom/<dag>/<runId>`); without the escape, job `a` could
// reach job `a/b`'s key `x` as its own key `b/x`.
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
  if (problem !== undefined) throw new ApiError(400, problem);
  return name;
}

/** `%` → `%25` and `/` → `%2F`: injective, and names without either are unchanged. */
export function escapeNamePart(name: string): string {
  return name.replace(/[%/]/g, (char) => (char === '%' ? '%25' : '%2F'));
}

export function unescapeNamePart(escaped: string): string {
  return escaped.replace(/%(25|2F)/g, (match) => (match === '%25' ? '%' : '/'));
}

export type DocFamily = 'kv' | 'cursor' | 'idem';

/** `kv/<scope>/<key>` and its siblings (the namespaces the /state/documents route lists). */
export function docKey(family: DocFamily, scope: string, name: string): string {
  return `${docPrefix(family, scope)}${escapeNamePart(name)}`;
}

/** The listing prefix of one scope's documents of a family. */
export function docPrefix(family: DocFamily, scope: string): string {
  return `${family}/${scope}/`;
}

/**
 * The names of the listed keys that belong to `scope` itself (a deeper scope `scope/x` shares
 * the listing prefix; its keys carry a raw `/` after it), unescaped.
 */
export function namesInScope(family: DocFamily, scope: string, keys: readonly string[]): string[] {
  const prefix = docPrefix(family, scope);
  const names: string[] = [];
  for (const key of keys) {
    if (!key.startsWith(prefix)) continue;
    const rest = key.slice(prefix.length);
    if (rest === '' || rest.includes('/')) continue;
    names.push(unescapeNamePart(rest));
  }
  return names.sort(compareCodeUnits);
}

/** One permit of a lock or semaphore: `lock/<scope>/<name>#<slot>`. */
export function lockLeaseName(scope: string, name: string, slot: number): string {
  return `lock/${scope}/${escapeNamePart(name)}#${slot}`;
}

/** Plain string order by UTF-16 code units (what Array.prototype.sort does by default). */
export function compareCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
