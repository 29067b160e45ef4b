// `defaults` deep merge (docs/configuration.md "defaults and merging") over typed values,
// carrying each child's location so a check after merging can still name the file and line the
// value came from. Never mutates input.
import type { LocTable } from './issues.js';
import type { TypedDefaults, TypedJob } from './job-schema.js';

type Container = Record<string, unknown>;

/** A YAML mapping (the walker's null-prototype maps, or literals); class instances are values. */
function isPlainMap(value: unknown): value is Container {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || prototype === Object.prototype;
}

/** A job over a `defaults` layer: the job's keys win, maps and lists merge by the rules below. */
export function mergeLayer(layer: TypedDefaults, job: TypedJob, locs: LocTable): TypedJob;
/** Two `defaults` layers (an include's, then the next one or the file's own). */
export function mergeLayer(
  layer: TypedDefaults,
  override: TypedDefaults,
  locs: LocTable,
): TypedDefaults;
export function mergeLayer(
  layer: Readonly<Container>,
  override: Readonly<Container>,
  locs: LocTable,
): object {
  // Both are maps: the merge is a map holding the keys of both, typed as the override's kind.
  return mergeMaps(layer, override, locs);
}

/** base ⊕ override; `key` is the key both values sit under (list merge rules depend on it). */
export function deepMerge(base: unknown, override: unknown, locs: LocTable, key = ''): unknown {
  if (override === undefined) return base;
  if (base === undefined) return override;
  if (isPlainMap(base)) {
    if (override === null) return base;
    if (isPlainMap(override)) return mergeMaps(base, override, locs);
    return override;
  }
  if (Array.isArray(base) && Array.isArray(override)) {
    switch (key) {
      case 'environment':
        return mergeListBy(base, override, 'key', locs);
      case 'secrets':
        return mergeListBy(base, override, 'name', locs);
      // Replaced, not concatenated, as in the reference. (Every other list concatenates,
      // a report shell command too: defaults `[logger, -t]` + job `[myjob]`.)
      case 'fingerprint':
        return override;
      default:
        return concatLists(base, override, locs);
    }
  }
  return override;
}

function mergeMaps(
  base: Readonly<Container>,
  override: Readonly<Container>,
  locs: LocTable,
): Container {
  // Null-prototype, like the walker's maps: `__proto__` stays an ordinary key.
  const out: Container = { __proto__: null };
  for (const key of Object.keys(base)) {
    const value = Object.hasOwn(override, key)
      ? deepMerge(base[key], override[key], locs, key)
      : base[key];
    out[key] = value;
    const loc = Object.hasOwn(override, key) ? locs.get(override, key) : locs.get(base, key);
    if (loc) locs.set(out, key, loc);
  }
  for (const key of Object.keys(override)) {
    if (Object.hasOwn(base, key)) continue;
    out[key] = override[key];
    const loc = locs.get(override, key);
    if (loc) locs.set(out, key, loc);
  }
  return out;
}

/** Merge lists of maps by `field`: base order, the override's entry wins, no duplicates. */
function mergeListBy(
  base: readonly unknown[],
  override: readonly unknown[],
  field: string,
  locs: LocTable,
): unknown[] {
  const entries = new Map<unknown, { value: unknown; from: readonly unknown[]; index: number }>();
  const add = (list: readonly unknown[]): void => {
    list.forEach((value, index) => {
      const id = isPlainMap(value) ? value[field] : value;
      entries.set(id, { value, from: list, index });
    });
  };
  add(base);
  add(override);
  const out: unknown[] = [];
  for (const { value, from, index } of entries.values()) {
    const loc = locs.get(from, index);
    if (loc) locs.set(out, out.length, loc);
    out.push(value);
  }
  return out;
}

function concatLists(
  base: readonly unknown[],
  override: readonly unknown[],
  locs: LocTable,
): unknown[] {
  const out: unknown[] = [];
  for (const list of [base, override]) {
    list.forEach((value, index) => {
      const loc = locs.get(list, index);
      if (loc) locs.set(out, out.length, loc);
      out.push(value);
    });
  }
  return out;
}
