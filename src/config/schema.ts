// A small, linear schema walker over the raw YAML tree (strictyaml semantics): every scalar is
// text until a schema node types it. Unknown keys, missing required keys and wrong types become
// issues with the field path and line; locations of every typed child go into a LocTable.
import { childPath, indexPath, type ConfigIssue, type Loc, type LocTable } from './issues.js';
import { parseBoolText, parseFloatText, parseIntText, looksLikeInt } from './scalars.js';
import { WrittenScalar, type Fields, type Schema, type SchemaNode } from './schema-nodes.js';
import { describeRawNode, type RawMap, type RawNode } from './yaml-tree.js';

export type { FieldSpec, Schema } from './schema-nodes.js';

/** Returned for an empty map or list value: the key counts as not written. */
export const OMIT: unique symbol = Symbol('omit');
/** Returned when the value is invalid (an issue was recorded). */
export const INVALID: unique symbol = Symbol('invalid');

export type Walked<T = unknown> = T | typeof OMIT | typeof INVALID;

export interface WalkContext {
  readonly file: string;
  readonly issues: ConfigIssue[];
  readonly locs: LocTable;
}

/** Type `node` by `schema`; `line` is where the value's key (or list item) was written. */
export function walk<T>(
  schema: Schema<T>,
  node: RawNode,
  path: string,
  line: number,
  ctx: WalkContext,
): Walked<T> {
  // The one place the walked value meets its declared type: the node's shape guarantees it.
  return walkNode(schema, node, path, line, ctx) as Walked<T>;
}

/**
 * Type a top-level section (`web:`, `cluster:`): an empty one is an issue naming it. undefined
 * when the section is empty or anything in it was refused.
 */
export function walkSection<T>(
  schema: Schema<T>,
  name: string,
  node: RawNode,
  path: string,
  line: number,
  ctx: WalkContext,
): T | undefined {
  const before = ctx.issues.length;
  const value = walk(schema, node, path, line, ctx);
  if (value === OMIT) {
    ctx.issues.push({ file: ctx.file, path, line, message: `'${name}' must not be empty` });
    return undefined;
  }
  if (value === INVALID || ctx.issues.length > before) return undefined;
  return value;
}

/**
 * Type a top-level list (`jobs:`, `dags:`) item by item, so a broken item does not hide the
 * others: a value that is not a list is one issue, an empty item another. `onItem` gets each item
 * that typed (`clean`: it added no issue) and where it was written.
 */
export function walkItems<T>(
  schema: Schema<T>,
  noun: { readonly plural: string; readonly singular: string },
  node: RawNode,
  path: string,
  line: number,
  ctx: WalkContext,
  onItem: (value: T, loc: Loc, clean: () => boolean) => void,
): void {
  if (isEmptyValue(node)) return;
  if (node.kind !== 'seq') {
    fail(ctx, path, line, `expected a list of ${noun.plural}, found ${describeRawNode(node)}`);
    return;
  }
  node.items.forEach((item, index) => {
    const before = ctx.issues.length;
    const itemPath = indexPath(path, index);
    const value = walk(schema, item, itemPath, item.line, ctx);
    const loc = { file: ctx.file, path: itemPath, line: item.line };
    if (value === OMIT) {
      ctx.issues.push({ ...loc, message: `empty ${noun.singular} entry` });
      return;
    }
    if (value === INVALID) return;
    onItem(value, loc, () => ctx.issues.length === before);
  });
}

function walkNode(
  schema: SchemaNode,
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
      if (node.kind === 'scalar' && looksLikeInt(node.text)) {
        return fail(ctx, path, line, outOfRangeMessage(node.text));
      }
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
      return walkNode(schema.inner, node, path, line, ctx);
    case 'intOrStr':
      if (node.kind !== 'scalar') {
        return fail(ctx, path, line, `expected a name or a number, found ${describeRawNode(node)}`);
      }
      if (looksLikeInt(node.text)) {
        const value = parseIntText(node.text);
        if (value !== undefined) return value;
        return fail(ctx, path, line, outOfRangeMessage(node.text));
      }
      return node.text;
    case 'written':
      if (node.kind !== 'scalar') {
        return fail(ctx, path, line, `expected a single value, found ${describeRawNode(node)}`);
      }
      return new WrittenScalar(node.text, node.quoted);
    case 'either': {
      const branch = schema[node.kind];
      if (branch) return walkNode(branch, node, path, line, ctx);
      return fail(ctx, path, line, `expected ${schema.expected}, found ${describeRawNode(node)}`);
    }
    case 'map':
      return walkMap(schema.fields, node, path, line, ctx);
    case 'mapOf': {
      if (isEmptyValue(node)) return OMIT;
      if (node.kind !== 'map') {
        return fail(ctx, path, line, `expected a mapping, found ${describeRawNode(node)}`);
      }
      const out: Record<string, unknown> = { __proto__: null };
      for (const entry of node.entries) {
        const entryPath = childPath(path, entry.key);
        const value = walkNode(schema.value, entry.value, entryPath, entry.line, ctx);
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
        const value = walkNode(schema.item, item, itemPath, item.line, ctx);
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

function walkMap(
  fields: Fields,
  node: RawNode,
  path: string,
  line: number,
  ctx: WalkContext,
): Walked {
  if (isEmptyValue(node)) return OMIT;
  if (node.kind !== 'map') {
    return fail(ctx, path, line, `expected a mapping, found ${describeRawNode(node)}`);
  }
  // Every map the walker builds is null-prototype: a `__proto__` key is an ordinary key.
  const out: Record<string, unknown> = { __proto__: null };
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
    const value = walkNode(spec.schema, entry.value, entryPath, entry.line, ctx);
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

/** Integers are exact up to 2^53 here (the reference has no limit; no sane setting needs more). */
function outOfRangeMessage(text: string): string {
  return `integer out of range: '${text}' (at most ${Number.MAX_SAFE_INTEGER} in magnitude)`;
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
      const out: Record<string, unknown> = { __proto__: null };
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
