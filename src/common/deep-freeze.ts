// Freezing a value graph for sharing: resolved configuration objects and cached store records
// are handed to many readers that must not be able to change them.
// Must not: descend into an object that is already frozen — a frozen object is taken as
// finished, so a caller can keep something mutable (a cache inside a compiled schedule) by
// freezing its holder shallowly first.

/** Freeze `value` and every object reachable from it; returns `value`. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}
