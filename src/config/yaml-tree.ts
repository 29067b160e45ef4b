// YAML text → a plain tree of text scalars, block maps and block lists (strictyaml dialect).
// Rejects what strictyaml rejects: flow style, anchors/aliases, explicit tags, duplicate keys,
// non-string keys, several documents. It never types values; the schema walker does that.
import type * as yamlPackage from 'yaml';
import type { Node as YamlNode } from 'yaml';
import { fastParseYaml, UNSUPPORTED } from './fast-yaml.js';
import { childPath, indexPath, type ConfigIssue } from './issues.js';

type YamlModule = typeof yamlPackage;

export interface RawScalar {
  readonly kind: 'scalar';
  /** The scalar's text (escapes and block folding resolved); '' for an empty value. */
  readonly text: string;
  /** True when written quoted or as a block scalar (so '' is an explicit empty string). */
  readonly quoted: boolean;
  readonly line: number;
}

export interface RawEntry {
  readonly key: string;
  /** Line of the key. */
  readonly line: number;
  readonly value: RawNode;
}

export interface RawMap {
  readonly kind: 'map';
  readonly entries: readonly RawEntry[];
  readonly line: number;
}

export interface RawSeq {
  readonly kind: 'seq';
  readonly items: readonly RawNode[];
  readonly line: number;
}

export type RawNode = RawScalar | RawMap | RawSeq;

export interface YamlParseResult {
  /** null for an empty document (or one with errors). */
  readonly root: RawNode | null;
  readonly issues: readonly ConfigIssue[];
}

export function describeRawNode(node: RawNode): string {
  switch (node.kind) {
    case 'map':
      return 'a mapping';
    case 'seq':
      return 'a list';
    case 'scalar':
      return node.text === '' && !node.quoted ? 'an empty value' : `'${node.text}'`;
  }
}

/**
 * Parse one YAML document; every problem is returned as an issue naming `file`. Plain block
 * configs take the fast reader; anything else (and every error) goes through the `yaml` package,
 * imported only then.
 */
export async function parseYamlText(text: string, file: string): Promise<YamlParseResult> {
  const fast = fastParseYaml(text);
  if (fast !== UNSUPPORTED) return { root: fast, issues: [] };
  return parseWithYamlPackage(text, file);
}

/** The authoritative parse with the `yaml` package (also the reference for fast-yaml tests). */
export async function parseWithYamlPackage(text: string, file: string): Promise<YamlParseResult> {
  const yaml = await import('yaml');
  const lineCounter = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, {
    schema: 'failsafe',
    uniqueKeys: false,
    lineCounter,
    prettyErrors: false,
  });
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line;
  if (doc.errors.length > 0) {
    const issues = doc.errors.map((error) => {
      const offset = error.pos[0];
      const message =
        error.code === 'MULTIPLE_DOCS'
          ? 'a config file must hold a single YAML document'
          : `invalid YAML: ${firstLine(error.message)}`;
      return {
        file,
        path: pathAtOffset(yaml, doc.contents, offset, '') || '(document)',
        line: lineOf(offset),
        message,
      };
    });
    return { root: null, issues };
  }
  const issues: ConfigIssue[] = [];
  const contents = doc.contents;
  if (contents === null) return { root: null, issues };
  const root = convert(contents, '', { file, issues, lineOf, yaml });
  return { root: issues.length > 0 ? null : root, issues };
}

interface ConvertContext {
  readonly file: string;
  readonly issues: ConfigIssue[];
  readonly lineOf: (offset: number) => number;
  readonly yaml: YamlModule;
}

