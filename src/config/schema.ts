// A small, linear schema walker over the raw YAML tree (strictyaml semantics): every scalar is
// text until a schema node types it. Unknown keys, missing required keys and wrong types become
// issues with the field path and line; locations of every typed child go into a LocTable.
import { childPath, indexPath, type ConfigIssue, type Loc, type LocTable } from './issues.js';
import { parseBoolText, parseFloatText, parseIntText, looksLikeInt } from './scalars.js';
import { describeRawNode, type RawMap, type RawNode } from './yaml-tree.js';

export type Schema =
  | { readonly kind: 'str' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'int' }
  | { readonly kind: 'float' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  /** An empty value becomes null; anything else is typed by `inner`. */
  | { readonly kind: 'emptyNone'; readonly inner: Schema }
  /** Int tried before Str (user/group): integer-looking text, even quoted, becomes a number. */
  | { readonly kind: 'intOrStr' }
  /** Plain text typed as int, then bool, then str; quoted text stays a string. */
  | { readonly kind: 'scalarValue' }
  /** Dispatch on the node's shape. */
  | {
      readonly kind: 'either';
      readonly scalar?: Schema;
      readonly map?: Schema;
      readonly seq?: Schema;
      readonly expected: string;
    }
  | { readonly kind: 'map'; readonly fields: Readonly<Record<string, FieldSpec>> }
  | { readonly kind: 'mapOf'; readonly value: Schema }
  | { readonly kind: 'seq'; readonly item: Schema }
  /** Any YAML, kept as strings/lists/maps (for pass-through sections such as logging handlers). */
  | { readonly kind: 'any' };

export interface FieldSpec {
  readonly schema: Schema;
  readonly required?: boolean;
  /** When set, the key is refused with this message (e.g. `name` inside `defaults`). */
  readonly refuse?: string;
}

/** Returned for an empty map or list value: the key counts as not written. */
export const OMIT: unique symbol = Symbol('omit');
/** Returned when the value is invalid (an issue was recorded). */
export const INVALID: unique symbol = Symbol('invalid');

export type Walked = unknown;

export interface WalkContext {
  readonly file: string;
  readonly issues: ConfigIssue[];
  readonly locs: LocTable;
}

/** Type `node` by `schema`; `line` is where the value's key (or list item) was written. */
export function walk(
  schema: Schema,
  node: RawNode,
  path: string,
  line: number,
  ctx: WalkContext,
): Walked {
  switch (schema.kind) {
    case 'str':
      if (node.kind === 'scalar') return node.text;
      return fail(ctx, path, line, `expected a string, found ${describeRawNode(node)}`);
    case 'bool': {
      const value = node.kind === 'scalar' ? parseBoolText(node.text) : undefined;
      if (value !== undefined) return value;
      return fail(
        ctx,
        path,
        line,
        `expected a boolean (yes/no, true/false, on/off, y/n, 1/0), found ${describeRawNode(node)}`,
      );
    }
    case 'int': {
      const value = node.kind === 'scalar' ? parseIntText(node.text) : undefined;
      if (value !== undefined) return value;
      return fail(ctx, path, line, `expected an integer, found ${describeRawNode(node)}`);
    }
    case 'float': {
      const value = node.kind === 'scalar' ? parseFloatText(node.text) : undefined;
      if (value !== undefined) return value;
      return fail(ctx, path, line, `expected a number, found ${describeRawNode(node)}`);
    }
    case 'enum':
      if (node.kind === 'scalar' && schema.values.includes(node.text)) return node.text;
      return fail(
        ctx,
        path,
        line,
        `expected one of ${schema.values.join(', ')}, found ${describeRawNode(node)}`,
      );
    case 'emptyNone':
      if (node.kind === 'scalar' && node.text === '') return null;
      return walk(schema.inner, node, path, line, ctx);
    case 'intOrStr':
      if (node.kind !== 'scalar') {
        return fail(ctx, path, line, `expected a name or a number, found ${describeRawNode(node)}`);
      }
      if (looksLikeInt(node.text)) {
        const value = parseIntText(node.text);
        if (value !== undefined) return value;
        return fail(ctx, path, line, `number out of range: '${node.text}'`);
      }
      return node.text;
    case 'scalarValue': {
      if (node.kind !== 'scalar') {
        return fail(ctx, path, line, `expected a single value, found ${describeRawNode(node)}`);
      }
      if (node.quoted) return node.text;
      return parseIntText(node.text) ?? parseBoolText(node.text) ?? node.text;
    }
    case 'either': {
      const branch = schema[node.kind];
      if (branch) return walk(branch, node, path, line, ctx);
      return fail(ctx, path, line, `expected ${schema.expected}, found ${describeRawNode(node)}`);
    }
    case 'map':
      return walkMap(schema.fields, node, path, line, ctx);
    case 'mapOf': {
      if (isEmptyValue(node)) return OMIT;
      if (node.kind !== 'map') {
        return fail(ctx, path, line, `expected a mapping, found ${describeRawNode(node)}`);
      }
      const out = Object.create(null) as Record<string, unknown>;
      for (const entry of node.entries) {
        const entryPath = childPath(path, entry.key);
        const value = walk(schema.value, entry.value, entryPath, entry.line, ctx);
        if (value === INVALID || value === OMIT) continue;
        out[entry.key] = value;
        ctx.locs.set(out, entry.key, { file: ctx.file, path: entryPath, line: entry.line });
      }
      return out;
    }
    case 'seq': {
      if (isEmptyValue(node)) return OMIT;
      if (node.kind !== 'seq') {
        return fail(ctx, path, line, `expected a list, found ${describeRawNode(node)}`);
      }
      const out: unknown[] = [];
      for (const [index, item] of node.items.entries()) {
        const itemPath = indexPath(path, index);
        const value = walk(schema.item, item, itemPath, item.line, ctx);
        if (value === INVALID || value === OMIT) continue;
        ctx.locs.set(out, out.length, { file: ctx.file, path: itemPath, line: item.line });
        out.push(value);
      }
      return out;
    }
    case 'any':
      return toPlain(node);
  }
}

/** An unquoted empty value (`key:` with nothing after it). */
export function isEmptyValue(node: RawNode): boolean {
  return node.kind === 'scalar' && node.text === '' && !node.quoted;
}

export function walkMap(
  fields: Readonly<Record<string, FieldSpec>>,
  node: RawNode,
  path: string,
  line: number,
  ctx: WalkContext,
): Walked {
  if (isEmptyValue(node)) return OMIT;
  if (node.kind !== 'map') {
    return fail(ctx, path, line, `expected a mapping, found ${describeRawNode(node)}`);
  }
  const out = Object.create(null) as Record<string, unknown>;
  let valid = true;
  for (const entry of node.entries) {
    const entryPath = childPath(path, entry.key);
    const spec = Object.hasOwn(fields, entry.key) ? fields[entry.key] : undefined;
    if (spec === undefined) {
      fail(ctx, entryPath, entry.line, unknownKeyMessage(entry.key, Object.keys(fields)));
      valid = false;
      continue;
    }
    if (spec.refuse !== undefined) {
      fail(ctx, entryPath, entry.line, spec.refuse);
      valid = false;
      continue;
    }
    const value = walk(spec.schema, entry.value, entryPath, entry.line, ctx);
    if (value === INVALID) {
      valid = false;
      continue;
    }
    if (value === OMIT) {
      if (spec.required) {
        fail(ctx, entryPath, entry.line, `'${entry.key}' must not be empty`);
        valid = false;
      }
      continue;
    }
    out[entry.key] = value;
    ctx.locs.set(out, entry.key, { file: ctx.file, path: entryPath, line: entry.line });
  }
  for (const [key, spec] of Object.entries(fields)) {
    if (spec.required && !hasEntry(node, key)) {
      fail(ctx, path || '(document)', line, `missing required key '${key}'`);
      valid = false;
    }
  }
  return valid ? out : INVALID;
}

function hasEntry(node: RawMap, key: string): boolean {
  return node.entries.some((entry) => entry.key === key);
}

function fail(ctx: WalkContext, path: string, line: number, message: string): typeof INVALID {
  ctx.issues.push({ file: ctx.file, path: path || '(document)', line, message });
  return INVALID;
}

export function locOf(ctx: WalkContext, path: string, line: number): Loc {
  return { file: ctx.file, path, line };
}

function toPlain(node: RawNode): unknown {
  switch (node.kind) {
    case 'scalar':
      return node.text;
    case 'seq':
      return node.items.map(toPlain);
    case 'map': {
      const out = Object.create(null) as Record<string, unknown>;
      for (const entry of node.entries) out[entry.key] = toPlain(entry.value);
      return out;
    }
  }
}

/** `unknown key 'captureStdOut' (did you mean 'captureStdout'?)` */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const suggestion = closestKey(key, known);
  return suggestion === undefined
    ? `unknown key '${key}'`
    : `unknown key '${key}' (did you mean '${suggestion}'?)`;
}

function closestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    if (candidate.toLowerCase() === lower) return candidate;
    const distance = editDistance(lower, candidate.toLowerCase(), bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, giving up early once it exceeds `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin >= limit) return limit;
    previous = current;
  }
  return previous[b.length] ?? limit;
}
