// A fast, conservative reader for the plain block-style YAML most configs are written in: block
// maps with simple keys, block lists, single-line plain/quoted scalars, `|`/`>` block scalars.
// It exists for start-up time (the `yaml` package costs ~35 ms to import and ~100 ms to parse
// 100 jobs cold). Anything outside that subset — including every error — returns UNSUPPORTED
// and the caller parses with the `yaml` package instead, which stays the authority: for input
// both accept, the trees must be identical (fast-yaml.test.ts checks this differentially).
import type { RawEntry, RawNode } from './yaml-tree.js';

export const UNSUPPORTED: unique symbol = Symbol('unsupported');

/** The raw tree, null for an empty document, or UNSUPPORTED. */
export function fastParseYaml(text: string): RawNode | null | typeof UNSUPPORTED {
  // Tabs, CRs, control characters: leave the exact rules to the full parser.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (/[\t\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff\ufffe\uffff]/.test(text)) return UNSUPPORTED;
  try {
    return new BlockParser(text).parseDocument();
  } catch {
    // BAIL, or anything unexpected: either way the authoritative parser decides.
    return UNSUPPORTED;
  }
}

/** Thrown (one shared instance, so no stack is captured per bail) to abandon the fast read. */
const BAIL = new Error('outside the fast YAML subset');
function bail(): never {
  throw BAIL;
}

