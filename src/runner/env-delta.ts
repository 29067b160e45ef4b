// A run's environment as a difference from a base the spawn helper already holds
// (docs/performance.md "The spawn path"): most runs get the daemon's environment, or it plus a
// few variables, so sending the whole environment with every launch (and, for `process.env`,
// reading every variable out of the C++ environment to serialise it) is wasted work on the
// daemon's main thread. The daemon registers the base once per helper process and sends each
// launch's delta; the helper rebuilds the very same object, key order included.
// Must not: import anything (the helper program loads this module and stays tiny), or rebuild an
// environment that differs from the daemon's in any variable or in the order of its keys — when
// the order cannot be kept by a delta, the whole environment is sent instead.

export type EnvPayload =
  /** The base minus `unset`, with `set` overriding (in place) or appended (new keys, in order). */
  | {
      readonly kind: 'delta';
      readonly unset: readonly string[];
      readonly set: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'whole'; readonly env: Readonly<Record<string, string>> };

export interface EnvBase {
  readonly env: Readonly<Record<string, string>>;
  readonly keys: readonly string[];
}

/** A base from an environment (a plain copy: `process.env` is read once, here). */
export function envBase(env: Readonly<Record<string, string | undefined>>): EnvBase {
  const copy: Record<string, string> = {};
  for (const key of Object.keys(env)) {
    const value = env[key];
    if (value !== undefined) copy[key] = value;
  }
  return { env: copy, keys: Object.keys(copy) };
}

/**
 * `env` against `base`: a delta when `env` keeps the base's keys in the base's order and adds its
 * own after them (what child-environment.ts builds), else the whole environment. Variables whose
 * value is undefined are left out, as spawn() leaves them out.
 */
export function diffEnv(
  base: EnvBase,
  env: Readonly<Record<string, string | undefined>>,
): EnvPayload {
  const keys = Object.keys(env);
  const unset: string[] = [];
  const set: Record<string, string> = {};
  let next = 0;
  for (const key of base.keys) {
    if (next < keys.length && keys[next] === key) {
      next++;
      const value = env[key];
      if (value === undefined) unset.push(key);
      else if (value !== base.env[key]) set[key] = value;
    } else {
      unset.push(key);
    }
  }
  for (; next < keys.length; next++) {
    const key = keys[next]!;
    // A base key out of the base's order: a delta would move it back.
    if (Object.hasOwn(base.env, key)) return { kind: 'whole', env: envBase(env).env };
    const value = env[key];
    if (value !== undefined) set[key] = value;
  }
  return { kind: 'delta', unset, set };
}

/** The environment `payload` describes, over `base`. */
export function applyEnv(base: EnvBase, payload: EnvPayload): Record<string, string> {
  switch (payload.kind) {
    case 'whole':
      return { ...payload.env };
    case 'delta': {
      const unset = new Set(payload.unset);
      const env: Record<string, string> = {};
      for (const key of base.keys) {
        if (unset.has(key)) continue;
        env[key] = Object.hasOwn(payload.set, key) ? payload.set[key]! : base.env[key]!;
      }
      for (const key of Object.keys(payload.set)) {
        if (!Object.hasOwn(base.env, key)) env[key] = payload.set[key]!;
      }
      return env;
    }
  }
}