function convert(node: unknown, path: string, ctx: ConvertContext): RawNode {
  const { isAlias, isMap, isNode, isPair, isScalar, isSeq } = ctx.yaml;
  if (isAlias(node)) {
    const line = ctx.lineOf(node.range?.[0] ?? 0);
    reject(ctx, path, line, `aliases (*${node.source}) are not allowed`);
    return { kind: 'scalar', text: '', quoted: false, line };
  }
  const yamlNode = isNode(node) ? node : undefined;
  const line = ctx.lineOf(yamlNode?.range?.[0] ?? 0);
  if (yamlNode?.anchor !== undefined) {
    reject(ctx, path, line, `anchors (&${yamlNode.anchor}) are not allowed`);
  }
  if (yamlNode?.tag !== undefined) {
    reject(ctx, path, line, `explicit tags (${yamlNode.tag}) are not allowed`);
  }
  if (isScalar(node)) {
    return {
      kind: 'scalar',
      text: typeof node.value === 'string' ? node.value : String(node.value),
      quoted: node.type !== 'PLAIN',
      line,
    };
  }
  if (isMap(node)) {
    if (node.flow === true) {
      reject(
        ctx,
        path,
        line,
        'flow style ({...}) is not allowed; write the mapping in block style',
      );
    }
    const entries: RawEntry[] = [];
    const firstLines = new Map<string, number>();
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key;
      const keyLine = ctx.lineOf(rangeOf(ctx.yaml, keyNode)?.[0] ?? 0);
      if (!isScalar(keyNode) || isMap(keyNode) || isSeq(keyNode)) {
        reject(ctx, path, keyLine, 'mapping keys must be plain strings');
        continue;
      }
      if (keyNode.tag !== undefined || keyNode.anchor !== undefined) {
        reject(ctx, path, keyLine, 'mapping keys must be plain strings (no tags or anchors)');
      }
      const key = String(keyNode.value);
      const keyPath = childPath(path, key);
      const first = firstLines.get(key);
      if (first !== undefined) {
        reject(ctx, keyPath, keyLine, `duplicate key '${key}' (first defined on line ${first})`);
        continue;
      }
      firstLines.set(key, keyLine);
      const valueNode = pair.value;
      const value: RawNode =
        valueNode === null || valueNode === undefined
          ? { kind: 'scalar', text: '', quoted: false, line: keyLine }
          : convert(valueNode, keyPath, ctx);
      entries.push({ key, line: keyLine, value });
    }
    return { kind: 'map', entries, line };
  }
  if (isSeq(node)) {
    if (node.flow === true) {
      reject(ctx, path, line, 'flow style ([...]) is not allowed; write the list in block style');
    }
    const items = node.items.map((item, index) => {
      const itemPath = indexPath(path, index);
      if (item === null || item === undefined) {
        return { kind: 'scalar', text: '', quoted: false, line } satisfies RawScalar;
      }
      return convert(item, itemPath, ctx);
    });
    return { kind: 'seq', items, line };
  }
  reject(ctx, path, line, 'unsupported YAML node');
  return { kind: 'scalar', text: '', quoted: false, line };
}

function reject(ctx: ConvertContext, path: string, line: number, message: string): void {
  ctx.issues.push({ file: ctx.file, path: path || '(document)', line, message });
}

/** yaml's messages may carry a position suffix and a code frame; keep the first sentence. */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '').trim();
}

/** Where a node was written; undefined for a missing key or value. */
function rangeOf(yaml: YamlModule, node: unknown): YamlNode['range'] {
  return yaml.isNode(node) ? node.range : undefined;
}

/** The field path of the innermost node containing `offset` (for syntax errors). */
function pathAtOffset(yaml: YamlModule, node: unknown, offset: number, path: string): string {
  const { isMap, isScalar, isSeq } = yaml;
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key;
      const value = pair.value;
      const start = rangeOf(yaml, key)?.[0] ?? rangeOf(yaml, value)?.[0];
      const end = rangeOf(yaml, value)?.[2] ?? rangeOf(yaml, key)?.[2];
      if (start === undefined || end === undefined || offset < start || offset > end) continue;
      const name = isScalar(key) ? String(key.value) : '?';
      return pathAtOffset(yaml, value, offset, childPath(path, name));
    }
  } else if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) {
      const range = rangeOf(yaml, item);
      if (range && offset >= range[0] && offset <= range[2]) {
        return pathAtOffset(yaml, item, offset, indexPath(path, index));
      }
    }
  }
  return path;
}
