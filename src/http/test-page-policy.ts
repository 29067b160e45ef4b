// Test support (no tests here): reading a served page's inline blocks and its policy's
// directives, and the check that the policy allows exactly those blocks by hash
// (docs/dashboard.md "Delivery and security headers").
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';

/** The contents of every `<tag>…</tag>` element of `html`, and whether any has attributes. */
export function inlineBlocks(html: string, tag: 'script' | 'style'): string[] {
  const pattern = new RegExp(`<${tag}(\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'gi');
  return [...html.matchAll(pattern)].map((match) => {
    assert.equal(match[1], undefined, `a <${tag}> with attributes: ${match[1]}`);
    return match[2] ?? '';
  });
}

/** The sources of one directive of a policy. */
export function directive(policy: string, name: string): string[] {
  const found = policy
    .split(';')
    .map((part) => part.trim().split(/\s+/))
    .find(([first]) => first === name);
  assert.ok(found, `${name} is in the policy`);
  return found.slice(1);
}

export const sha256 = (text: string): string =>
  `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The page's inline scripts and styles are each allowed by their hash, nothing else is, and
 * nothing inline is allowed wholesale.
 */
export function assertPolicyCoversPage(html: string, policy: string): void {
  assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval|unsafe-hashes/);
  for (const tag of ['script', 'style'] as const) {
    const allowed = directive(policy, `${tag}-src`);
    const blocks = inlineBlocks(html, tag).map(sha256);
    if (blocks.length === 0) assert.deepEqual(allowed, ["'none'"]);
    else assert.deepEqual([...allowed].sort(), [...new Set(blocks)].sort());
  }
}
