// Test support: a second reader of the store's files, written from the format description
// (docs/durable-state-store.md), sharing no code with the store: its own name encoder, and a
// strict JSON reader that accepts only the reference's bytes (compact, keys sorted by code point
// at every level, ASCII with lower-case \u escapes, no trailing newline) and keeps whether a
// number was written as a float. Tests prove it on every file of the golden store, then check
// what our code wrote with it. Only tests import this file.
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { pyFloat } from '../common/index.js';

const RESERVED = new Set([
  'con',
  'prn',
  'aux',
  'nul',
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => [`com${n}`, `lpt${n}`]),
]);

/** enc(name), from the format description. */
export function specEncode(name: string): string {
  if (name === '') return '_';
  let token = '';
  for (const byte of new TextEncoder().encode(name)) {
    const char = String.fromCharCode(byte);
    token += /[a-z0-9_-]/.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (RESERVED.has(token)) {
    token = `%${token.charCodeAt(0).toString(16).toUpperCase()}${token.slice(1)}`;
  }
  if (token.length > 130) {
    token = `${token.slice(0, 96)}%.${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
  }
  return token;
}

export type Node =
  | { readonly kind: 'float'; readonly raw: string }
  | { readonly kind: 'int'; readonly raw: string }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'literal'; readonly value: boolean | null }
  | { readonly kind: 'array'; readonly items: Node[] }
  | { readonly kind: 'object'; readonly entries: [string, Node][] };

function codePoints(text: string): number[] {
  return [...text].map((char) => char.codePointAt(0)!);
}

function lessByCodePoint(a: string, b: string): boolean {
  const x = codePoints(a);
  const y = codePoints(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]!;
  return x.length < y.length;
}

/** Parse `text`, failing on anything the reference's json.dumps would not have written. */
export function readReferenceJson(text: string): Node {
  let at = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at ${at} in ${text.slice(0, 80)}`);
  };
  const separator = (): void => {
    if (text[at] !== ',') fail('expected ,');
    at++;
  };
  const value = (): Node => {
    const char = text[at];
    if (char === '{') {
      at++;
      const entries: [string, Node][] = [];
      while (text[at] !== '}') {
        if (entries.length > 0) separator();
        const key = value();
        if (key.kind !== 'string') fail('object key is not a string');
        if (text[at++] !== ':') fail('expected :');
        const name = (key as { value: string }).value;
        const previous = entries.at(-1)?.[0];
        if (previous !== undefined && !lessByCodePoint(previous, name))
          fail(`key ${name} out of order`);
        entries.push([name, value()]);
      }
      at++;
      return { kind: 'object', entries };
    }
    if (char === '[') {
      at++;
      const items: Node[] = [];
      while (text[at] !== ']') {
        if (items.length > 0) separator();
        items.push(value());
      }
      at++;
      return { kind: 'array', items };
    }
    if (char === '"') {
      at++;
      let out = '';
      for (;;) {
        const c = text[at++] ?? fail('unterminated string');
        if (c === '"') break;
        if (c !== '\\') {
          if (c < ' ' || c > '~') fail('a raw non-ASCII or control character');
          out += c;
          continue;
        }
        const escape = text[at++];
        const short: Record<string, string> = {
          '"': '"',
          '\\': '\\',
          n: '\n',
          r: '\r',
          t: '\t',
          b: '\b',
          f: '\f',
        };
        if (escape !== undefined && escape in short) {
          out += short[escape];
        } else if (escape === 'u' && /^[0-9a-f]{4}$/.test(text.slice(at, at + 4))) {
          const code = Number.parseInt(text.slice(at, at + 4), 16);
          if (code >= 0x20 && code <= 0x7e) fail('a printable character needlessly escaped');
          out += String.fromCharCode(code);
          at += 4;
        } else {
          fail('an escape the reference does not write');
        }
      }
      return { kind: 'string', value: out };
    }
    const literal = /^(true|false|null)/.exec(text.slice(at));
    if (literal) {
      at += literal[0].length;
      return { kind: 'literal', value: literal[0] === 'null' ? null : literal[0] === 'true' };
    }
    const number = /^-?(0|[1-9]\d*)(\.\d+)?(e[+-]\d{2,})?/.exec(text.slice(at));
    if (!number) return fail('not a JSON value');
    at += number[0].length;
    const float = number[2] !== undefined || number[3] !== undefined;
    return { kind: float ? 'float' : 'int', raw: number[0] };
  };
  const root = value();
  if (at !== text.length) fail('trailing bytes (a newline, whitespace or more)');
  return root;
}

/** The plain value, floats marked as the reference wrote them. */
export function toValue(node: Node): unknown {
  switch (node.kind) {
    case 'float':
      return pyFloat(Number(node.raw));
    case 'int':
      return Number(node.raw);
    case 'string':
    case 'literal':
      return node.value;
    case 'array':
      return node.items.map(toValue);
    case 'object':
      return Object.fromEntries(node.entries.map(([key, child]) => [key, toValue(child)]));
  }
}

export function field(node: Node, name: string): Node {
  if (node.kind !== 'object') throw new Error('not an object');
  const found = node.entries.find(([key]) => key === name);
  if (!found) throw new Error(`no field ${name}`);
  return found[1];
}

export function keysOf(node: Node): string[] {
  return node.kind === 'object' ? node.entries.map(([key]) => key) : [];
}

export async function filesUnder(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) out.push(`${child}/`, ...(await filesUnder(dir, child)));
    else out.push(child);
  }
  return out;
}

export const RECORD_NAME = /^(\d{13}\.\d{6})-([0-9a-f]{12})-(\d{12})\.json$/;