// `key:` followed by spaces or the end; simple keys only (quoted or spaced keys go to `yaml`).
const KEY_RE = /^([A-Za-z0-9_$][\w.$/-]*):(?: +|$)/;
const PLAIN_START_FORBIDDEN = new Set([...'[]{}&*!|>\'"%@`,#']);
const BLOCK_HEADER_RE = /^([|>])(-?)(?: +#.*| *)$/;
const AFTER_QUOTED_RE = /^(?: +#.*| *)$/;

function isSeqLine(content: string): boolean {
  return content === '-' || content.startsWith('- ');
}

const ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};
const HEX_LENGTH: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

class BlockParser {
  readonly #raw: string[];
  /** Indentation and content per line; a compact `- key: v` line is rewritten in place. */
  readonly #indent: number[];
  readonly #content: string[];
  #i = 0;

  constructor(text: string) {
    this.#raw = text.split('\n');
    this.#indent = [];
    this.#content = [];
    for (const line of this.#raw) {
      let indent = 0;
      while (line.charCodeAt(indent) === 32) indent++;
      this.#indent.push(indent);
      this.#content.push(line.slice(indent));
    }
  }

  parseDocument(): RawNode | null {
    let i = this.#nextContent(0);
    const first = this.#content[i];
    if (first !== undefined && this.#indent[i] === 0 && /^---(?: +#.*| *)$/.test(first)) i++;
    this.#i = this.#skip(i);
    if (this.#i >= this.#raw.length) return null;
    const root = this.#parseBlockNode(-1);
    if (this.#skip(this.#i) < this.#raw.length) bail();
    return root;
  }

  /** The next line that is neither blank nor a comment. */
  #nextContent(from: number): number {
    let i = from;
    while (i < this.#raw.length) {
      const content = this.#content[i] ?? '';
      if (content !== '' && !content.startsWith('#')) break;
      i++;
    }
    return i;
  }

  /** Like #nextContent, but document markers and directives are not for this reader. */
  #skip(from: number): number {
    const i = this.#nextContent(from);
    const content = this.#content[i];
    if (
      content !== undefined &&
      this.#indent[i] === 0 &&
      /^(?:---|\.\.\.)(?: |$)|^%/.test(content)
    ) {
      bail();
    }
    return i;
  }

  #parseBlockNode(parentIndent: number): RawNode {
    const i = this.#i;
    const indent = this.#indent[i] ?? 0;
    const content = this.#content[i] ?? '';
    if (indent <= parentIndent) bail();
    if (isSeqLine(content)) return this.#parseSeq(indent);
    if (KEY_RE.test(content)) return this.#parseMap(indent);
    return bail();
  }

  #parseMap(indent: number): RawNode {
    const entries: RawEntry[] = [];
    const seen = new Set<string>();
    const line = this.#i + 1;
    for (;;) {
      const i = this.#skip(this.#i);
      this.#i = i;
      if (i >= this.#raw.length || (this.#indent[i] ?? 0) < indent) break;
      if (this.#indent[i] !== indent) bail();
      const content = this.#content[i] ?? '';
      const match = KEY_RE.exec(content);
      if (!match) bail();
      const key = match[1] ?? '';
      if (seen.has(key)) bail();
      seen.add(key);
      const value = this.#parseValue(content.slice(match[0].length), indent, i + 1, true);
      entries.push({ key, line: i + 1, value });
    }
    return { kind: 'map', entries, line };
  }

  #parseSeq(indent: number): RawNode {
    const items: RawNode[] = [];
    const line = this.#i + 1;
    for (;;) {
      const i = this.#skip(this.#i);
      this.#i = i;
      if (i >= this.#raw.length || (this.#indent[i] ?? 0) < indent) break;
      if (this.#indent[i] !== indent) bail();
      const content = this.#content[i] ?? '';
      if (!isSeqLine(content)) break;
      let offset = 1;
      while (content[offset] === ' ') offset++;
      const rest = content.slice(offset);
      if (rest !== '' && !rest.startsWith('#') && (KEY_RE.test(rest) || isSeqLine(rest))) {
        // A compact nested block (`- name: x`): re-read this line at the item's column.
        this.#indent[i] = indent + offset;
        this.#content[i] = rest;
        items.push(this.#parseBlockNode(indent));
      } else {
        items.push(this.#parseValue(rest, indent, i + 1, false));
      }
    }
    return { kind: 'seq', items, line };
  }

  /** The value after `key:` or `- ` on line `line` (1-based); `owner` is the key/dash indent. */
  #parseValue(rest: string, owner: number, line: number, mapValue: boolean): RawNode {
    if (rest === '' || rest.startsWith('#')) {
      const next = this.#skip(line);
      this.#i = next;
      if (next < this.#raw.length) {
        const nextIndent = this.#indent[next] ?? 0;
        if (nextIndent > owner) return this.#parseBlockNode(owner);
        if (mapValue && nextIndent === owner && isSeqLine(this.#content[next] ?? '')) {
          return this.#parseSeq(owner);
        }
      }
      return { kind: 'scalar', text: '', quoted: false, line };
    }
    const first = rest[0] ?? '';
    if (first === '"' || first === "'") {
      const parsed = first === '"' ? parseDoubleQuoted(rest) : parseSingleQuoted(rest);
      if (parsed === undefined || !AFTER_QUOTED_RE.test(parsed.after)) bail();
      this.#endInline(line, owner);
      return { kind: 'scalar', text: parsed.text, quoted: true, line };
    }
    if (first === '|' || first === '>') return this.#parseBlockScalar(rest, owner, line);
    if (PLAIN_START_FORBIDDEN.has(first)) bail();
    if (
      (first === '-' || first === '?' || first === ':') &&
      (rest.length === 1 || rest[1] === ' ')
    ) {
      bail();
    }
    const comment = rest.indexOf(' #');
    const text = (comment === -1 ? rest : rest.slice(0, comment)).trimEnd();
    if (text.includes(': ') || text.endsWith(':')) bail();
    this.#endInline(line, owner);
    return { kind: 'scalar', text, quoted: false, line };
  }

  /** After a single-line scalar: a more-indented next line would continue it — not ours. */
  #endInline(line: number, owner: number): void {
    const next = this.#skip(line);
    if (next < this.#raw.length && (this.#indent[next] ?? 0) > owner) bail();
    this.#i = next;
  }

  #parseBlockScalar(header: string, owner: number, line: number): RawNode {
    const match = BLOCK_HEADER_RE.exec(header);
    if (!match) bail();
    const folded = match[1] === '>';
    const strip = match[2] === '-';
    let i = line;
    // Leading blank lines, then the first content line fixes the indentation.
    while (i < this.#raw.length && (this.#raw[i] ?? '').trim() === '') i++;
    const contentIndent = this.#indent[i] ?? 0;
    if (i >= this.#raw.length || contentIndent <= owner) bail();
    const lines: string[] = [];
    for (i = line; i < this.#raw.length; i++) {
      const raw = this.#raw[i] ?? '';
      if (raw.trim() === '') {
        if (raw.length > contentIndent) bail();
        lines.push('');
        continue;
      }
      if ((this.#indent[i] ?? 0) < contentIndent) break;
      lines.push(raw.slice(contentIndent));
    }
    let last = lines.length - 1;
    while (last >= 0 && lines[last] === '') last--;
    const body = lines.slice(0, last + 1);
    if (folded && body.some((text) => text === '' || text.startsWith(' '))) bail();
    const text = body.join(folded ? ' ' : '\n') + (strip ? '' : '\n');
    this.#i = i;
    return { kind: 'scalar', text, quoted: true, line };
  }
}

function parseDoubleQuoted(rest: string): { text: string; after: string } | undefined {
  let text = '';
  for (let index = 1; index < rest.length; index++) {
    const char = rest[index] ?? '';
    if (char === '"') return { text, after: rest.slice(index + 1) };
    if (char !== '\\') {
      text += char;
      continue;
    }
    const code = rest[++index] ?? '';
    const simple = ESCAPES[code];
    if (simple !== undefined) {
      text += simple;
      continue;
    }
    const length = HEX_LENGTH[code];
    if (length === undefined) return undefined;
    const hex = rest.slice(index + 1, index + 1 + length);
    if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== length) return undefined;
    const point = Number.parseInt(hex, 16);
    if (point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff)) return undefined;
    text += String.fromCodePoint(point);
    index += length;
  }
  return undefined;
}

function parseSingleQuoted(rest: string): { text: string; after: string } | undefined {
  let text = '';
  for (let index = 1; index < rest.length; index++) {
    const char = rest[index] ?? '';
    if (char !== "'") {
      text += char;
    } else if (rest[index + 1] === "'") {
      text += "'";
      index++;
    } else {
      return { text, after: rest.slice(index + 1) };
    }
  }
  return undefined;
}
