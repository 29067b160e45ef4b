// The vocabulary the config tables are written in: schema nodes that carry, at compile time, the
// type of the value the walker (schema.ts) produces for them, so a table such as JOB_SCHEMA is
// also the declaration of its typed shape (`Out<typeof JOB_SCHEMA>`) and of its built-in
// defaults (`DefaultsOf`). A field row holds everything about one key: its schema, whether it is
// required (or refused), its built-in default and, for job keys, how it enters the job identity.
// Must not: walk or check anything — this module only describes.

import { deepFreeze } from '../common/index.js';

declare const OUTPUT: unique symbol;

/** A schema node whose walked value has type T (T is a compile-time tag only). */
export type Schema<T = unknown> = SchemaNode & { readonly [OUTPUT]?: T };

/** The walked type of a schema node. */
export type Out<S> = S extends { readonly [OUTPUT]?: infer T } ? T : never;

export type SchemaNode =
  | { readonly kind: 'str' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'int' }
  | { readonly kind: 'float' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  /** An empty value becomes null; anything else is typed by `inner`. */
  | { readonly kind: 'emptyNone'; readonly inner: Schema }
  /** Int tried before Str (user/group): integer-looking text, even quoted, becomes a number. */
  | { readonly kind: 'intOrStr' }
  /** Any single scalar, kept as written (text + quoted): typed later by whoever reads it. */
  | { readonly kind: 'written' }
  /** Dispatch on the node's shape. */
  | {
      readonly kind: 'either';
      readonly scalar?: Schema;
      readonly map?: Schema;
      readonly seq?: Schema;
      readonly expected: string;
    }
  | { readonly kind: 'map'; readonly fields: Fields }
  | {
      readonly kind: 'mapOf';
      readonly value: Schema;
      /** In the job identity, every value is replaced by `<redacted>` (names kept). */
      readonly redactValues?: boolean;
    }
  | { readonly kind: 'seq'; readonly item: Schema }
  /** Any YAML, kept as strings/lists/maps (for pass-through sections such as logging handlers). */
  | { readonly kind: 'any' };

/**
 * How a top-level job key enters the job identity (job-set id, per-job digest):
 * - `hashed`: its effective value (built-in default under what was written) is part of it;
 * - `hashed-unless-default`: only when the effective value differs from the built-in default —
 *   the rule for every key added after the identity scheme v1 shipped, so existing jobs keep
 *   their digests;
 * - `custom`: rendered by a rule of its own in fingerprint.ts (command, schedule, ...);
 * - `excluded`: never part of it (catch-up settings, secrets, archive switches, ...).
 */
export type IdentityRule = 'hashed' | 'hashed-unless-default' | 'custom' | 'excluded';

/** The platform's system shell (`/bin/sh`; empty on Windows: the default command processor). */
export const SYSTEM_SHELL: unique symbol = Symbol('system shell');
/** A map's default is made of the defaults of its own fields. */
export const FROM_FIELDS: unique symbol = Symbol('defaults of the fields');
type DefaultMarker = typeof SYSTEM_SHELL | typeof FROM_FIELDS;

export interface FieldSpec<T = unknown> {
  readonly schema: Schema<T>;
  readonly required?: boolean;
  /** When set, the key is refused with this message (e.g. `name` inside `defaults`). */
  readonly refuse?: string;
  /** The built-in default; absent = none (the key is simply not set unless written). */
  readonly default?: unknown;
  /** In the job identity, a non-null value is replaced by `<redacted>` (secret values). */
  readonly redacted?: boolean;
  /** Top-level job keys only. */
  readonly identity?: IdentityRule;
}

export type Fields = Readonly<Record<string, FieldSpec>>;

export interface FieldOptions<T> {
  readonly default?: T | null | DefaultMarker;
  readonly redacted?: boolean;
  readonly identity?: IdentityRule;
}

/** A key that must be written (a default still counts where the whole map is not written). */
export function req<const S extends Schema>(
  schema: S,
): { readonly schema: S; readonly required: true };
export function req<const S extends Schema, const O extends FieldOptions<Out<S>>>(
  schema: S,
  options: O,
): { readonly schema: S; readonly required: true } & O;
export function req(schema: Schema, options?: FieldOptions<unknown>): FieldSpec {
  return { schema, required: true, ...options };
}

/** An optional key, with its built-in default when it has one. */
export function opt<const S extends Schema>(
  schema: S,
): { readonly schema: S; readonly required?: false };
export function opt<const S extends Schema, const O extends FieldOptions<Out<S>>>(
  schema: S,
  options: O,
): { readonly schema: S; readonly required?: false } & O;
export function opt(schema: Schema, options?: FieldOptions<unknown>): FieldSpec {
  return { schema, ...options };
}

/** A key that is refused with `message` where it is written (`name` inside `defaults`). */
export function refused(message: string): FieldSpec<never> & { readonly refuse: string } {
  return { schema: { kind: 'any' }, refuse: message };
}

export const str: Schema<string> = { kind: 'str' };
export const bool: Schema<boolean> = { kind: 'bool' };
export const int: Schema<number> = { kind: 'int' };
export const float: Schema<number> = { kind: 'float' };
export const intOrStr: Schema<string | number> = { kind: 'intOrStr' };
export const anyYaml: Schema<unknown> = { kind: 'any' };

/**
 * A scalar as written: its text and whether it was quoted. A class, so the defaults merge takes
 * it as one value (never as a map to merge into).
 */
export class WrittenScalar {
  constructor(
    readonly text: string,
    readonly quoted: boolean,
  ) {
    Object.freeze(this);
  }
}

export const written: Schema<WrittenScalar> = { kind: 'written' };

export function oneOf<const V extends readonly string[]>(values: V): Schema<V[number]> {
  return { kind: 'enum', values };
}

export function emptyNone<S extends Schema>(inner: S): Schema<Out<S> | null> {
  return { kind: 'emptyNone', inner };
}

export function seq<S extends Schema>(item: S): Schema<readonly Out<S>[]> {
  return { kind: 'seq', item };
}

export function mapOf<S extends Schema>(
  value: S,
  options: { readonly redactValues?: boolean } = {},
): Schema<Readonly<Record<string, Out<S>>>> {
  return { kind: 'mapOf', value, ...options };
}

export interface Branches {
  readonly scalar?: Schema;
  readonly map?: Schema;
  readonly seq?: Schema;
  readonly expected: string;
}

export function either<const B extends Branches>(
  branches: B,
): Schema<Out<B['scalar']> | Out<B['map']> | Out<B['seq']>> {
  return { kind: 'either', ...branches };
}

/** A map schema that keeps its field rows in its type (for `Out` and `DefaultsOf`). */
export interface MapSchema<F extends Fields> {
  readonly kind: 'map';
  readonly fields: F;
  readonly [OUTPUT]?: MapOut<F>;
}

export function map<const F extends Fields>(fields: F): MapSchema<F> {
  return { kind: 'map', fields };
}

type FieldOut<F> = F extends { readonly schema: infer S } ? Out<S> : never;
type Flatten<T> = { [K in keyof T]: T[K] } & {};
type KeyKind<R> = R extends { readonly refuse: string }
  ? 'refused'
  : R extends { readonly required: true }
    ? 'required'
    : 'optional';
type KeysOfKind<F, Kind> = { [K in keyof F]: KeyKind<F[K]> extends Kind ? K : never }[keyof F];

/** The walked value of a map: required keys present, optional ones possibly absent. */
export type MapOut<F> = Flatten<
  { readonly [K in KeysOfKind<F, 'required'>]: FieldOut<F[K]> } & {
    readonly [K in KeysOfKind<F, 'optional'>]?: FieldOut<F[K]>;
  }
>;

type DefaultValue<F> = F extends { readonly default: infer D }
  ? D extends typeof FROM_FIELDS
    ? F extends { readonly schema: { readonly fields: infer Sub } }
      ? DefaultsOf<Sub>
      : never
    : D extends typeof SYSTEM_SHELL
      ? string
      : D
  : never;
type DefaultedKeys<F> = {
  [K in keyof F]: F[K] extends { readonly default: unknown } ? K : never;
}[keyof F];

/** The built-in defaults of a map's fields, as built by `defaultsOf`. */
export type DefaultsOf<F> = Flatten<{ readonly [K in DefaultedKeys<F>]: DefaultValue<F[K]> }>;

/** `/bin/sh`, or '' on Windows (the platform's default command processor). */
export function systemShell(platform: NodeJS.Platform): string {
  return platform === 'win32' ? '' : '/bin/sh';
}

/** The default of one field on `platform`; undefined when it has none. */
export function fieldDefault(spec: FieldSpec, platform: NodeJS.Platform): unknown {
  const value = spec.default;
  if (value === SYSTEM_SHELL) return systemShell(platform);
  if (value === FROM_FIELDS) {
    if (spec.schema.kind !== 'map') throw new TypeError('FROM_FIELDS needs a map schema');
    return defaultsOf(spec.schema, platform);
  }
  return value;
}

/**
 * `compute(key, platform)`, remembered per platform and key object: what is derived from the
 * tables (defaults, their canonical text) is built once, not once per job.
 */
export function memoPerPlatform<K extends object, V>(
  compute: (key: K, platform: NodeJS.Platform) => V,
): (key: K, platform: NodeJS.Platform) => V {
  // Boxed, so a remembered value that is itself undefined still counts as remembered.
  const caches = new Map<NodeJS.Platform, WeakMap<K, { readonly value: V }>>();
  return (key, platform) => {
    let cache = caches.get(platform);
    if (cache === undefined) {
      cache = new WeakMap();
      caches.set(platform, cache);
    }
    const hit = cache.get(key);
    if (hit !== undefined) return hit.value;
    const value = compute(key, platform);
    cache.set(key, { value });
    return value;
  };
}

const buildDefaults = memoPerPlatform((fields: Fields, platform): unknown => {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(fields)) {
    if (spec.default !== undefined) out[key] = fieldDefault(spec, platform);
  }
  return deepFreeze(out);
});

/**
 * The built-in defaults of a map schema's fields, deeply frozen and built once per platform: every
 * job that does not override a key shares the same default object (with 100k jobs, a copy per job
 * would be megabytes of identical objects).
 */
export function defaultsOf<F extends Fields>(
  schema: { readonly kind: 'map'; readonly fields: F },
  platform: NodeJS.Platform,
): DefaultsOf<F> {
  // The one place the built object meets its declared type: it has exactly the defaulted keys.
  return buildDefaults(schema.fields, platform) as DefaultsOf<F>;
}
