// The uids and gids a run may switch to (docs/configuration.md "User and group"): whole numbers
// from 0 to 4294967294. Config refuses others at load; every spawn path refuses them again at
// launch (ChildRun before the spawn, both spawn helpers on their message), so an id never reaches
// setpriv, Node's spawn or setuid() to be wrapped into another one (2^32 is uid 0, root).
// Dependency-free: the Node spawn helper's program imports it.
// Must not: accept an id only because it fits a double; 4294967295 is (uid_t)-1, "no change".

/** The largest uid or gid a run may switch to (the same as config's). */
export const MAX_POSIX_ID = 4_294_967_294;

/** Why `id` cannot be a run's uid or gid, or null when it can (null = no switch). */
export function posixIdProblem(kind: 'uid' | 'gid', id: unknown): string | null {
  if (id === null) return null;
  if (typeof id === 'number' && Number.isInteger(id) && id >= 0 && id <= MAX_POSIX_ID) return null;
  if (typeof id !== 'number') return `${kind} is not a number: refused`;
  return `${kind} ${id} is outside 0..${MAX_POSIX_ID}: refused`;
}
