// Python's repr() of a str, for the reference's 409 texts (`job 'name' is disabled`): single
// quotes unless the text holds a single quote and no double quote; backslash, the quote and
// non-printable characters escaped. Pure.

export function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\' || char === quote) out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) {
      out += `\\x${code.toString(16).padStart(2, '0')}`;
    } else out += char;
  }
  return out + quote;
}
