// Renders `streamPrefix` the way Python's str.format does for the two fields yacron2 offers
// ({job_name}, {stream_name}, `{{`/`}}` escapes, !s/!r conversions, string format specs).
// A template that does not parse (e.g. an unmatched `{`) is used verbatim: this renderer never throws.
import { pythonAscii, pythonRepr } from '../common/index.js';

export interface StreamPrefixFields {
  readonly job_name: string;
  readonly stream_name: string;
}

/** The rendered prefix, or the template itself when it cannot be rendered. */
export function renderStreamPrefix(template: string, fields: StreamPrefixFields): string {
  try {
    return formatTemplate(template, fields);
  } catch {
    return template;
  }
}

/** Throws on any template Python's str.format would reject for these fields. */
export function formatTemplate(template: string, fields: StreamPrefixFields): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const close = template.indexOf('}', i);
    if (open === -1 && close === -1) {
      out += template.slice(i);
      break;
    }
    if (close !== -1 && (open === -1 || close < open)) {
      // A lone `}` must be doubled.
      if (template[close + 1] !== '}') throw new Error("Single '}' encountered in format string");
      out += template.slice(i, close) + '}';
      i = close + 2;
      continue;
    }
    out += template.slice(i, open);
    if (template[open + 1] === '{') {
      out += '{';
      i = open + 2;
      continue;
    }
    const end = template.indexOf('}', open + 1);
    if (end === -1) throw new Error("Single '{' encountered in format string");
    const field = template.slice(open + 1, end);
    if (field.includes('{')) throw new Error('Nested replacement fields are not supported');
    out += renderField(field, fields);
    i = end + 1;
  }
  return out;
}

function renderField(field: string, fields: StreamPrefixFields): string {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:!([sra]))?(?::(.*))?$/s.exec(field);
  if (!match) throw new Error(`Unsupported replacement field: {${field}}`);
  const [, name, conversion, spec] = match;
  if (name !== 'job_name' && name !== 'stream_name') throw new Error(`Unknown field: ${name}`);
  let value: string = fields[name];
  if (conversion === 'r') value = pythonRepr(value);
  else if (conversion === 'a') value = pythonAscii(value);
  return spec === undefined || spec === '' ? value : applyStringSpec(value, spec);
}

/** `[[fill]align][0][width][.precision][s]` — the parts of the format mini-language valid for str. */
function applyStringSpec(value: string, spec: string): string {
  const match = /^(?:(.)?([<>^]))?(0)?(\d+)?(?:\.(\d+))?(s)?$/su.exec(spec);
  if (!match) throw new Error(`Invalid format specifier '${spec}' for a string`);
  const [, fillChar, align, zero, width, precision] = match;
  let chars = Array.from(value);
  if (precision !== undefined) chars = chars.slice(0, Number(precision));
  const fill = fillChar ?? (zero !== undefined && align === undefined ? '0' : ' ');
  const padding = Math.max(0, Number(width ?? 0) - chars.length);
  const text = chars.join('');
  if (padding === 0) return text;
  switch (align ?? '<') {
    case '>':
      return fill.repeat(padding) + text;
    case '^': {
      const left = Math.floor(padding / 2);
      return fill.repeat(left) + text + fill.repeat(padding - left);
    }
    default:
      return text + fill.repeat(padding);
  }
}
