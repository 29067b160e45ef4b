// The Content-Security-Policy of the page at `GET /`
// (docs/dashboard.md "Delivery and security headers"): the page's inline `<script>` and `<style>`
// blocks are allowed by their sha256 hashes, which `npm run build` writes beside the page
// (dist/web/csp-hashes.txt); nothing else inline runs. Pure: the parser of that file and the
// policy built from its hashes.
// Must not: emit 'unsafe-inline', or a policy that allows a script it was not given the hash of.

/** The hash sources of a page's inline blocks, each as `'sha256-<base64>'`. */
export interface InlineHashes {
  readonly scripts: readonly string[];
  readonly styles: readonly string[];
}

export type ParsedHashes =
  | { readonly kind: 'hashes'; readonly hashes: InlineHashes }
  | { readonly kind: 'invalid'; readonly reason: string };

/** One hash source as CSP writes it: `'sha256-` + the base64 of 32 bytes + `'`. */
const HASH_SOURCE = /^'sha256-[A-Za-z0-9+/]{43}='$/;

/**
 * csp-hashes.txt: a `script-src <sources>` line and a `style-src <sources>` line, every source
 * a sha256 hash source. Anything else is invalid (the reason names the line).
 */
export function parseCspHashes(text: string): ParsedHashes {
  const found = new Map<string, string[]>();
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const [directive = '', ...sources] = line.trim().split(/\s+/);
    if (directive !== 'script-src' && directive !== 'style-src') {
      return { kind: 'invalid', reason: `line ${index + 1}: unknown directive ${directive}` };
    }
    if (found.has(directive)) {
      return { kind: 'invalid', reason: `line ${index + 1}: ${directive} given twice` };
    }
    const bad = sources.find((source) => !HASH_SOURCE.test(source));
    if (bad !== undefined || sources.length === 0) {
      return {
        kind: 'invalid',
        reason: `line ${index + 1}: ${directive} needs 'sha256-…' sources, got ${bad ?? 'none'}`,
      };
    }
    found.set(directive, sources);
  }
  const scripts = found.get('script-src');
  const styles = found.get('style-src');
  if (scripts === undefined || styles === undefined) {
    return { kind: 'invalid', reason: 'a script-src and a style-src line are both required' };
  }
  return { kind: 'hashes', hashes: { scripts, styles } };
}

/** The directive's sources, or `'none'` when the page has no such inline block. */
function sourcesOf(hashes: readonly string[]): string {
  return hashes.length === 0 ? "'none'" : hashes.join(' ');
}

/**
 * The page's policy: its inline scripts and styles by hash only, requests to its own origin,
 * no framing, forms, plugins or base URL.
 */
export function pagePolicy(hashes: InlineHashes): string {
  return [
    "default-src 'self'",
    `script-src ${sourcesOf(hashes.scripts)}`,
    `style-src ${sourcesOf(hashes.styles)}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}
