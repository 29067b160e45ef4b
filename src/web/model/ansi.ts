// ANSI escape sequences in job output: SGR colour/weight codes become styled segments, every
// other escape (cursor moves, OSC titles and links, lone ESC) is dropped. Pure; the parser keeps
// the SGR state between lines of one stream, as a terminal would.
// Must not: emit raw escape bytes or control characters into the text it returns.

/** A colour: one of the 256 palette entries, or 24-bit. */
export type AnsiColor =
  | { readonly kind: 'palette'; readonly index: number }
  | { readonly kind: 'rgb'; readonly r: number; readonly g: number; readonly b: number };

export interface AnsiStyle {
  readonly fg: AnsiColor | null;
  readonly bg: AnsiColor | null;
  readonly bold: boolean;
  readonly dim: boolean;
  readonly italic: boolean;
  readonly underline: boolean;
  readonly inverse: boolean;
}

export interface AnsiSegment {
  readonly text: string;
  readonly style: AnsiStyle;
}

export const PLAIN_STYLE: AnsiStyle = Object.freeze({
  fg: null,
  bg: null,
  bold: false,
  dim: false,
  italic: false,
  underline: false,
  inverse: false,
});

// CSI (ESC [ params intermediates final), OSC (ESC ] ... BEL or ESC \), other two-byte escapes.
// eslint-disable-next-line no-control-regex
const ESCAPE = /\x1b\[([0-?]*)[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]?/g;
// C0 controls other than tab, and DEL, are invisible noise in a log line.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;

/** The text without escapes or control characters (search, download, copy). */
export function stripAnsi(line: string): string {
  return line.replace(ESCAPE, '').replace(CONTROL, '');
}

/** Splits lines of one stream into styled segments; the style carries over to the next line. */
export class AnsiParser {
  #style: AnsiStyle = PLAIN_STYLE;

  parse(line: string): AnsiSegment[] {
    const segments: AnsiSegment[] = [];
    let at = 0;
    const push = (text: string): void => {
      const clean = text.replace(CONTROL, '');
      if (clean === '') return;
      const previous = segments[segments.length - 1];
      if (previous !== undefined && previous.style === this.#style) {
        segments[segments.length - 1] = { text: previous.text + clean, style: this.#style };
      } else segments.push({ text: clean, style: this.#style });
    };
    for (const match of line.matchAll(ESCAPE)) {
      push(line.slice(at, match.index));
      at = match.index + match[0].length;
      if (match[2] === 'm' && match[0].startsWith('\x1b[')) {
        this.#style = applySgr(this.#style, match[1] ?? '');
      }
    }
    push(line.slice(at));
    return segments;
  }

  reset(): void {
    this.#style = PLAIN_STYLE;
  }
}

/** The style after one SGR sequence's parameters (`1;31`, `38;5;208`, `` = reset). */
export function applySgr(style: AnsiStyle, params: string): AnsiStyle {
  const codes = params === '' ? [0] : params.split(/[;:]/).map((part) => Number(part || '0'));
  let next: { -readonly [K in keyof AnsiStyle]: AnsiStyle[K] } = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    if (code === 0) next = { ...PLAIN_STYLE };
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 7) next.inverse = true;
    else if (code === 22) next = { ...next, bold: false, dim: false };
    else if (code === 23) next.italic = false;
    else if (code === 24) next.underline = false;
    else if (code === 27) next.inverse = false;
    else if (code >= 30 && code <= 37) next.fg = palette(code - 30);
    else if (code >= 90 && code <= 97) next.fg = palette(code - 90 + 8);
    else if (code === 39) next.fg = null;
    else if (code >= 40 && code <= 47) next.bg = palette(code - 40);
    else if (code >= 100 && code <= 107) next.bg = palette(code - 100 + 8);
    else if (code === 49) next.bg = null;
    else if (code === 38 || code === 48) {
      const extended = readExtendedColor(codes, i + 1);
      if (extended === null) break; // malformed: ignore the rest of the sequence
      if (code === 38) next.fg = extended.color;
      else next.bg = extended.color;
      i = extended.nextIndex - 1;
    }
  }
  return isPlain(next) ? PLAIN_STYLE : next;
}

function palette(index: number): AnsiColor {
  return { kind: 'palette', index };
}

function readExtendedColor(
  codes: readonly number[],
  at: number,
): { color: AnsiColor; nextIndex: number } | null {
  const mode = codes[at];
  const byte = (value: number | undefined): value is number =>
    value !== undefined && Number.isInteger(value) && value >= 0 && value <= 255;
  if (mode === 5 && byte(codes[at + 1])) {
    return { color: palette(codes[at + 1]!), nextIndex: at + 2 };
  }
  if (mode === 2 && byte(codes[at + 1]) && byte(codes[at + 2]) && byte(codes[at + 3])) {
    return {
      color: { kind: 'rgb', r: codes[at + 1]!, g: codes[at + 2]!, b: codes[at + 3]! },
      nextIndex: at + 4,
    };
  }
  return null;
}

function isPlain(style: AnsiStyle): boolean {
  return (
    style.fg === null &&
    style.bg === null &&
    !style.bold &&
    !style.dim &&
    !style.italic &&
    !style.underline &&
    !style.inverse
  );
}

/** CSS colour of a 256-palette entry above 15 (0-15 are themed by the stylesheet). */
export function paletteCss(index: number): string {
  if (index >= 232) {
    const level = 8 + (index - 232) * 10;
    return `rgb(${level}, ${level}, ${level})`;
  }
  const cube = index - 16;
  const steps = [0, 95, 135, 175, 215, 255];
  const r = steps[Math.floor(cube / 36) % 6]!;
  const g = steps[Math.floor(cube / 6) % 6]!;
  const b = steps[cube % 6]!;
  return `rgb(${r}, ${g}, ${b})`;
}
